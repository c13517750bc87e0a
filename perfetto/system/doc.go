// Package system is the Perfetto system-tracing backend of the vkgen layers,
// in pure Go: it makes the process a producer of the system tracing service
// (traced, or tracebox), so `perfetto` sessions started before, during or
// after the application record the layers' events, mixed with any other
// data sources, as the reference layers do through the Perfetto SDK's
// system backend. A traced data-source instance is one more perfetto
// Session (package perfetto) with the same state replay at its start.
//
// It owns the producer side of Perfetto's stable producer ABI: the socket,
// IPC frames and ProducerPort RPCs (messages encoded by hand with protowire:
// no generated code, no committed .proto files), the shared memory buffer
// (subpackage shmabi), the track_event data source and its TrackEventConfig
// category filter. It must not import Vulkan or layer code, and it never
// touches file sessions: those belong to package perfetto.
//
// # Protocol
//
// The socket is $PERFETTO_PRODUCER_SOCK_NAME (the first of a comma list),
// else /run/perfetto/traced-producer.sock when /run/perfetto/ exists, else
// /tmp/perfetto-producer, as the SDK chooses on Linux. Each frame is a 4-byte
// little-endian length and an IPCFrame. The producer binds "ProducerPort",
// calls InitializeConnection (optionally offering its own sealed memfd
// buffer over SCM_RIGHTS; otherwise the service's buffer arrives, also over
// SCM_RIGHTS, with the SetupTracing command), opens the GetAsyncCommand
// stream, and only then registers the "track_event" data source (traced
// sets up and starts the instances of sessions already running as soon as
// the data source registers, and drops commands sent before the stream
// exists) with a TrackEventDescriptor of the layers' categories
// (AllCategories: DefaultCategories plus every category registered with
// package perfetto) and will_notify_on_start/stop and
// handles_incremental_state_clear set; its reply is read with the
// commands. Commands:
//   - SetupDataSource / StartDataSource: a perfetto session starts with an
//     output into the buffer, OmitSequenceID set, and the TrackEventConfig
//     as its CategoryFilter (so events and category counters of disabled
//     categories are never encoded for it; raw VkDebugUtilsObjectName
//     packets always pass); its replay is written and committed before
//     NotifyDataSourceStarted, so the service counts the instance as started
//     only once the current state is in its buffer.
//   - StopDataSource: the session stops (final flush), then
//     NotifyDataSourceStopped.
//   - Flush: the sessions flush, then CommitData carries flush_request_id.
//   - ClearIncrementalState: Session.ClearIncrementalState: the next batch
//     of every sequence of the instance starts with a
//     SEQ_INCREMENTAL_STATE_CLEARED packet re-emitting the packet defaults,
//     every interned name the sequence uses and its track descriptors, so
//     the trace decodes even after the ring buffer dropped the originals.
//
// Several instances (several tracing sessions, or several data sources of
// one) run at once, each with its own session, category filter, writers and
// target buffer.
//
// Sync (the ProducerPort RPC) is a round trip: when its reply arrives,
// every command the service sent before it has been queued, and the
// instances are flushed after those ran. AtExit (the layers' exit(3)
// handler) uses it, bounded by ExitTimeout, so a program ending before its
// session loses nothing.
//
// # Startup tracing
//
// With Config.StartupWindow and StartupBytes (the layers: 10 s unless the
// perfetto_startup_ms setting says otherwise; 4 MiB) and a service socket present at
// Start, a perfetto session records into memory until the first instance
// starts or the window closes. Its packets are written into every instance
// starting within the window, on writers of their own, after the
// instance's session started (events of that instant may appear twice,
// none is lost); an instance whose category filter rejects a registered
// category gets none of them.
//
// # Shared memory
//
// Each session sequence gets its own SMB writer id (registered with
// RegisterTraceWriter, so traced gives it its own trusted sequence). Packets
// are copied into chunks of pages partitioned in four, each packet behind a
// 4-byte size; a packet larger than the room left is fragmented across
// chunks with the first/last-fragment flags. The chunks a packet needs are
// all acquired before it is written, so a full buffer drops whole packets.
// A chunk's header (its packet count and flags) is written once, when the
// chunk is released, not per packet: until then it counts no packet, so
// traced's scraping of chunks being written (after a flush) skips it, and
// the Write in progress commits it. Chunk state changes are
// compare-and-swaps on the page header: nothing is
// ever locked across processes. When InitializeConnection's reply asks for
// shared-memory emulation (producers reaching traced through traced_relay
// over TCP or vsock), the same chunks live in private memory and each
// committed chunk travels, whole, inside CommitData. Chunks are completed and committed
// (CommitData chunks_to_move) at the end of every batch the session hands
// over (at most its flush interval, 100 ms, after an event). Patches
// (chunks_to_patch) are never needed: package perfetto encodes each packet
// completely before it reaches the buffer, so no size is ever unknown when
// a chunk is released. Packets are copied as they are: the session encodes
// them without trusted_packet_sequence_id (only the service may set it;
// traced discards packets carrying it), and nothing is parsed beyond the
// Trace.packet framing.
//
// When the buffer is full, the writer of the batch (the session's flusher,
// the control goroutine, or a thread calling Flush or Stop, such as the
// layers' FlushAll at exit; never a thread emitting an event) commits what
// it wrote and waits for traced to free chunks, up to 100 ms for each chunk
// (a service that keeps reading, however slowly, is waited for as long as
// it takes; one that stopped costs one wait), so a burst that traced drains
// a little later is not lost; the application's emitting threads meanwhile
// go on filling the session's buffers. When no chunk came in time the packet is dropped with the rest
// of its batch (later packets may use names it defined), and Write returns
// perfetto.LostPackets: the session adds them to its running total of lost
// events, written on perfetto.DroppedEventsName with
// previous_packet_dropped set at the start of that sequence's next batch,
// followed by the re-emission of its incremental state. After such a
// timeout, writes do not wait again until a chunk is free at once, so a
// stuck service costs one wait.
//
// # Failure handling
//
// Everything that touches the socket runs on background goroutines; the
// copies into shared memory, and the bounded queue they append commits to,
// are the session's flusher's work (or that of an explicit Flush or Stop):
// emitting threads only hand it full buffers. Socket writes and the handshake have timeouts; a service
// that stops reading (4096 queued frames), sends a malformed or oversized
// frame, floods commands, passes an unsealed memfd (whose shrinking would
// fault the application) or disconnects ends the connection: its instances'
// sessions stop, the buffer is unmapped, and the producer reconnects with
// jittered exponential backoff (250 ms to 8 s), which also covers a service
// started after the application. File sessions are separate sessions and
// are never affected.
//
// # Configuration
//
// StartShared starts the process-wide producer; layer/tracing calls it
// unless the layers' perfetto_system setting is off
// (VK_VKGEN_PERFETTO_SYSTEM=0). It costs nothing on the application's
// threads while no tracing session runs. The package reads no layer
// configuration itself.
package system
