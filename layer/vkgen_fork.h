/* Forked children: a child forked from a process that has the layer library
 * loaded has only the forking thread. The Go runtime's threads (scheduler,
 * sysmon, GC workers, every thread that held a P) do not exist there, so a
 * call into Go can block forever, and Go state copied from the parent (trace
 * buffers) is not the child's to write. In a forked child every layer is
 * therefore a pure C pass-through and no exit handler enters Go: every C
 * path into Go checks vkgen_go_ok() first. See docs/layers.md. */
#ifndef VKGEN_FORK_H
#define VKGEN_FORK_H

/* Set by a pthread_atfork child handler registered before Go initialises;
 * never cleared. */
extern int vkgen_forked __attribute__((visibility("hidden")));

/* Whether C may call into Go: false in a forked child. One relaxed load of a
 * flag that never changes in a process, beside a call into Go (~50 ns). */
static inline int vkgen_go_ok(void) { return !__atomic_load_n(&vkgen_forked, __ATOMIC_RELAXED); }

#endif
