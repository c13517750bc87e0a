// Package account reads the account the demo program (demo/demo.c) prints
// of what it did, the expected side of every test that checks a trace of
// it: the memory it allocated and the buffers and images it bound, with the
// handles, sizes and offsets the driver gave.
package account

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

// Memory is a "memory NAME handle=0xH size=N type=I flags=0xF" line.
type Memory struct {
	Name         string
	Handle, Size uint64
	Flags        uint32 // the memory type's property flags
}

// Resource is a "buffer|image NAME handle=0xH usage=0xU size=N
// memory=MEMNAME offset=N" line.
type Resource struct {
	Kind, Name                  string // Kind: buffer or image
	Handle, Usage, Size, Offset uint64
	Memory                      string // the Memory's name
}

// Output is the demo's account, in the order it printed it.
type Output struct {
	Memories  []Memory
	Resources []Resource
}

// Memory returns the allocation called name.
func (o *Output) Memory(name string) (Memory, bool) {
	for _, m := range o.Memories {
		if m.Name == name {
			return m, true
		}
	}
	return Memory{}, false
}

// Parse reads the demo's stdout; other lines are skipped.
func Parse(stdout string) (*Output, error) {
	o := &Output{}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || (f[0] != "memory" && f[0] != "buffer" && f[0] != "image") {
			continue
		}
		kv := map[string]string{}
		for _, x := range f[2:] {
			k, v, _ := strings.Cut(x, "=")
			kv[k] = v
		}
		var err error
		num := func(k string) uint64 {
			v, e := strconv.ParseUint(kv[k], 0, 64)
			if e != nil && err == nil {
				err = fmt.Errorf("demo line %q: %s: %v", sc.Text(), k, e)
			}
			return v
		}
		if f[0] == "memory" {
			o.Memories = append(o.Memories, Memory{f[1], num("handle"), num("size"), uint32(num("flags"))})
		} else {
			o.Resources = append(o.Resources, Resource{f[0], f[1], num("handle"), num("usage"), num("size"), num("offset"), kv["memory"]})
		}
		if err != nil {
			return nil, err
		}
	}
	return o, sc.Err()
}
