package perfetto_test

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// layerState stands in for a layer's state (the name store and memory
// counters): it emits live under its own lock, as the layers do, and replays
// everything from a RegisterReplay hook.
type layerState struct {
	mu       sync.Mutex
	names    map[uint64]string
	counters map[perfetto.CounterTrack]int64
}

const stateDevice = 0xD0

func (s *layerState) setName(h uint64, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.names[h] = name
	perfetto.VkObjectName(stateDevice, 9, h, name)
}

func (s *layerState) setCounter(c perfetto.CounterTrack, v int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counters[c] = v
	perfetto.Counter(c, v)
}

func (s *layerState) replay(e *perfetto.Emitter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for h, n := range s.names {
		e.VkObjectName(stateDevice, 9, h, n)
	}
	for c, v := range s.counters {
		e.Counter(c, v)
	}
}

func (s *layerState) snapshot() (map[uint64]string, map[string]int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := map[uint64]string{}
	for k, v := range s.names {
		n[k] = v
	}
	c := map[string]int64{}
	for k, v := range s.counters {
		c[k.Name()] = v
	}
	return n, c
}

// TestReplayBeforeLive: 10,000 names and 1,000 counter updates exist before
// the sessions start; live updates continue while two overlapping sessions
// start. Each file must hold the complete state in its replay before any
// live event, and replaying the file in order must give the final state.
func TestReplayBeforeLive(t *testing.T) {
	st := &layerState{names: map[uint64]string{}, counters: map[perfetto.CounterTrack]int64{}}
	var tracks []perfetto.CounterTrack
	for i := range 30 {
		tracks = append(tracks, perfetto.NewCounterTrack(fmt.Sprintf("test.replay.counter.%02d", i), perfetto.UnitSizeBytes))
	}
	for i := range 10000 {
		st.setName(uint64(0x1000+i), fmt.Sprintf("object-%d", i))
	}
	for i := range 1000 {
		st.setCounter(tracks[i%len(tracks)], int64(i)*256)
	}
	unregister := perfetto.RegisterReplay(st.replay)
	defer unregister()

	// Live traffic during the starts: renames and counter changes.
	stop := make(chan struct{})
	var live sync.WaitGroup
	var liveOps atomic.Int64
	live.Add(1)
	go func() {
		defer live.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			st.setName(uint64(0x1000+i%10000), fmt.Sprintf("renamed-%d", i))
			st.setCounter(tracks[i%len(tracks)], int64(i))
			liveOps.Add(1)
		}
	}()

	type started struct {
		s     *perfetto.Session
		path  string
		names map[uint64]string
		ctrs  map[string]int64
	}
	var sessions []started
	for i := range 2 {
		before, beforeCtr := st.snapshot()
		s, path := startFile(t, fmt.Sprintf("replay%d.pftrace", i), perfetto.Options{})
		sessions = append(sessions, started{s, path, before, beforeCtr})
		for liveOps.Load() < int64(500*(i+1)) { // let live events flow into the first before the second starts
		}
	}
	close(stop)
	live.Wait()
	finalNames, finalCtrs := st.snapshot()
	for _, ss := range sessions {
		if err := ss.s.Stop(); err != nil {
			t.Fatal(err)
		}
	}

	for i, ss := range sessions {
		tr := decodeBoth(t, ss.path)
		counterName := map[uint64]string{}
		for _, tk := range tr.Tracks {
			if tk.Counter != nil {
				counterName[tk.UUID] = tk.Name
			}
		}
		// The replay is sequence 1; every packet on it precedes every live event.
		lastReplay, firstLive := -1, len(tr.Packets)
		replayNames := map[uint64]bool{}
		replayCtrs := map[string]bool{}
		names := map[uint64]string{}
		ctrs := map[string]int64{}
		for _, p := range tr.Packets {
			if p.SeqID == 1 {
				lastReplay = p.Index
			} else if (p.ObjectName != nil || p.Event != nil) && p.Index < firstLive {
				firstLive = p.Index
			}
		}
		// Apply packets in timestamp order, as trace_processor does (live
		// events are spread over several sequences, so file order is not
		// emission order).
		sorted := append([]decode.Packet(nil), tr.Packets...)
		sort.SliceStable(sorted, func(a, b int) bool { return sorted[a].Timestamp < sorted[b].Timestamp })
		for _, p := range sorted {
			if o := p.ObjectName; o != nil {
				names[o.Object] = o.Name
				if p.SeqID == 1 {
					replayNames[o.Object] = true
				}
			}
			if e := p.Event; e != nil && e.Type == decode.TypeCounter && counterName[e.TrackUUID] != perfetto.DroppedEventsName {
				ctrs[counterName[e.TrackUUID]] = e.CounterValue
				if p.SeqID == 1 {
					replayCtrs[counterName[e.TrackUUID]] = true
				}
			}
		}
		if lastReplay < 0 || firstLive <= lastReplay {
			t.Errorf("session %d: live event at packet %d before the end of the replay (%d)", i, firstLive, lastReplay)
		}
		if len(replayNames) != 10000 || len(replayCtrs) != 30 {
			t.Errorf("session %d: replay has %d names and %d counters, want 10000 and 30", i, len(replayNames), len(replayCtrs))
		}
		for h := range ss.names {
			if !replayNames[h] {
				t.Fatalf("session %d: name of %#x existing at start missing from replay", i, h)
			}
		}
		if ss.s.Dropped() != 0 {
			t.Errorf("session %d dropped %d events", i, ss.s.Dropped())
		}
		if fmt.Sprint(names) != fmt.Sprint(finalNames) || fmt.Sprint(ctrs) != fmt.Sprint(finalCtrs) {
			t.Errorf("session %d: replaying the file does not give the final state (%d/%d names, %d/%d counters)",
				i, len(names), len(finalNames), len(ctrs), len(finalCtrs))
		}
	}
	if liveOps.Load() < 1000 {
		t.Errorf("only %d live operations overlapped the starts", liveOps.Load())
	}
}

