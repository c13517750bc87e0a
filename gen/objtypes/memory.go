package objtypes

import (
	"sort"
	"strings"

	"github.com/vkgen/vkgen/registry"
)

// Objects that hold memory, as the registry tells: VkDeviceMemory itself,
// every handle a bind-memory command binds (directly or in the structures it
// is given: buffers, images, NV acceleration structures, video sessions,
// tensors, ...), and every handle a build-sizes query describes (KHR
// acceleration structures and micromaps, which live in a buffer the query
// sizes). Memory-requirements queries are no guide: some size scratch
// memory for pipelines and command layouts, which hold none.

// MemoryHolders lists the handle types that hold memory, sorted.
func MemoryHolders(r *registry.Registry) []string {
	set := map[string]bool{}
	if r.Handle("VkDeviceMemory") != nil {
		set["VkDeviceMemory"] = true
	}
	for _, c := range r.Commands {
		n := c.Name
		if !(strings.HasPrefix(n, "vkBind") && strings.Contains(n, "Memory")) && !strings.Contains(n, "BuildSizes") {
			continue
		}
		for _, p := range c.Params[1:] { // the first is the device
			handlesIn(r, p, set, 0)
		}
	}
	out := make([]string, 0, len(set))
	for h := range set {
		out = append(out, h)
	}
	sort.Strings(out)
	return out
}

// handlesIn adds the handle type d names, or those the structure it is or
// points to holds (not following pNext: extending structures describe other
// things), two levels deep.
func handlesIn(r *registry.Registry, d registry.Decl, set map[string]bool, depth int) {
	if h := r.Handle(d.Type); h != nil {
		set[h.Name] = true
		return
	}
	s := r.Struct(d.Type)
	if s == nil || depth > 1 {
		return
	}
	for _, m := range s.Members {
		if m.Name != "pNext" {
			handlesIn(r, m, set, depth+1)
		}
	}
}

// MemoryCreators maps each command that creates or allocates objects that
// hold memory (vkCreate*, vkAllocate*: the handle returned through its last
// parameter) to that handle type.
func MemoryCreators(r *registry.Registry) map[string]string {
	holds := map[string]bool{}
	for _, h := range MemoryHolders(r) {
		holds[h] = true
	}
	out := map[string]string{}
	for _, c := range r.Commands {
		if len(c.Params) == 0 || !strings.HasPrefix(c.Name, "vkCreate") && !strings.HasPrefix(c.Name, "vkAllocate") {
			continue
		}
		last := c.Params[len(c.Params)-1]
		if last.Pointers == 1 && !last.IsConst(0) && holds[last.Type] {
			out[c.Name] = last.Type
			for _, a := range c.Aliases {
				out[a] = last.Type
			}
		}
	}
	return out
}
