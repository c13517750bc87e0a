package perfetto_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/perfetto"
	"github.com/vkgen/vkgen/perfetto/decode"
)

// Events carrying call stacks: trace_processor links each event's slice to
// its callsite and reads the frames' names, mappings and build ids; a
// stack shared by two events and frames shared by two stacks are interned
// once.
func TestCallstacks(t *testing.T) {
	if m := perfettotools.Missing(); m != "" {
		t.Skip(m)
	}
	cat := perfetto.NewCategory("vkgen.test.callstacks")
	ev := perfetto.NewEventName("CallstackTestInstant")
	arg := perfetto.NewAnnotationName("n")
	prog := perfetto.NewMapping(perfetto.MappingInfo{BuildID: []byte{0xde, 0xad, 0xbe, 0xef}, Path: "/opt/app/prog",
		Start: 0x400000, End: 0x500000, LoadBias: 0x400000})
	lib := perfetto.NewMapping(perfetto.MappingInfo{Path: "/usr/lib/libvulkan.so.1", Start: 0x7f0000000000, End: 0x7f0000100000})
	main := perfetto.Frame{Mapping: prog, RelPC: 0x100, Function: "main"}
	load := perfetto.Frame{Mapping: prog, RelPC: 0x200, Function: "TextureLoader::load"}
	a := perfetto.NewCallstack([]perfetto.Frame{main, load, {Mapping: lib, RelPC: 0x42}})
	b := perfetto.NewCallstack([]perfetto.Frame{main, {Mapping: prog, RelPC: 0x300, Function: "make_buffer"}})
	if a == 0 || b == 0 || a == b || perfetto.NewCallstack([]perfetto.Frame{main, load, {Mapping: lib, RelPC: 0x42}}) != a {
		t.Fatalf("callstacks a=%d b=%d: want distinct, deduplicated", a, b)
	}
	s, path := startFile(t, "callstacks", perfetto.Options{Sequences: 1})
	perfetto.Instant(cat, ev, perfetto.Uint(arg, 1), perfetto.CallstackArg(a))
	perfetto.Instant(cat, ev, perfetto.Uint(arg, 2), perfetto.CallstackArg(b))
	perfetto.Instant(cat, ev, perfetto.Uint(arg, 3), perfetto.CallstackArg(a))
	perfetto.Instant(cat, ev, perfetto.Uint(arg, 4), perfetto.CallstackArg(0))
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tr := decodeBoth(t, path)
	// perfetto/decode resolves the same frames.
	var stacks []string
	for _, p := range tr.Packets {
		if p.Event == nil || p.Event.Name != "CallstackTestInstant" {
			continue
		}
		var fs []string
		for _, f := range p.Event.Callstack {
			fs = append(fs, fmt.Sprintf("%s@%s+%#x/%x/%#x", f.Function, f.Mapping.Path, f.RelPC, f.Mapping.BuildID, f.Mapping.LoadBias))
		}
		stacks = append(stacks, strings.Join(fs, " "))
	}
	a1 := "main@/opt/app/prog+0x100/deadbeef/0x400000 TextureLoader::load@/opt/app/prog+0x200/deadbeef/0x400000 @/usr/lib/libvulkan.so.1+0x42//0x0"
	b1 := "main@/opt/app/prog+0x100/deadbeef/0x400000 make_buffer@/opt/app/prog+0x300/deadbeef/0x400000"
	if want := []string{a1, b1, a1, ""}; !slices.Equal(stacks, want) {
		t.Errorf("decoded stacks:\n%q\nwant\n%q", stacks, want)
	}
	res := perfettotools.Query(t, path, `
		select s.ts, f.name as fn, c.depth, m.name as mapping, m.build_id, f.rel_pc
		from slice s
		join __intrinsic_track_event_callstacks e on e.slice_id = s.id
		join experimental_ancestor_stack_profile_callsite(e.callsite_id) c
		join stack_profile_frame f on f.id = c.frame_id
		join stack_profile_mapping m on m.id = f.mapping
		where s.name = 'CallstackTestInstant'
		union all
		select s.ts, f.name, cs.depth, m.name, m.build_id, f.rel_pc
		from slice s
		join __intrinsic_track_event_callstacks e on e.slice_id = s.id
		join stack_profile_callsite cs on cs.id = e.callsite_id
		join stack_profile_frame f on f.id = cs.frame_id
		join stack_profile_mapping m on m.id = f.mapping
		where s.name = 'CallstackTestInstant'
		order by 1, 3`)
	want := []string{
		"main,0,/opt/app/prog,deadbeef,256", "TextureLoader::load,1,/opt/app/prog,deadbeef,512", "[NULL],2,/usr/lib/libvulkan.so.1,,66",
		"main,0,/opt/app/prog,deadbeef,256", "make_buffer,1,/opt/app/prog,deadbeef,768",
		"main,0,/opt/app/prog,deadbeef,256", "TextureLoader::load,1,/opt/app/prog,deadbeef,512", "[NULL],2,/usr/lib/libvulkan.so.1,,66",
	}
	var got []string
	for _, r := range res.Rows {
		got = append(got, r[1]+","+r[2]+","+r[3]+","+r[4]+","+r[5])
	}
	if len(got) != len(want) {
		t.Fatalf("frames:\n%v\nwant\n%v", res, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %s, want %s", i, got[i], want[i])
		}
	}
}

// After ClearIncrementalState the call stacks a sequence had interned are
// interned again: the part after the clear resolves its stacks on its own.
func TestCallstacksAfterClear(t *testing.T) {
	cat := perfetto.NewCategory("vkgen.test.callstacks")
	ev := perfetto.NewEventName("CallstackClearInstant")
	m := perfetto.NewMapping(perfetto.MappingInfo{BuildID: []byte{1, 2}, Path: "/bin/clear", Start: 0x1000, End: 0x2000})
	cs := perfetto.NewCallstack([]perfetto.Frame{{Mapping: m, RelPC: 0x10, Function: "outer"}, {Mapping: m, RelPC: 0x20, Function: "inner"}})
	var out bytes.Buffer
	s, err := perfetto.StartSession("clear", perfetto.WriterOutput(&out), perfetto.Options{Sequences: 1})
	if err != nil {
		t.Fatal(err)
	}
	perfetto.Instant(cat, ev, perfetto.CallstackArg(cs))
	s.Flush()
	mark := out.Len()
	s.ClearIncrementalState()
	perfetto.Instant(cat, ev, perfetto.CallstackArg(cs))
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tail, err := decode.Decode(out.Bytes()[mark:])
	if err != nil {
		t.Fatalf("the part after the clear does not decode on its own: %v", err)
	}
	n := 0
	for _, p := range tail.Packets {
		if p.Event != nil && p.Event.Name == "CallstackClearInstant" {
			n++
			if len(p.Event.Callstack) != 2 || p.Event.Callstack[1].Function != "inner" || p.Event.Callstack[0].Mapping.Path != "/bin/clear" {
				t.Errorf("call stack after the clear: %+v", p.Event.Callstack)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d events after the clear", n)
	}
}
