package perfetto

import (
	"encoding/binary"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
)

// Call stacks attached to track events (TrackEvent.callstack_iid), written
// as Perfetto's own interned profiling data: InternedData build_ids,
// mapping_paths, mappings, function_names, frames and callstacks.
// trace_processor imports them into stack_profile_mapping, _frame and
// _callsite and links each event's slice to its callsite
// (__intrinsic_track_event_callstacks); the UI shows the frames with the
// slice. Like names, mappings, frames and callstacks are registered once per
// process and interned once per sequence; the handle is the iid.

// Mapping is a registered module mapping.
type Mapping uint32

// MappingInfo describes a loaded module: its GNU build id (raw bytes), path,
// runtime range [Start, End), the file offset it starts at and the offset
// of this mapping in the file, and the load bias (ELF virtual address minus
// file offset of the loaded code): a frame's ELF address is its RelPC plus
// LoadBias.
type MappingInfo struct {
	BuildID                              []byte
	Path                                 string
	Start, End, StartOffset, ExactOffset uint64
	LoadBias                             uint64
}

// Frame is one frame of a call stack: a program counter in a mapping
// (relative to its Start) and, when known, its function's name.
type Frame struct {
	Mapping  Mapping
	RelPC    uint64
	Function string
}

// Callstack is a registered call stack; 0 is none.
type Callstack uint32

// Bounds on what the process-wide tables keep: a call stack past them is
// not registered (NewCallstack returns 0) and the event goes without one.
const (
	MaxCallstacks = 1 << 16
	MaxFrames     = 1 << 18
	MaxMappings   = 1 << 12
)

type frameKey struct {
	mapping Mapping
	relPC   uint64
	fn      uint32
}

type mappingDef struct {
	info    MappingInfo
	buildID uint32 // iid in buildIDs, 0 for none
	path    []uint32
}

var stacks struct {
	mu        sync.RWMutex
	mappings  []mappingDef // by Mapping-1
	frames    []frameKey   // by frame iid-1
	callstack [][]uint32   // frame iids, outermost first, by Callstack-1
	frameIDs  map[frameKey]uint32
	stackIDs  map[string]Callstack
	mapIDs    map[string]Mapping
}

// functionNames, buildIDs and pathParts are the interned strings of
// frames and mappings.
var functionNames, buildIDs, pathParts nameTable

// NewMapping registers a mapping (deduplicated; 0 past MaxMappings).
func NewMapping(m MappingInfo) Mapping {
	key := string(binary.AppendUvarint(binary.AppendUvarint([]byte(m.Path+"\x00"+string(m.BuildID)+"\x00"), m.Start), m.End))
	stacks.mu.Lock()
	defer stacks.mu.Unlock()
	if id, ok := stacks.mapIDs[key]; ok {
		return id
	}
	if len(stacks.mappings) >= MaxMappings {
		return 0
	}
	d := mappingDef{info: m}
	d.info.BuildID = append([]byte(nil), m.BuildID...)
	if len(m.BuildID) > 0 {
		d.buildID = buildIDs.registerRaw(string(m.BuildID)) // its iid; the bytes are written from info
	}
	for _, part := range splitPath(m.Path) {
		d.path = append(d.path, pathParts.register(part))
	}
	stacks.mappings = append(stacks.mappings, d)
	id := Mapping(len(stacks.mappings))
	if stacks.mapIDs == nil {
		stacks.mapIDs = map[string]Mapping{}
	}
	stacks.mapIDs[key] = id
	return id
}

