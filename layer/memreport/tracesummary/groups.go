package tracesummary

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Group kinds. Objects are grouped by what identifies them across runs of
// a program, never by handle: their name, else where they were made and
// their descriptor (type, cluster and size), else their descriptor alone:
// KindName, else KindCallSite, else KindDescriptor.
const (
	KindName       = "name"       // objects of one name
	KindCallSite   = "call_site"  // unnamed objects of one "DESCRIPTOR — call site" (CallSiteKey)
	KindDescriptor = "descriptor" // unnamed objects of one descriptor (the layer's, else "TYPE cluster bytes")
	KindType       = "type"       // objects of one type
	KindCluster    = "cluster"    // a usage cluster's counters, app and driver
	KindHeap       = "heap"       // a memory heap's counters (every cluster, app and driver)
	KindTotal      = "total"      // app (every vulkan.mem.app.usage track) or driver
)

// OtherNames is the key of the KindName group that holds the objects whose
// names came after Options.MaxGroups groups existed.
const OtherNames = "(other names)"

// DefaultMaxGroups bounds the name, call-site and descriptor groups of one
// trace.
const DefaultMaxGroups = 100000

// Group is the memory of everything that shares one key in a trace.
type Group struct {
	Kind string `json:"kind"`
	Key  string `json:"key"`
	// Peak is the most the group held at one timestamp (all changes at a
	// timestamp applied); Final what it held at the end.
	Peak  int64 `json:"peak_bytes"`
	Final int64 `json:"final_bytes"`
	// Objects counts the object lifetimes in the group: for an object
	// group those that ended in it; for a cluster or heap the objects
	// whose last event was of that cluster or heap; for a total its
	// objects (driver: DRIVER ones).
	Objects int `json:"objects"`
}

type groupKey struct {
	kind uint8
	key  string
}

const (
	gName uint8 = iota
	gDescriptor
	gCallSite
	gType
	gCluster
	gHeap
	gTotal
)

var kindNames = [...]string{KindName, KindDescriptor, KindCallSite, KindType, KindCluster, KindHeap, KindTotal}

// group is a group's running state.
type group struct {
	groupKey
	cur, peak int64
	objects   int
	dirty     bool
}

// groups keeps every group and settles their peaks once per timestamp, so
// that a move between two groups at one moment (a bind taking bytes from
// unbound memory) never counts twice.
type groups struct {
	m      map[groupKey]*group
	max    int // name and descriptor groups at most
	n      int // name and descriptor groups made
	folded int // keys that went to OtherNames
	dirty  []*group
	ts     uint64
	// What ended looks up, by interned cluster, heap index (the layer's
	// 16) and total (app, driver); what a new object looks up, by interned
	// source (its type).
	byCluster []*group
	byHeap    [16]*group
	totals    [2]*group
	byType    []*group
	other     *group // OtherNames, once made
}

func newGroups(max int) groups {
	return groups{m: map[groupKey]*group{}, max: cmp.Or(max, DefaultMaxGroups)}
}

// get returns the group of k, made on first use; past max object groups a
// new name or descriptor goes to OtherNames.
func (g *groups) get(k groupKey) *group {
	if x := g.m[k]; x != nil {
		return x
	}
	if k.kind <= gCallSite { // an object group
		if g.n >= g.max {
			g.folded++
			if g.other == nil { // looked up once: names past max mostly come in numbers
				k = groupKey{gName, OtherNames}
				if g.other = g.m[k]; g.other == nil {
					g.other = &group{groupKey: k}
					g.m[k] = g.other
				}
			}
			return g.other
		}
		g.n++
	}
	x := &group{groupKey: k}
	g.m[k] = x
	return x
}

// at settles the peaks of the groups changed before ts.
func (g *groups) at(ts uint64) {
	if ts != g.ts {
		g.settle()
		g.ts = ts
	}
}

func (g *groups) settle() {
	for _, x := range g.dirty {
		x.peak, x.dirty = max(x.peak, x.cur), false
	}
	g.dirty = g.dirty[:0]
}

func (g *groups) add(x *group, delta int64) {
	if x == nil || delta == 0 {
		return
	}
	x.cur += delta
	if !x.dirty {
		x.dirty = true
		g.dirty = append(g.dirty, x)
	}
}