// TestLateReplayHook: a hook registered while a session runs is replayed into
// it at once.
func TestLateReplayHook(t *testing.T) {
	s, path := startFile(t, "late.pftrace", perfetto.Options{})
	unregister := perfetto.RegisterReplay(func(e *perfetto.Emitter) { e.VkObjectName(1, 9, 42, "late") })
	unregister()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	on := decodeBoth(t, path).ObjectNames()
	if len(on) != 1 || on[0].ObjectName.Name != "late" || on[0].SeqID != 1 {
		t.Fatalf("late hook replay: %+v", on)
	}
}

// An event stamped before a session started but emitted after its replay
// (a layer's backlog, recorded while another session ran) goes into that
// session after the replay in time, not only in the file: a reader sorting
// by time must not see it before the state it changed. Later events keep
// their order; the session that was already running keeps the stamps.
func TestStampedEventsFollowTheReplay(t *testing.T) {
	cat := perfetto.NewCategory("vkgen.test.replayorder")
	live, replayed := perfetto.NewEventName("ReplayOrderLive"), perfetto.NewEventName("ReplayOrderReplayed")
	seq := perfetto.NewAnnotationName("seq")
	unregister := perfetto.RegisterReplay(func(e *perfetto.Emitter) { e.Instant(cat, replayed) })
	defer unregister()
	a, pathA := startFile(t, "running", perfetto.Options{})
	t0 := perfetto.Now()
	b, pathB := startFile(t, "started", perfetto.Options{})
	for i := range uint64(3) {
		perfetto.Stamp(t0+i).Instant(cat, live, perfetto.Uint(seq, i))
	}
	perfetto.Instant(cat, live, perfetto.Uint(seq, 3)) // now
	for _, s := range []*perfetto.Session{a, b} {
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	times := func(path string) (replay uint64, events []uint64) {
		for _, p := range decodeBoth(t, path).Packets {
			switch {
			case p.Event == nil:
			case p.Event.Name == "ReplayOrderReplayed":
				replay = max(replay, p.Timestamp)
			case p.Event.Name == "ReplayOrderLive":
				i, _ := p.Event.Arg("seq")
				for uint64(len(events)) <= i.Uint {
					events = append(events, 0)
				}
				events[i.Uint] = p.Timestamp
			}
		}
		return replay, events
	}
	if _, got := times(pathA); len(got) != 4 || got[0] != t0 || got[1] != t0+1 || got[2] != t0+2 {
		t.Errorf("the running session: events at %v, want %d, %d, %d and later", got, t0, t0+1, t0+2)
	}
	replay, got := times(pathB)
	if len(got) != 4 || replay == 0 {
		t.Fatalf("the started session: replay at %d, events at %v", replay, got)
	}
	for i, ts := range got {
		if ts <= replay || i > 0 && ts <= got[i-1] {
			t.Errorf("the started session: event %d at %d, replay at %d, events %v: want each after the replay and the one before", i, ts, replay, got)
		}
	}
}
