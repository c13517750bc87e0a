package objectnames

import (
	"bytes"
	"cmp"
	"context"
	"math/rand/v2"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gen "github.com/vkgen/vkgen/generated"
)

// seqRecord is a record stamped, inside the emitter and therefore under the
// store's shard lock, with a process-wide emission sequence number.
type seqRecord struct {
	Record
	seq uint64
}

type seqRecorder struct {
	seq  *atomic.Uint64
	mu   sync.Mutex
	recs []seqRecord
}

func (r *seqRecorder) EmitName(rec Record) {
	r.mu.Lock()
	r.recs = append(r.recs, seqRecord{rec, r.seq.Add(1)})
	r.mu.Unlock()
}

type replayLog struct {
	startSeq uint64 // emission sequence just before EmitAll began
	recs     []seqRecord
}

// waitOrDump waits for wg, failing with every goroutine's stack if it takes
// longer than the test may run: a deadlock detector, not a timing assertion.
func waitOrDump(t *testing.T, wg *sync.WaitGroup) {
	t.Helper()
	limit := 2 * time.Minute
	if dl, ok := t.Deadline(); ok {
		limit = time.Until(dl) - 10*time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		var buf bytes.Buffer
		_ = pprof.Lookup("goroutine").WriteTo(&buf, 2)
		t.Fatalf("deadlock: goroutines still running after %v\n%s", limit, buf.String())
	}
}

// TestConcurrentRenamesAndReplaysKeepOrder: 8 goroutines rename (and
// sometimes remove) names of 10,000 objects while 4 goroutines replay the
// store continuously. Every emission carries a global sequence number taken
// inside the emitter. Checked from the recorded streams:
//   - live: each object's last live record is its stored state (name, or a
//     removal / nothing when it has no name);
//   - every replayed record equals the latest live record of that object
//     emitted before it, so no replay ever delivers an older name after a
//     newer one;
//   - per session (replay records merged, in sequence order, with the live
//     records emitted after the replay began, which a session started at that
//     moment receives): each object's final record is its stored state;
//   - every replay is in replay order.
func TestConcurrentRenamesAndReplaysKeepOrder(t *testing.T) {
	const (
		objects    = 10000
		writers    = 8
		replayers  = 4
		maxReplays = 8 // per replayer; bounds the memory of the recorded streams
	)
	opsPerWriter := 25000
	if testing.Short() {
		opsPerWriter = 5000
	}
	var seq atomic.Uint64
	live := &seqRecorder{seq: &seq}
	s := New(live)

	// object i: a buffer or image on device 1 or 2, handle i+1 (handles of
	// different objects collide across devices and types on purpose).
	object := func(i int) (uint64, gen.ObjectType, uint64) {
		typ := gen.ObjectTypeBuffer
		if i%3 == 0 {
			typ = gen.ObjectTypeImage
		}
		return uint64(1 + i%2), typ, uint64(i/2 + 1)
	}

	var wg sync.WaitGroup
	var writing atomic.Int32
	writing.Store(writers)
	firstReplay := make(chan struct{})
	var firstOnce sync.Once
	replays := make([][]replayLog, replayers)
	for r := range replayers {
		wg.Go(func() {
			for len(replays[r]) < maxReplays && (len(replays[r]) == 0 || writing.Load() > 0) {
				rec := &seqRecorder{seq: &seq}
				start := seq.Load()
				firstOnce.Do(func() { close(firstReplay) })
				s.EmitAll(rec)
				replays[r] = append(replays[r], replayLog{startSeq: start, recs: rec.recs})
			}
		})
	}
	for w := range writers {
		wg.Go(func() {
			defer writing.Add(-1)
			<-firstReplay
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			var name []byte
			for i := range opsPerWriter {
				dev, typ, h := object(rng.IntN(objects))
				name = name[:0]
				if rng.IntN(10) != 0 { // one op in ten removes
					name = strconv.AppendInt(append(name, 'w', byte('0'+w), '-'), int64(i), 10)
				}
				if err := s.SetNameBytes(dev, typ, h, name); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	waitOrDump(t, &wg)

	type okey struct {
		dev uint64
		typ gen.ObjectType
		h   uint64
	}
	liveOf := map[okey][]seqRecord{}
	for _, r := range live.recs { // appended under the recorder lock: seq ascending
		k := okey{r.Device, r.Type, r.Handle}
		liveOf[k] = append(liveOf[k], r)
	}
	stored := func(k okey) (string, bool) { return s.Get(k.dev, k.typ, k.h) }
	same := func(r *seqRecord, name string, ok bool) bool {
		if r == nil || r.Removed {
			return !ok
		}
		return ok && r.Name == name
	}
	for i := range objects {
		dev, typ, h := object(i)
		k := okey{dev, typ, h}
		name, ok := stored(k)
		var last *seqRecord
		if l := liveOf[k]; len(l) > 0 {
			last = &l[len(l)-1]
		}
		if !same(last, name, ok) {
			t.Fatalf("object %v: last live record %+v, stored %q (%v)", k, last, name, ok)
		}
	}

	sessions, interleaved := 0, 0
	for _, logs := range replays {
		for _, rl := range logs {
			sessions++
			final := map[okey]*seqRecord{}
			for i := range rl.recs {
				r := &rl.recs[i]
				k := okey{r.Device, r.Type, r.Handle}
				if i > 0 {
					p := rl.recs[i-1]
					if compareKeys(makeKey(p.Device, p.Type, p.Handle), makeKey(r.Device, r.Type, r.Handle)) >= 0 {
						t.Fatalf("replay out of order: %+v before %+v", p, r)
					}
				}
				if r.Removed {
					t.Fatalf("replay emitted a removal: %+v", r)
				}
				l := liveOf[k]
				j, _ := slices.BinarySearchFunc(l, r.seq, func(x seqRecord, s uint64) int { return cmp.Compare(x.seq, s) })
				if j == 0 || l[j-1].Removed || l[j-1].Name != r.Name {
					t.Fatalf("replay record %+v does not match the store at its emission (previous live record index %d of %d)", r, j, len(l))
				}
				if j < len(l) && l[j].seq < rl.recs[len(rl.recs)-1].seq {
					interleaved++
				}
				final[k] = r
			}
			for k, l := range liveOf {
				for i := range l {
					if l[i].seq > rl.startSeq && (final[k] == nil || l[i].seq > final[k].seq) {
						final[k] = &l[i]
					}
				}
			}
			for i := range objects {
				dev, typ, h := object(i)
				k := okey{dev, typ, h}
				name, ok := stored(k)
				if !same(final[k], name, ok) {
					t.Fatalf("session starting at seq %d: object %v ends with %+v, stored %q (%v)", rl.startSeq, k, final[k], name, ok)
				}
			}
		}
	}
	t.Logf("%d live records, %d replay sessions, %d replayed records had a rename of their object during the same replay",
		len(live.recs), sessions, interleaved)
}
