package memreport

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/vkgen/vkgen/internal/hashmap"
	"github.com/vkgen/vkgen/layer/memreport/accounting"
)

// Growth: the live bytes of a group (objects of one type sharing a name;
// unnamed objects by type; a call site once call sites are recorded) are
// sampled at every frame end, counting only objects that outlived
// settleFrames frame ends, so memory allocated and freed within a few
// frames (per-frame uploads, ring buffers) is never growth. A group grows
// when its live bytes rose at least growthRises times, with growth_frames
// or more frames between the first and the last rise, by at least
// growth_min_bytes, without ever falling; a fall, or growth_frames frames
// without a rise (a cache that filled up), starts over. It is
// reported once per run of rises: a trace event, and one stderr line the
// first time the group grows in the process.
const (
	settleFrames = 3
	growthRises  = 3
	// maxGroups bounds the groups kept (a program naming every object
	// differently); past it objects join their type's unnamed group.
	maxGroups = 4096
	// maxGrowthObjects bounds the objects a growth event lists.
	maxGrowthObjects = 64
	// maxLogged bounds the groups whose growth was printed once.
	maxLogged = 1024
)

// growthKey is what a growth group shares. site is 0 until call sites are
// recorded (each would be its own group).
type growthKey struct {
	src  accounting.Source
	name string
	site uint64
}

func (k growthKey) Hash() uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(k.name); i++ {
		h = (h ^ uint64(k.name[i])) * 1099511628211
	}
	return hashmap.Mix(h ^ uint64(k.src)<<56 ^ k.site)
}

// growthGroup is one group's live bytes and its current run.
type growthGroup struct {
	key     growthKey
	live    uint64 // settled live bytes
	objects int
	last    uint64 // the last frame end's value and time
	lastTs  uint64
	// The run: base is the value before its first rise (at frame baseFrame,
	// time baseTs), rises counts them.
	base, baseTs        uint64
	baseFrame           uint64
	firstRise, lastRise uint64
	rises               int
	flagged             bool // reported in this run
	inUse               bool
}

type growthGroups struct {
	list   []growthGroup
	index  hashmap.Map[growthKey, int32]
	free   []int32
	logged map[growthKey]bool
}

// growthReport is a group found growing.
type growthReport struct {
	key            growthKey
	startBytes     uint64
	bytes          uint64
	startTs        uint64
	frames         uint64
	bytesPerSecond uint64
	objects        []growthObject // the largest objects behind it, at most maxGrowthObjects
	objectCount    int
	objectBytes    uint64
}

type growthObject struct {
	handle, size uint64
}

// settle adds the objects born in frame f that are still alive to their
// groups, and empties f's list for the frame that reuses its slot.
func (o *overTime) settle(f uint64) {
	slot := &o.born[f%settleFrames]
	for _, i := range *slot {
		rec := &o.objs.recs[i]
		if !rec.alive || rec.born != f || rec.group >= 0 {
			continue // freed, a later object in its slot, or a duplicate entry
		}
		rec.group = o.groups.join(growthKey{src: rec.src, name: o.name(rec.key, rec.handle)}, rec.size)
	}
	*slot = (*slot)[:0]
}

// join adds size to the group, creating it; returns its index.
func (g *growthGroups) join(k growthKey, size uint64) int32 {
	i, ok := g.index.Get(k)
	if !ok {
		if g.index.Len() >= maxGroups && k.name != "" {
			g.sweep()
		}
		if g.index.Len() >= maxGroups && k.name != "" {
			return g.join(growthKey{src: k.src}, size)
		}
		i = g.add(k)
	}
	gr := &g.list[i]
	gr.live += size
	gr.objects++
	return i
}

func (g *growthGroups) add(k growthKey) int32 {
	var i int32
	if n := len(g.free); n > 0 {
		i, g.free = g.free[n-1], g.free[:n-1]
	} else {
		g.list = append(g.list, growthGroup{})
		i = int32(len(g.list) - 1)
	}
	g.list[i] = growthGroup{key: k, inUse: true}
	g.index.Set(k, i)
	return i
}

