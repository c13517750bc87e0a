// Package layer is the vkgen layer framework: the C runtime every generated
// layer links against (chain walking, dispatch state keyed by the loader's
// dispatch key, GetInstanceProcAddr/GetDeviceProcAddr/Negotiate logic,
// enumeration, the object-name dedupe cache, the SIGURG multiplexer and the
// forked-child mark that keeps a forked child out of Go, vkgen_fork.[ch]) and the
// small Go side that generated hook glue calls (panic recovery and logging).
//
// It owns the committed, generated framework, written once for the library by
// `vkgen generate`: the C dispatch table (vkgen_dispatch.gen.[ch]), the hook
// signatures and trampolines of the commands it intercepts itself
// (vkgen_framework.gen.h, vkgen_trampolines.gen.h) and the capture tables of
// deferred records (vkgen_capture.gen.c), none depending on a layer's hooks:
// product layers live in sub-packages (layer/<name>) and are hosted by the
// single c-shared library built from layer/vklayers. It must not import any
// product layer, tracing, the Perfetto writer or the name store (deps_test.go):
// the event clock and the drain's pacing are set by the event writer
// (SetEventClock, SetDrainPace: layer/tracing), the names are drained into the
// store by layer/naming.
package layer