// list returns every group, largest peak first. A descriptor or call-site
// group that holds nothing and no object ended in is left out: every object in it got
// a name later (an allocation named after vkAllocateMemory returned), and
// it would only show the moments before.
func (g *groups) list() []Group {
	g.settle()
	out := make([]Group, 0, len(g.m))
	for _, x := range g.m {
		if x.kind != gName && x.kind <= gCallSite && x.objects == 0 && x.cur == 0 {
			continue
		}
		out = append(out, Group{Kind: kindNames[x.kind], Key: x.key, Peak: x.peak, Final: x.cur, Objects: x.objects})
	}
	slices.SortFunc(out, func(a, b Group) int {
		return cmp.Or(cmp.Compare(b.Peak, a.Peak), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Key, b.Key))
	})
	return out
}

// objectKey is the name, call-site or descriptor group key of an object:
// its name, else where it was made (site) with its descriptor, else its
// descriptor alone. The descriptor is the one the layer wrote (desc; a
// VkDeviceMemory's, which says nothing of its size, with its bytes), else
// one made of its type, cluster and size.
func objectKey(name, site, desc, typ, cluster string, bytes uint64) groupKey {
	if name != "" {
		return groupKey{gName, name}
	}
	var d string
	switch {
	case desc != "" && typ == "DEVICE_MEMORY":
		d = desc + " " + strconv.FormatUint(bytes, 10)
	case desc != "":
		d = desc
	default:
		d = Descriptor(typ, cluster, bytes)
	}
	if site != "" {
		return groupKey{gCallSite, CallSiteKey(d, site)}
	}
	return groupKey{gDescriptor, d}
}

// CallSiteKey is the key of unnamed objects made at one call site:
// "DESCRIPTOR — call site".
func CallSiteKey(descriptor, site string) string { return descriptor + " — " + site }

// Descriptor is the key of unnamed objects: "TYPE cluster bytes".
func Descriptor(typ, cluster string, bytes uint64) string {
	return typ + " " + cluster + " " + strconv.FormatUint(bytes, 10)
}

// trackGroups are the counter groups a vulkan.mem track adds into: its
// cluster and total (process-wide tracks) or its heap (per-heap tracks);
// none for budget tracks.
func (g *groups) trackGroups(name string) []*group {
	rest, ok := strings.CutPrefix(name, counterPrefix)
	if !ok {
		return nil
	}
	if h, r, ok := strings.Cut(rest, "."); ok && strings.HasPrefix(h, "heap") {
		if _, err := strconv.ParseUint(h[len("heap"):], 10, 32); err != nil || !(strings.HasPrefix(r, "app.usage.") || strings.HasPrefix(r, "driver.usage.")) {
			return nil
		}
		return []*group{g.get(groupKey{gHeap, h[len("heap"):]})}
	}
	for _, src := range []string{"app", "driver"} {
		if c, ok := strings.CutPrefix(rest, src+".usage."); ok {
			return []*group{g.get(groupKey{gCluster, c}), g.get(groupKey{gTotal, src})}
		}
	}
	return nil
}

// typeGroup is the type group of source src (interned in strs).
func (g *groups) typeGroup(src uint32, strs *interner) *group {
	for int(src) >= len(g.byType) {
		g.byType = append(g.byType, nil)
	}
	if g.byType[src] == nil {
		g.byType[src] = g.get(groupKey{gType, strs.str(src)})
	}
	return g.byType[src]
}

// ended counts an object in its groups: its object group og, its type
// group typ, and the groups of its cluster, heap and total, found once
// per interned cluster (clust, of strs), heap and source: an object ends
// per few events, and four string-keyed lookups were a sixth of a
// summary's time.
func (g *groups) ended(og, typ *group, src, clust uint32, heap uint32, strs *interner) {
	for int(clust) >= len(g.byCluster) {
		g.byCluster = append(g.byCluster, nil)
	}
	c := g.byCluster[clust]
	if c == nil {
		c = g.get(groupKey{gCluster, strs.str(clust)})
		g.byCluster[clust] = c
	}
	var h *group
	if heap < uint32(len(g.byHeap)) {
		h = g.byHeap[heap]
	}
	if h == nil {
		h = g.get(groupKey{gHeap, strconv.FormatUint(uint64(heap), 10)})
		if heap < uint32(len(g.byHeap)) {
			g.byHeap[heap] = h
		}
	}
	t := &g.totals[0]
	if strs.str(src) == "DRIVER" {
		t = &g.totals[1]
	}
	if *t == nil {
		*t = g.get(groupKey{gTotal, totalOf(strs.str(src))})
	}
	for _, x := range [...]*group{og, typ, c, h, *t} {
		if x != nil {
			x.objects++
		}
	}
}

func totalOf(typ string) string {
	if typ == "DRIVER" {
		return "driver"
	}
	return "app"
}