// splitPath cuts a path into the parts Mapping.path_string_ids lists
// ("/usr/lib/libc.so" -> usr, lib, libc.so).
func splitPath(p string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			if i > start {
				out = append(out, p[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// NewCallstack registers a call stack, frames outermost first
// (deduplicated; 0 when empty or past the bounds).
func NewCallstack(frames []Frame) Callstack {
	if len(frames) == 0 {
		return 0
	}
	fns := make([]uint32, len(frames))
	for i, f := range frames {
		if f.Function != "" {
			fns[i] = functionNames.register(f.Function)
		}
	}
	stacks.mu.Lock()
	defer stacks.mu.Unlock()
	if stacks.frameIDs == nil {
		stacks.frameIDs, stacks.stackIDs = map[frameKey]uint32{}, map[string]Callstack{}
	}
	ids := make([]uint32, len(frames))
	key := make([]byte, 0, 4*len(frames))
	for i, f := range frames {
		if f.Mapping == 0 || int(f.Mapping) > len(stacks.mappings) {
			return 0
		}
		k := frameKey{f.Mapping, f.RelPC, fns[i]}
		id, ok := stacks.frameIDs[k]
		if !ok {
			if len(stacks.frames) >= MaxFrames {
				return 0
			}
			stacks.frames = append(stacks.frames, k)
			id = uint32(len(stacks.frames))
			stacks.frameIDs[k] = id
		}
		ids[i] = id
		key = binary.AppendUvarint(key, uint64(id))
	}
	if cs, ok := stacks.stackIDs[string(key)]; ok {
		return cs
	}
	if len(stacks.callstack) >= MaxCallstacks {
		return 0
	}
	stacks.callstack = append(stacks.callstack, ids)
	cs := Callstack(len(stacks.callstack))
	stacks.stackIDs[string(key)] = cs
	return cs
}

// CallstackArg attaches cs to an event as its callstack_iid (an Arg so that
// it travels with the annotations; a zero cs is left out).
func CallstackArg(cs Callstack) Arg { return Arg{kind: argCallstack, num: uint64(cs)} }

// InternedData fields of call stacks and the TrackEvent's.
const (
	fIDFunctionNames = 5
	fIDFrames        = 6
	fIDCallstacks    = 7
	fIDBuildIDs      = 16
	fIDMappingPaths  = 17
	fIDMappings      = 19
	fTECallstackIID  = 56
)

// stackMarks are what a sequence interned of call stacks, per handle.
type stackMarks struct {
	stacks, frames, mappings, fns, builds, paths []bool
}

// internStackLocked appends, inside an InternedData message, what cs needs
// that the sequence has not interned, and marks it.
func (q *sequence) internStackLocked(b []byte, cs Callstack) []byte {
	m := &q.stackMarks
	if cs == 0 || known(m.stacks, uint32(cs)) {
		return b
	}
	stacks.mu.RLock()
	defer stacks.mu.RUnlock()
	if int(cs) > len(stacks.callstack) {
		return b
	}
	ids := stacks.callstack[cs-1]
	for _, fid := range ids {
		if known(m.frames, fid) {
			continue
		}
		f := stacks.frames[fid-1]
		b = q.internMappingLocked(b, f.mapping)
		if f.fn != 0 && !known(m.fns, f.fn) {
			name, _ := functionNames.lookup(f.fn)
			b = appendInterned(b, fIDFunctionNames, f.fn, name)
			m.fns = mark(m.fns, f.fn)
		}
		var e int
		b, e = beginMsg(b, fIDFrames)
		b = appendVarintField(b, 1, uint64(fid))
		if f.fn != 0 {
			b = appendVarintField(b, 2, uint64(f.fn))
		}
		b = appendVarintField(b, 3, uint64(f.mapping))
		b = appendVarintField(b, 4, f.relPC)
		b = endMsg(b, e)
		m.frames = mark(m.frames, fid)
	}
	b, e := beginMsg(b, fIDCallstacks)
	b = appendVarintField(b, 1, uint64(cs))
	for _, fid := range ids {
		b = appendVarintField(b, 2, uint64(fid))
	}
	b = endMsg(b, e)
	m.stacks = mark(m.stacks, uint32(cs))
	return b
}

// internMappingLocked interns mapping id and its strings; stacks.mu is held.
func (q *sequence) internMappingLocked(b []byte, id Mapping) []byte {
	m := &q.stackMarks
	if known(m.mappings, uint32(id)) {
		return b
	}
	d := &stacks.mappings[id-1]
	if d.buildID != 0 && !known(m.builds, d.buildID) {
		var e int
		b, e = beginMsg(b, fIDBuildIDs)
		b = appendVarintField(b, 1, uint64(d.buildID))
		b = protowire.AppendBytes(appendTag(b, 2, protowire.BytesType), d.info.BuildID) // raw bytes, not a string
		b = endMsg(b, e)
		m.builds = mark(m.builds, d.buildID)
	}
	for _, p := range d.path {
		if !known(m.paths, p) {
			s, _ := pathParts.lookup(p)
			b = appendInterned(b, fIDMappingPaths, p, s)
			m.paths = mark(m.paths, p)
		}
	}
	b, e := beginMsg(b, fIDMappings)
	b = appendVarintField(b, 1, uint64(id))
	if d.buildID != 0 {
		b = appendVarintField(b, 2, uint64(d.buildID))
	}
	b = appendVarintField(b, 3, d.info.StartOffset)
	b = appendVarintField(b, 4, d.info.Start)
	b = appendVarintField(b, 5, d.info.End)
	b = appendVarintField(b, 6, d.info.LoadBias)
	for _, p := range d.path {
		b = appendVarintField(b, 7, uint64(p))
	}
	b = appendVarintField(b, 8, d.info.ExactOffset)
	b = endMsg(b, e)
	m.mappings = mark(m.mappings, uint32(id))
	return b
}

// appendAllStacksLocked re-interns every call stack the sequence had (after
// its incremental state was cleared).
func (q *sequence) appendAllStacksLocked(b []byte) []byte {
	had := q.stackMarks.stacks
	q.stackMarks = stackMarks{}
	for cs, ok := range had {
		if ok {
			b = q.internStackLocked(b, Callstack(cs))
		}
	}
	return b
}

func appendCallstackIID(b []byte, cs uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(b, fTECallstackIID, protowire.VarintType), cs)
}
