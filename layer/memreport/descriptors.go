package memreport

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vkgen/vkgen/layer/memreport/accounting"
	"github.com/vkgen/vkgen/layer/memreport/describe"
	"github.com/vkgen/vkgen/perfetto"
)

// descriptors numbers the distinct descriptors of created objects
// (describe: "image 2D 400x300 R8G8B8A8_UNORM sampled|transfer_dst"), so the
// engine's records and events carry a number, not a string, and the trace
// interns each of the first maxInterned once per sequence: an event names
// its object in a byte or two. Programs create many objects of few kinds,
// so the table stays small; past maxDescriptors distinct ones an object
// gets none (counted in full). A lookup keys on the create info's values,
// so a create builds no string unless its kind is new.
type descriptors struct {
	mu      sync.Mutex
	images  numbers[describe.Image]
	buffers numbers[describe.Buffer]
	memory  numbers[describe.Memory]
	n       uint32 // descriptors made
	full    uint64 // objects left without one: the table was full
	// chunks hold the descriptors by number - 1, chunkSize a chunk, made
	// as needed: events read them without the lock (the number reached
	// them through the engine's lock, after the entry was written).
	chunks [maxDescriptors / chunkSize]atomic.Pointer[[chunkSize]descriptor]
}

type descriptor struct {
	s string
	v perfetto.StringValue // 0: written as a plain string
}

const (
	maxDescriptors = 1 << 16
	chunkSize      = 256
	// maxInterned bounds the descriptors registered as interned values:
	// the registry of values is process-wide and never shrinks.
	maxInterned = 4096
)

// numbers are the descriptor numbers of one kind of object by what
// describes it, the last one found beside (consecutive creates are mostly
// alike, and the map hashes the whole key).
type numbers[K comparable] struct {
	byKey map[K]uint32
	last  K
	lastN uint32 // 0: none
}

var descs = &descriptors{images: numbers[describe.Image]{byKey: map[describe.Image]uint32{}},
	buffers: numbers[describe.Buffer]{byKey: map[describe.Buffer]uint32{}}, memory: numbers[describe.Memory]{byKey: map[describe.Memory]uint32{}}}

func (d *descriptors) image(m describe.Image) uint32   { return number(d, &d.images, m) }
func (d *descriptors) buffer(m describe.Buffer) uint32 { return number(d, &d.buffers, m) }
func (d *descriptors) mem(m describe.Memory) uint32    { return number(d, &d.memory, m) }

// number is m's descriptor number in t, made when m is new.
func number[K interface {
	comparable
	String() string
}](d *descriptors, t *numbers[K], m K) uint32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if t.lastN != 0 && t.last == m {
		return t.lastN
	}
	if n, ok := t.byKey[m]; ok {
		t.last, t.lastN = m, n
		return n
	}
	if d.n >= maxDescriptors {
		d.full++
		return 0
	}
	e := descriptor{s: m.String()}
	if d.n < maxInterned {
		e.v = perfetto.NewStringValue(e.s)
	}
	c := d.chunks[d.n/chunkSize].Load()
	if c == nil {
		c = new([chunkSize]descriptor)
		d.chunks[d.n/chunkSize].Store(c)
	}
	c[d.n%chunkSize] = e
	d.n++
	t.byKey[m] = d.n
	t.last, t.lastN = m, d.n
	return d.n
}

// arg is the "descriptor" annotation of number n; ok false for none.
func (d *descriptors) arg(n uint32) (a perfetto.Arg, ok bool) {
	if n == 0 || n > maxDescriptors {
		return a, false
	}
	c := d.chunks[(n-1)/chunkSize].Load()
	if c == nil {
		return a, false
	}
	e := &c[(n-1)%chunkSize]
	if e.v != 0 {
		return perfetto.StringOf(argDescriptor, e.v), true
	}
	return perfetto.String(argDescriptor, e.s), true
}

var argDescriptor = perfetto.NewAnnotationName("descriptor")

// memoryDescriptor is the descriptor number of an allocation of typeIndex
// on a device with props, as info describes it.
func memoryDescriptor(props accounting.MemoryProperties, typeIndex uint32, info accounting.MemoryInfo) uint32 {
	m := describe.Memory{TypeIndex: typeIndex}
	if int(typeIndex) < len(props.TypeFlags) {
		m.Flags = props.TypeFlags[typeIndex]
	}
	if int(typeIndex) < len(props.TypeHeaps) {
		m.Heap = props.TypeHeaps[typeIndex]
	}
	if info.Dedicated != 0 {
		m.Dedicated = info.Dedicated.String()
	}
	if info.External != accounting.ExternalNone {
		m.External = strings.ToLower(info.External.String())
	}
	return descs.mem(m)
}
