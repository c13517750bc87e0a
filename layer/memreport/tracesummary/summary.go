// Package tracesummary reads a trace written by VK_LAYER_VKGEN_DeviceMemoryReport
// and summarises it: the memory each (named) object held, per usage cluster
// the peak and final counter values, and the counters over time as an SVG or
// HTML chart. It backs `vkgen trace summary`. It owns only this reading and
// rendering; it must not import the layer (no cgo) or write traces.
package tracesummary

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/vkgen/vkgen/perfetto/decode"
)

// The layer's trace vocabulary (docs/memreport.md).
const (
	category         = "VulkanDeviceMemoryReport"
	allocationEvent  = "VulkanMemoryAllocation"
	objectNameEvent  = "VulkanObjectName"
	counterPrefix    = "vulkan.mem."
	objectTypeBuffer = 9
	objectTypeImage  = 10
	objectTypeMemory = 8
)

// Object is the memory one object held over the trace.
type Object struct {
	Name   string `json:"name"`   // "" when never named
	Type   string `json:"type"`   // BUFFER, IMAGE, DEVICE_MEMORY or DRIVER
	Handle uint64 `json:"handle"` // buffer/image/VkDeviceMemory handle, or the driver's object handle
	// Bytes is the most the object held at once: its bound size for a
	// buffer or image, its allocation size for memory.
	Bytes uint64 `json:"bytes"`
	// Final is what it still held at the end of the trace.
	Final   uint64 `json:"final_bytes"`
	Cluster string `json:"cluster"` // memory_type of its last event
}

// Cluster is one counter track.
type Cluster struct {
	Track string `json:"track"` // vulkan.mem.{app|driver}.usage.<cluster>
	Peak  int64  `json:"peak_bytes"`
	Final int64  `json:"final_bytes"`
}

// Series is one counter track's samples, timestamps in ns relative to the
// first sample of the trace.
type Series struct {
	Track   string
	Samples []decode.CounterSample
}

// Summary is everything `vkgen trace summary` prints.
type Summary struct {
	Objects  []Object  `json:"objects"`
	Clusters []Cluster `json:"clusters"`
	Series   []Series  `json:"-"`
}

type objKey struct {
	typ    string
	handle uint64
}

type objState struct {
	Object
	live map[[2]uint64]uint64 // (memory_object_id, offset) -> bytes
	cur  uint64
}

