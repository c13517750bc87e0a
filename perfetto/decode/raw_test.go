package decode_test

import (
	"bytes"
	"io"
	"reflect"
	"sync"
	"testing"

	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

var (
	cat     = perfetto.NewCategory("RawTest")
	instant = perfetto.NewEventName("thing")
	aSize   = perfetto.NewAnnotationName("size")
	aKind   = perfetto.NewAnnotationName("kind")
	usage   = perfetto.NewCounterTrack("raw.usage", perfetto.UnitSizeBytes)
)

// rawTrace has instants, counters, slices on tracks of their own and
// object names from several goroutines, so from several sequences.
func rawTrace(t *testing.T) []byte {
	var buf bytes.Buffer
	s, err := perfetto.StartSession("raw", perfetto.WriterOutput(&buf), perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				track := uint64(g)<<32 | uint64(i) + 1
				perfetto.Instant(cat, instant, perfetto.Uint(aSize, uint64(i)), perfetto.String(aKind, "buffer"))
				perfetto.Slices(cat, perfetto.Slice{Op: perfetto.SliceBegin, Track: track, TrackName: "buffer", NameHandle: uint64(i)})
				perfetto.Counter(usage, int64(i))
				perfetto.VkObjectName(1, 9, uint64(i), "name")
				perfetto.Slices(cat, perfetto.Slice{Op: perfetto.SliceEnd, Track: track})
			}
		})
	}
	wg.Wait()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Packets read with NextRaw and decoded by a Decoder per sequence are the
// packets Next decodes, without their track descriptors (which NextRaw
// returns); a Decoder told Only some types keeps the others' type and track.
func TestNextRawDecoderMatchesNext(t *testing.T) {
	data := rawTrace(t)
	want, err := decode.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, only := range []bool{false, true} {
		r := decode.NewReader(bytes.NewReader(data), "raw")
		decoders := map[uint32]*decode.Decoder{}
		var raw decode.Raw
		slices, tracks := 0, 0
		for i := 0; ; i++ {
			body, tr, err := r.NextRaw(&raw)
			if err == io.EOF {
				if i != len(want.Packets) {
					t.Fatalf("only %v: %d packets, want %d", only, i, len(want.Packets))
				}
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			w := want.Packets[i]
			if tr != nil {
				tracks++
				if !reflect.DeepEqual(*tr, *w.Track) {
					t.Fatalf("packet %d: track %+v, want %+v", i, *tr, *w.Track)
				}
			}
			d := decoders[raw.SeqID()]
			if d == nil {
				d = decode.NewDecoder("raw")
				if only {
					d.Only(decode.TypeInstant, decode.TypeCounter)
				}
				decoders[raw.SeqID()] = d
			}
			p, err := d.Decode(&raw, body)
			if err != nil {
				t.Fatal(err)
			}
			got := p.Clone()
			w.Track = nil
			normalize(&got)
			normalize(&w)
			if w.Event != nil && only && (w.Event.Type == decode.TypeSliceBegin || w.Event.Type == decode.TypeSliceEnd) {
				slices++
				if got.Event.Type != w.Event.Type || got.Event.TrackUUID != w.Event.TrackUUID {
					t.Fatalf("packet %d: skipped slice type %d track %d, want %d %d", i, got.Event.Type, got.Event.TrackUUID, w.Event.Type, w.Event.TrackUUID)
				}
				continue
			}
			if raw.Offset < 0 || raw.Index != i || !reflect.DeepEqual(got, w) {
				t.Fatalf("only %v, packet %d at %d: %+v %+v, want %+v %+v", only, i, raw.Offset, got, got.Event, w, w.Event)
			}
		}
		if tracks == 0 || (only && slices != 2*4*200) {
			t.Errorf("only %v: %d tracks, %d slices", only, tracks, slices)
		}
	}
}

// normalize makes empty lists nil: decoders reuse theirs.
func normalize(p *decode.Packet) {
	if p.Event != nil {
		if len(p.Event.Categories) == 0 {
			p.Event.Categories = nil
		}
		if len(p.Event.Annotations) == 0 {
			p.Event.Annotations = nil
		}
		if len(p.Event.ExtraCounters) == 0 {
			p.Event.ExtraCounters = nil
		}
	}
}
