package layerstubs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vkgen/vkgen/gen/cabi"
	"github.com/vkgen/vkgen/registry"
)

// The copy of a call a deferred hook reads (layer/vkgen_defer.h): which
// pointers of the parameters, and of the structures they reach, are copied,
// with what length. Pointers the registry gives no length for, void
// pointers, arrays of strings and pointers valid only under conditions
// (noautovalidity) are not followed (NULL in the copy).

// capPtr is one struct vkgen_cap_ptr initializer.
type capPtr struct {
	Offset      int
	Kind        string // VALUE, NULL, STRUCT, BYTES, STRING, CHAIN
	CountSize   int
	CountParam  int
	CountOffset int
	ElemSize    int
	Type        string // the capType's C name, for STRUCT
}

// capType is one structure the copies may contain.
type capType struct {
	Name, CName string
	Size        int
	SType       int64 // its sType value, for chains; -1 when it has none
	Ptrs        []capPtr
}

// capCmd is one deferred hook's description (in its layer's C file; the
// structure types are the framework's, vkgen_capture.gen.c). It carries no
// record id: the glue's layer.RegisterDeferred assigns one when the library
// loads, so no layer's output depends on another's hooks.
type capCmd struct {
	CName  string   // vkgen_cap_<symbol>_<before|after>_<Cmd>
	Params []capPtr // with a query, its result last
	Query  *capQuery
	Names  int  // a durable naming record's VKGEN_NAMES_* (//vkgen:durable), 0 for others
	Stack  bool // the record carries the caller's call stack (Spec.CallStacks)
	// Framework marks the framework's own records (vkgen_cap_names_*: object
	// names), defined once in vkgen_capture.gen.c and drained by package layer/naming.
	Framework bool
}

// namingRecords are the VKGEN_NAMES_* kinds (vkgen_defer.h) of the commands
// whose deferred hooks may be durable: what the exit watcher reads from
// their records.
var namingRecords = map[string]int{"vkSetDebugUtilsObjectNameEXT": 1, "vkDebugMarkerSetObjectNameEXT": 2}

// capQuery is a command the framework calls when it records a deferred
// hook's call, whose result the hook receives as its last parameter.
type capQuery struct {
	*command
	Fn       string // vkgen_<symbol>_query_<hook>, in the layer's C file
	Args     []int  // per parameter but the last: the recorded call's parameter
	Out      string // C type of the result
	OutSize  int
	OutSType int64 // the result's sType value, -1 for none
	GoType   string
	Slot     string
	Instance bool
}

// captures builds the tables of every deferred hook of the library.
type captures struct {
	r      *registry.Registry
	abi    *cabi.ABI
	types  map[string]*capType
	queue  []string
	stypes map[string]int64
}

func newCaptures(r *registry.Registry) *captures {
	c := &captures{r: r, abi: cabi.New(r), types: map[string]*capType{}, stypes: map[string]int64{}}
	if e := r.Enum("VkStructureType"); e != nil {
		for _, v := range e.Values {
			c.stypes[v.Name] = v.Value
		}
	}
	return c
}