// Summarize computes the summary of a decoded trace. Events are taken in
// timestamp order (emitters write to several sequences, so file order is not
// emission order); a session-start replay repeats live state and is
// idempotent here (a binding is keyed by memory object and offset).
func Summarize(t *decode.Trace) *Summary {
	objs := map[objKey]*objState{}
	names := map[objKey]string{}
	get := func(k objKey) *objState {
		o := objs[k]
		if o == nil {
			o = &objState{Object: Object{Type: k.typ, Handle: k.handle}, live: map[[2]uint64]uint64{}}
			objs[k] = o
		}
		return o
	}
	instants := t.Instants()
	slices.SortStableFunc(instants, func(a, b decode.Packet) int { return cmp.Compare(a.Timestamp, b.Timestamp) })
	for _, p := range instants {
		ev := p.Event
		if !slices.Contains(ev.Categories, category) {
			continue
		}
		switch ev.Name {
		case objectNameEvent:
			typ, handle, name := argInt(ev, "object_type"), argUint(ev, "object_handle"), argStr(ev, "object_name")
			if k, ok := nameKey(typ, handle); ok {
				names[k] = name
			}
		case allocationEvent:
			src := argStr(ev, "source")
			k := objKey{src, argUint(ev, "object_handle")}
			o := get(k)
			slot := [2]uint64{argUint(ev, "memory_object_id"), argUint(ev, "offset")}
			switch argStr(ev, "operation") {
			case "CREATE", "BIND":
				o.live[slot] = argUint(ev, "size")
			case "DESTROY":
				delete(o.live, slot)
			}
			o.cur = 0
			for _, b := range o.live {
				o.cur += b
			}
			o.Bytes = max(o.Bytes, o.cur)
			o.Cluster = argStr(ev, "memory_type")
		}
	}
	// Names from DebugMarker's raw VkDebugUtilsObjectName packets fill gaps.
	for _, p := range t.ObjectNames() {
		if k, ok := nameKey(int64(p.ObjectName.ObjectType), p.ObjectName.Object); ok {
			if _, seen := names[k]; !seen {
				names[k] = p.ObjectName.Name
			}
		}
	}
	s := &Summary{}
	for k, o := range objs {
		o.Name = names[k]
		o.Final = o.cur
		s.Objects = append(s.Objects, o.Object)
	}
	slices.SortFunc(s.Objects, func(a, b Object) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Type, b.Type), cmp.Compare(a.Handle, b.Handle))
	})

	var t0 uint64
	counters := t.Counters()
	for name, cs := range counters {
		if strings.HasPrefix(name, counterPrefix) && len(cs.Samples) > 0 && (t0 == 0 || cs.Samples[0].Timestamp < t0) {
			t0 = cs.Samples[0].Timestamp
		}
	}
	for name, cs := range counters {
		if !strings.HasPrefix(name, counterPrefix) || len(cs.Samples) == 0 {
			continue
		}
		c := Cluster{Track: name, Final: cs.Samples[len(cs.Samples)-1].Value}
		sr := Series{Track: name}
		for _, smp := range cs.Samples {
			c.Peak = max(c.Peak, smp.Value)
			sr.Samples = append(sr.Samples, decode.CounterSample{Timestamp: smp.Timestamp - t0, Value: smp.Value})
		}
		s.Clusters = append(s.Clusters, c)
		s.Series = append(s.Series, sr)
	}
	slices.SortFunc(s.Clusters, func(a, b Cluster) int { return cmp.Compare(a.Track, b.Track) })
	slices.SortFunc(s.Series, func(a, b Series) int { return cmp.Compare(a.Track, b.Track) })
	return s
}

// nameKey maps a named object to the key its memory events use.
func nameKey(objectType int64, handle uint64) (objKey, bool) {
	switch objectType {
	case objectTypeBuffer:
		return objKey{"BUFFER", handle}, true
	case objectTypeImage:
		return objKey{"IMAGE", handle}, true
	case objectTypeMemory:
		return objKey{"DEVICE_MEMORY", handle}, true
	}
	return objKey{}, false
}

func argStr(ev *decode.Event, name string) string {
	a, _ := ev.Arg(name)
	return a.Str
}

func argUint(ev *decode.Event, name string) uint64 {
	a, _ := ev.Arg(name)
	if a.Kind == decode.KindInt {
		return uint64(a.Int)
	}
	return a.Uint
}

func argInt(ev *decode.Event, name string) int64 {
	a, _ := ev.Arg(name)
	if a.Kind == decode.KindUint {
		return int64(a.Uint)
	}
	return a.Int
}

// Text renders the two tables.
func (s *Summary) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Memory per object (peak bytes held; final)\n")
	fmt.Fprintf(&b, "%-28s %-13s %-18s %12s %12s  %s\n", "NAME", "TYPE", "HANDLE", "BYTES", "FINAL", "CLUSTER")
	for _, o := range s.Objects {
		name := o.Name
		if name == "" {
			name = "(unnamed)"
		}
		fmt.Fprintf(&b, "%-28s %-13s %#-18x %12d %12d  %s\n", name, o.Type, o.Handle, o.Bytes, o.Final, o.Cluster)
	}
	fmt.Fprintf(&b, "\nMemory per cluster (counter tracks, bytes)\n")
	fmt.Fprintf(&b, "%-48s %12s %12s\n", "TRACK", "PEAK", "FINAL")
	for _, c := range s.Clusters {
		fmt.Fprintf(&b, "%-48s %12d %12d\n", c.Track, c.Peak, c.Final)
	}
	return b.String()
}
