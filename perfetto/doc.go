// Package perfetto is a small, pure-Go Perfetto trace writer for the vkgen
// layers: TrackEvent instant events with typed debug annotations, counter
// tracks, raw VulkanApiEvent.VkDebugUtilsObjectName packets, and tracing
// sessions that replay layer state when they start.
//
// It owns the wire encoding, sessions and their outputs. It must not import
// Vulkan, cgo or layer code: layers pass handles and object types as plain
// integers, and which file a layer traces to is layer configuration
// (package layer/tracing). Package perfetto/decode reads
// the traces back.
//
// # Encoding
//
// Packets are encoded with google.golang.org/protobuf/encoding/protowire,
// appended straight into reusable per-sequence byte buffers: no generated
// message types (we may not commit Perfetto's .proto files, and generated
// code would allocate a message per event), no reflection, no allocation on
// the hot path. Field numbers come from perfetto_trace.proto. A trace file is
// a plain concatenation of Trace.packet fields.
//
// Timestamps are CLOCK_BOOTTIME. Track events, counters and descriptors
// write them as deltas on a sequence-scoped incremental clock (id 64, the
// sequence's default clock), started in each batch by a ClockSnapshot
// packet, as the SDK does (stamp.go); the sequence header, a resync's
// packets, replayed events whose time is before the clock's and the raw
// VkDebugUtilsObjectName packets carry absolute times with an explicit
// timestamp_clock_id = 6 (reference-behaviour 7.3.6). The first packet of
// each sequence sets SEQ_INCREMENTAL_STATE_CLEARED and
// first_packet_on_sequence, describes the process track and makes it the
// default track (trace_packet_defaults.track_event_defaults.track_uuid), so
// process-track events need no track_uuid. Events using interned categories,
// event names and annotation names set SEQ_NEEDS_INCREMENTAL_STATE and carry
// the InternedData entries their sequence has not seen yet. Names are
// registered once (NewCategory, NewEventName, NewAnnotationName,
// NewCounterTrack); the handle is the iid, so interning costs a slice index.
// Counter tracks are process-scoped, static-named, with the uuid the SDK
// derives for CounterTrack(name); NewCounterTrackIn puts one in a category.
// A file holds no other producer's tracks, so a file session
// (Options.SmallTrackUUIDs) writes counter tracks and slice lanes with small
// uuids the process numbers itself, 1-3 bytes where those unique among
// producers take 10.
// InstantSlices carries counter values in its event's packet
// (extra_counter_values: a value that changes with an event costs a few
// bytes, not a packet), zeros last and at most 8, as trace_processor reads
// them; their tracks come from the sequence's
// track_event_defaults.extra_counter_track_uuids when they are a prefix of
// them (extradefaults.go).
// Categories lists every registered category with the description given to
// NewCategory (the system backend advertises them). Strings are sanitised: invalid UTF-8 becomes
// U+FFFD and anything longer than MaxStringLen bytes is cut and ends with
// TruncationMarker.
//
// # Sessions and replay
//
// A Session is one packet stream with its own interning state and its own
// Output (a file here; the Output interface leaves room for a system-service
// backend). Sessions start and stop at any time from any goroutine, any
// number of them, in sequence or overlapping. Instant, InstantOn, Counter and
// VkObjectName fan out to every running session; with none running they cost
// one atomic load (Enabled reports the same). Each session has several
// sequences, each a mutex-protected buffer; an emitter takes the one
// emitters last settled on, or an uncontended one when that is busy, so a
// lone thread keeps to one buffer and many threads rarely contend; a full
// buffer is passed over, so a burst fills them all before events drop.
//
// Per-session Options: CategoryFilter decides, once per category, which
// categories the session records; instant events and categorised counters
// of the others are never encoded for it (VkObjectName packets, counters
// without a category and the categories of NewAlwaysCategory always are).
// OmitSequenceID leaves
// trusted_packet_sequence_id out of every packet, for outputs whose
// transport assigns it. Session.ClearIncrementalState makes each sequence's
// next batch start with a SEQ_INCREMENTAL_STATE_CLEARED packet re-emitting
// the defaults, every name the sequence interned and every counter, thread
// and group track it described (a slice's lane is described in every batch
// that begins a slice on it; ForgetGroups drops the groups that ended, a
// destroyed device's, from every sequence).
//
// Layers register replay hooks with RegisterReplay. A starting session joins
// the live fan-out first, holding live events back, runs every hook into its
// own replay sequence, writes the replay, then releases live events: the
// output has the complete replay before any live event, in the file and in
// time (a live event stamped before the replay's time, recorded before the
// session started, goes in a nanosecond after it), and an update racing
// with the start is never lost (at worst it appears both in the replay and
// as a live event after it). Hooks registered while sessions run are replayed
// into them immediately.
//
// # Flush and loss guarantees
//
// Emitted events go to memory and reach the Output (write(2) for a file):
//   - at most FlushInterval (default 100 ms) later, from a background flusher
//     per session, or sooner when a buffer is a quarter full;
//   - on Session.Flush / FlushAll (layers: vkDestroyInstance when the trace
//     goes on) and Session.Stop / StopAll (process exit, or vkDestroyInstance
//     when the trace ends there).
//
// So a process killed by SIGKILL, or by SIGTERM/SIGINT with their default
// action, loses at most the events of the last flush interval; a write that
// completed is in the file even if the process dies (it is not fsync'ed:
// power loss is not covered). The package installs no signal handlers: in a
// c-shared layer, os/signal would take SIGTERM/SIGINT away from the host's own
// handler, and re-raising it to chain would run the host's handler on a
// goroutine stack or race with the re-registration. Instead, file sessions
// publish their exit state (ExitState, exitstate.go): plain integers from
// which a helper that outlives the process (layer/tracing starts one) can
// append whatever was still buffered, so with that helper nothing is lost.
//
// Each sequence buffer holds at most Options.BufferBytes (default 1 MiB).
// An emitter that finds its buffer full hands it to the session's flusher
// goroutine as that sequence's next batch (the buffers swap; nothing is
// written on the emitting thread) unless the sequence is being written or
// already has a batch waiting; only then is the event dropped and counted,
// so an application thread never waits for the output. At the
// next flush the session writes the running total of dropped events on the
// counter track DroppedEventsName (UNIT_COUNT), on a packet with
// previous_packet_dropped set, which trace_processor shows as an ordinary
// counter track. Because trace_processor then treats the sequence's
// incremental state as lost and would skip the events after it, the report
// is followed by the same state re-emission as ClearIncrementalState. An
// Output that loses packets (the system backend's full shared memory)
// returns LostPackets: they are counted and reported the same way. Stop
// ends a session that numbers its own sequences (a file session) with the
// TraceStats packet a tracing service writes, listing those sequences, so
// trace_processor also counts the loss reports in its stats table
// (traced_buf_sequence_packet_loss, severity data_loss); traced writes its
// own for a system session. A write error (disk full) stops only that
// session: it leaves the fan-out, its file is truncated back to the last
// complete packet, the error is logged and Stop returns it.
//
// # File sessions
//
// StartFileSession writes a new trace file: an existing file is refused
// (never overwritten or appended to), as is an unwritable path, and the file
// is created owner-only (mode 0600 whatever the umask), since a trace holds
// the command line and every object name of the traced application. The
// file is written once and not read back, so its pages leave the page cache
// once written back, 16 MiB behind the end (dropbehind.go): a long trace
// costs the process a copy into memory it reuses, not a new page per 4 KiB,
// and does not fill the machine's memory. With Options.Compress each batch
// is written as one deflated compressed_packets packet, as traced writes
// them (compress.go): about a tenth of the bytes, for about 2 ns of the
// flusher's CPU per plain byte.
package perfetto