// Types lists the structures, sorted by name.
func (c *captures) Types() []*capType {
	var out []*capType
	for _, t := range c.types {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Chained lists the structures with an sType, sorted by value (the switch
// of vkgen_cap_stype).
func (c *captures) Chained() []*capType {
	var out []*capType
	for _, t := range c.Types() {
		if t.SType >= 0 {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].SType < out[j].SType })
	return out
}

// command describes the parameters of one deferred hook.
func (c *captures) command(name, cname string) (*capCmd, error) {
	rc := c.r.Command(name)
	cmd := &capCmd{CName: cname}
	for _, p := range rc.Params {
		if p.Pointers == 0 && len(p.Array) == 0 {
			if t := c.r.Type(p.Type); t != nil && (p.Type == "float" || p.Type == "double" || t.Kind == registry.KindStruct || t.Kind == registry.KindUnion) {
				return nil, fmt.Errorf("%s: parameter %s (%s) cannot be recorded for a deferred hook", name, p.Name, p.Type)
			}
			cmd.Params = append(cmd.Params, capPtr{Kind: "VALUE"})
			continue
		}
		d, err := c.pointer(p, true, func(member string) (int, int, bool) {
			for i, q := range rc.Params {
				if q.Name == member && q.Pointers == 0 {
					size, _, err := c.abi.Type(q.Type)
					return i, size, err == nil
				}
			}
			return 0, 0, false
		})
		if err != nil {
			return nil, fmt.Errorf("%s: parameter %s: %w", name, p.Name, err)
		}
		cmd.Params = append(cmd.Params, d)
	}
	return cmd, c.drain()
}

// query adds q, called with the parameters of cmd named like its own, to
// the record of cmd.
func (c *captures) query(cmd *capCmd, rc *registry.Command, q *command) error {
	rq := c.r.Command(q.Name)
	n := len(rq.Params)
	out := rq.Params[n-1]
	if out.Pointers != 1 || out.IsConst(0) || c.r.Struct(out.Type) == nil {
		return fmt.Errorf("the query %s does not return a structure through its last parameter", q.Name)
	}
	cq := &capQuery{command: q, Out: out.Type, OutSType: -1, GoType: "*" + goValueType(out.Type)}
	for _, p := range rq.Params[:n-1] {
		at := -1
		for i, h := range rc.Params {
			if h.Name == p.Name && h.Type == p.Type && h.Pointers == p.Pointers {
				at = i
			}
		}
		if at < 0 {
			return fmt.Errorf("the query %s needs a parameter %s %s that %s lacks", q.Name, p.Type, p.Name, rc.Name)
		}
		cq.Args = append(cq.Args, at)
	}
	t, err := c.typeOf(out.Type)
	if err != nil {
		return err
	}
	cq.OutSize, cq.OutSType = t.Size, t.SType
	cmd.Query = cq
	cmd.Params = append(cmd.Params, capPtr{Kind: "STRUCT", Type: t.CName})
	return c.drain()
}

// values describes a record of n integers (the forget hook's).
func (c *captures) values(cname string, n int) *capCmd {
	cmd := &capCmd{CName: cname, Params: make([]capPtr, n)}
	for i := range cmd.Params {
		cmd.Params[i].Kind = "VALUE"
	}
	return cmd
}

// pointer describes a pointer (or array) declaration; count resolves a
// len naming a sibling to its place and size: a parameter's index when
// param, else a member's offset.
func (c *captures) pointer(d registry.Decl, param bool, count func(string) (int, int, bool)) (capPtr, error) {
	p := capPtr{Kind: "NULL"}
	if len(d.Array) > 0 && d.Pointers == 0 { // an array parameter: its fixed bytes
		size, _, err := c.abi.Decl(d)
		if err != nil {
			return p, err
		}
		return capPtr{Kind: "BYTES", ElemSize: size}, nil
	}
	// noautovalidity marks pointers valid only under conditions the
	// registry does not spell out (pQueueFamilyIndices only with
	// VK_SHARING_MODE_CONCURRENT): an application may leave garbage there.
	if d.Pointers != 1 || d.Type == "VkAllocationCallbacks" || d.NoAutoValidity {
		return p, nil
	}
	if d.Name == "pNext" {
		return capPtr{Kind: "CHAIN"}, nil
	}
	if d.Type == "char" {
		if d.Len == "" || strings.HasPrefix(d.Len, "null-terminated") {
			return capPtr{Kind: "STRING"}, nil
		}
		return p, nil
	}
	if d.Type == "void" {
		return p, nil
	}
	if d.Len != "" {
		first := strings.Split(d.Len, ",")[0]
		at, size, ok := count(first)
		if !ok || (size != 1 && size != 2 && size != 4 && size != 8) {
			return p, nil // a length expression: not followed
		}
		if p.CountSize = size; param {
			p.CountParam = at
		} else {
			p.CountOffset = at
		}
	}
	t := c.r.Type(d.Type)
	if t != nil && (t.Kind == registry.KindStruct || t.Kind == registry.KindUnion) {
		ct, err := c.typeOf(d.Type)
		if err != nil {
			return capPtr{Kind: "NULL"}, nil // an opaque member somewhere: not followed
		}
		p.Kind, p.Type = "STRUCT", ct.CName
		return p, nil
	}
	size, _, err := c.abi.Type(d.Type)
	if err != nil {
		return capPtr{Kind: "NULL"}, nil
	}
	p.Kind, p.ElemSize = "BYTES", size
	return p, nil
}

// typeOf returns the table entry of a structure, queueing it to be filled.
func (c *captures) typeOf(name string) (*capType, error) {
	if s := c.r.Struct(name); s != nil {
		name = s.Name // aliases share the canonical entry
	}
	if t := c.types[name]; t != nil {
		return t, nil
	}
	l, err := c.abi.Struct(name)
	if err != nil {
		return nil, err
	}
	t := &capType{Name: name, CName: "vkgen_cap_" + name, Size: l.Size, SType: -1}
	if s := c.r.Struct(name); s != nil && s.SType != "" {
		if v, ok := c.stypes[s.SType]; ok {
			t.SType = v
		}
	}
	c.types[name] = t
	c.queue = append(c.queue, name)
	return t, nil
}

// drain fills the queued structures' pointers, and queues every structure
// that may extend a queued one (a chain may carry it).
func (c *captures) drain() error {
	for len(c.queue) > 0 {
		name := c.queue[0]
		c.queue = c.queue[1:]
		t := c.types[name]
		ptrs, err := c.members(name, 0)
		if err != nil {
			return err
		}
		t.Ptrs = ptrs
		for _, s := range c.r.Structs {
			for _, e := range s.Extends {
				if e == name {
					if _, err := c.typeOf(s.Name); err != nil {
						continue // opaque: a chain stops there
					}
				}
			}
		}
	}
	return nil
}

// members lists the followed pointers of a structure at base, nested
// structures by value included.
func (c *captures) members(name string, base int) ([]capPtr, error) {
	s := c.r.Struct(name)
	l, err := c.abi.Struct(name)
	if err != nil || s == nil || s.Union {
		return nil, err
	}
	var out []capPtr
	for i, m := range s.Members {
		off := base + l.Members[i].Offset
		if m.Pointers == 0 {
			if t := c.r.Type(m.Type); t != nil && t.Kind == registry.KindStruct && len(m.Array) == 0 {
				inner, err := c.members(m.Type, off)
				if err != nil {
					return nil, err
				}
				out = append(out, inner...)
			}
			continue
		}
		p, err := c.pointer(m, false, func(member string) (int, int, bool) {
			for j, q := range s.Members {
				if q.Name == member && q.Pointers == 0 && len(q.Array) == 0 {
					return base + l.Members[j].Offset, l.Members[j].Size, true
				}
			}
			return 0, 0, false
		})
		if err != nil {
			return nil, err
		}
		p.Offset = off
		out = append(out, p)
	}
	return out, nil
}

// Types lists the structure types cmd's parameters name, for their
// declarations.
func (cmd *capCmd) Types() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range cmd.Params {
		if p.Type != "" && !seen[p.Type] {
			seen[p.Type] = true
			out = append(out, p.Type)
		}
	}
	return out
}

// allStructs describes every structure of the registry with a C layout, so
// the framework's tables (vkgen_capture.gen.c) are the same whatever the
// layers' deferred hooks copy.
func (b *builder) allStructs() error {
	for _, s := range b.r.Structs {
		if _, err := b.caps.typeOf(s.Name); err != nil {
			continue // opaque somewhere: never copied
		}
	}
	return b.caps.drain()
}