// sweep frees the groups that hold nothing and are in no run.
func (g *growthGroups) sweep() {
	for i := range g.list {
		gr := &g.list[i]
		if gr.inUse && gr.objects == 0 && gr.rises == 0 {
			g.index.Delete(gr.key)
			gr.inUse = false
			g.free = append(g.free, int32(i))
		}
	}
}

// remove takes a settled object out of its group.
func (g *growthGroups) remove(rec *objRec) {
	if rec.group < 0 {
		return
	}
	gr := &g.list[rec.group]
	gr.live -= min(gr.live, rec.size)
	gr.objects--
}

// sample checks every group at the end of frame f, at ts; prev is when
// the frame began (the frame end before it).
func (g *growthGroups) sample(o *overTime, f, ts, prev uint64) {
	for i := range g.list {
		gr := &g.list[i]
		if !gr.inUse {
			continue
		}
		if gr.lastTs == 0 {
			gr.lastTs = prev // new: it held nothing when the frame began
		}
		v := gr.live
		switch {
		case v > gr.last:
			if gr.rises == 0 {
				gr.base, gr.baseTs, gr.baseFrame, gr.firstRise = gr.last, gr.lastTs, f-min(f, 1), f
			}
			gr.rises++
			gr.lastRise = f
		case v < gr.last, gr.rises > 0 && f-gr.lastRise >= o.cfg.growthFrames:
			// Fell, or stayed flat for growth_frames: whatever rises
			// next is a new run.
			gr.rises, gr.flagged = 0, false
		}
		changed := v != gr.last
		gr.last, gr.lastTs = v, ts
		switch {
		case gr.flagged && changed:
			o.out.GrowthValue(ts, gr)
		case !gr.flagged && gr.rises >= growthRises && gr.lastRise-gr.firstRise >= o.cfg.growthFrames && v-gr.base >= o.cfg.growthMinBytes:
			gr.flagged = true
			o.reportGrowth(int32(i), f, ts)
		}
	}
}

// reportGrowth writes a group's growth with the objects behind it: those
// of the group that settled during the run and are still alive.
func (o *overTime) reportGrowth(i int32, f, ts uint64) {
	gr := &o.groups.list[i]
	r := growthReport{key: gr.key, startBytes: gr.base, bytes: gr.live, startTs: gr.baseTs, frames: f - gr.baseFrame}
	if ts > gr.baseTs {
		r.bytesPerSecond = uint64(float64(gr.live-gr.base) * 1e9 / float64(ts-gr.baseTs))
	}
	// Objects that settled by the base frame's end (born up to
	// baseFrame+1-settleFrames) are in base.
	first := int64(gr.baseFrame) + 2 - settleFrames
	for _, rec := range o.objs.recs {
		if rec.alive && rec.group == i && int64(rec.born) >= first {
			r.objects = append(r.objects, growthObject{rec.handle, rec.size})
			r.objectCount++
			r.objectBytes += rec.size
		}
	}
	slices.SortFunc(r.objects, func(a, b growthObject) int {
		return cmp.Or(cmp.Compare(b.size, a.size), cmp.Compare(a.handle, b.handle))
	})
	r.objects = r.objects[:min(len(r.objects), maxGrowthObjects)]
	o.out.Growth(ts, &r)
	g := &o.groups
	if !g.logged[gr.key] && len(g.logged) < maxLogged {
		if g.logged == nil {
			g.logged = map[growthKey]bool{}
		}
		g.logged[gr.key] = true
		fmt.Fprintf(o.log, "vkgen: %s: memory growth: %s grew from %d to %d bytes over %d frames (%.2f s), %d bytes/s, %d objects\n",
			layerName, r.key.String(), r.startBytes, r.bytes, r.frames, float64(ts-r.startTs)/1e9, r.bytesPerSecond, r.objectCount)
	}
}

// String names a group: `BUFFER "name"`, or `BUFFER (unnamed)`.
func (k growthKey) String() string {
	if k.name == "" {
		return k.src.String() + " (unnamed)"
	}
	return fmt.Sprintf("%s %q", k.src, k.name)
}
