package decode

import (
	"fmt"

	"github.com/vkgen/vkgen/perfetto/internal/pb"
	"google.golang.org/protobuf/encoding/protowire"
)

// Call stacks of track events (TrackEvent.callstack_iid), resolved from the
// sequence's interned profiling data: callstacks, frames, mappings,
// function_names, build_ids and mapping_paths.

// Frame is one frame of an event's call stack.
type Frame struct {
	Function string   // "" when the trace names none
	RelPC    uint64   // the address relative to its mapping's Start
	Mapping  *Mapping // nil when the frame has none
}

// Mapping is a module a frame is in. An address of the module's file (its
// ELF symbols and DWARF) is RelPC + LoadBias.
type Mapping struct {
	Path                     string
	BuildID                  string // raw bytes
	Start, End, LoadBias     uint64
	StartOffset, ExactOffset uint64
}

type frameDef struct{ fn, mapping, relPC uint64 }

// stackState is a sequence's interned call-stack data.
type stackState struct {
	fns, builds, paths interned
	mappings           map[uint64]*Mapping
	frames             map[uint64]frameDef
	stacks             map[uint64][]uint64
}

// strings is the table of InternedData field num: function_names (5),
// build_ids (16) or mapping_paths (17).
func (s *stackState) strings(num protowire.Number) *interned {
	switch num {
	case 5:
		return &s.fns
	case 16:
		return &s.builds
	}
	return &s.paths
}

// decodeStackInterned reads one InternedData entry of mappings, frames or
// callstacks (others are not call-stack data: ignored).
func decodeStackInterned(num protowire.Number, raw []byte, s *stackState) error {
	switch num {
	case 19: // mappings
		var iid, build uint64
		var parts []uint64
		mp := &Mapping{}
		err := pb.Walk(raw, func(num protowire.Number, v uint64, raw []byte) error {
			switch num {
			case 1:
				iid = v
			case 2:
				build = v
			case 3:
				mp.StartOffset = v
			case 4:
				mp.Start = v
			case 5:
				mp.End = v
			case 6:
				mp.LoadBias = v
			case 7:
				return pb.Varints(raw, v, func(x uint64) { parts = append(parts, x) })
			case 8:
				mp.ExactOffset = v
			}
			return nil
		})
		if err != nil {
			return err
		}
		mp.BuildID, _ = s.builds.get(build)
		for _, p := range parts {
			part, _ := s.paths.get(p)
			mp.Path += "/" + part
		}
		if s.mappings == nil {
			s.mappings = map[uint64]*Mapping{}
		}
		s.mappings[iid] = mp
		return nil
	case 6: // frames
		var iid uint64
		var f frameDef
		err := pb.Walk(raw, func(num protowire.Number, v uint64, _ []byte) error {
			switch num {
			case 1:
				iid = v
			case 2:
				f.fn = v
			case 3:
				f.mapping = v
			case 4:
				f.relPC = v
			}
			return nil
		})
		if s.frames == nil {
			s.frames = map[uint64]frameDef{}
		}
		s.frames[iid] = f
		return err
	case 7: // callstacks
		var iid uint64
		var ids []uint64
		err := pb.Walk(raw, func(num protowire.Number, v uint64, raw []byte) error {
			switch num {
			case 1:
				iid = v
			case 2:
				return pb.Varints(raw, v, func(x uint64) { ids = append(ids, x) })
			}
			return nil
		})
		if s.stacks == nil {
			s.stacks = map[uint64][]uint64{}
		}
		s.stacks[iid] = ids
		return err
	}
	return nil
}

// callstack resolves an interned callstack into frames (reusing out).
func (s *stackState) callstack(iid uint64, flagged bool, out []Frame) ([]Frame, error) {
	if !flagged {
		return out, errNoFlag
	}
	ids, ok := s.stacks[iid]
	if !ok {
		return out, fmt.Errorf("callstack iid %d not interned on this sequence", iid)
	}
	for _, id := range ids {
		f, ok := s.frames[id]
		if !ok {
			return out, fmt.Errorf("frame iid %d of callstack %d not interned on this sequence", id, iid)
		}
		fn, _ := s.fns.get(f.fn)
		out = append(out, Frame{Function: fn, RelPC: f.relPC, Mapping: s.mappings[f.mapping]})
	}
	return out, nil
}
