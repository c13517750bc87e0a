package registry

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the want.* sections of testdata/registry/*.txtar")

// fixtureDir holds hand-written registries as txtar archives: a vk.xml
// section and one want.<api> section per API it is parsed for, holding the
// dump of the model.
const fixtureDir = "../testdata/registry"

func TestFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(fixtureDir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in %s: %v", fixtureDir, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var src []byte
			for _, f := range ar.Files {
				if f.Name == "vk.xml" {
					src = f.Data
				}
			}
			if src == nil {
				t.Fatal("no vk.xml section")
			}
			changed := false
			for i, f := range ar.Files {
				api, ok := strings.CutPrefix(f.Name, "want.")
				if !ok {
					continue
				}
				reg, err := Parse(bytes.NewReader(src), "vk.xml", WithAPI(api))
				var got string
				if err != nil {
					got = "error: " + err.Error() + "\n"
				} else {
					got = dump(reg)
				}
				if *update {
					ar.Files[i].Data = []byte(got)
					changed = true
				} else if got != string(f.Data) {
					t.Errorf("api %s: model differs from %s\n--- got\n%s--- want\n%s", api, f.Name, got, f.Data)
				}
			}
			if changed {
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// dump renders the model as stable text for the fixtures.
func dump(r *Registry) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	list := func(s []string) string { return strings.Join(s, ",") }
	p("api %s header %d version %s", r.API, r.HeaderVersion, r.APIVersion)
	for _, pl := range r.Platforms {
		p("platform %s protect=%s", pl.Name, pl.Protect)
	}
	for _, h := range r.Handles {
		p("handle %s objtype=%s parents=%s dispatchable=%t aliases=%s protect=%s requiredby=%s",
			h.Name, h.ObjectType, list(h.Parents), h.Dispatchable, list(h.Aliases), h.Protect, list(h.RequiredBy))
	}
	for _, e := range r.Enums {
		p("enum %q kind=%d bitwidth=%d aliases=%s", e.Name, e.Kind, e.BitWidth, list(e.Aliases))
		for _, v := range e.Values {
			p("  %s = %d text=%q type=%s alias=%s requiredby=%s protect=%s", v.Name, v.Value, v.Text, v.Type, v.Alias, v.RequiredBy, v.Protect)
		}
	}
	for _, c := range r.Commands {
		p("command %s return=%q level=%d aliases=%s requiredby=%s protect=%s", c.Name, c.Return, c.Level, list(c.Aliases), list(c.RequiredBy), c.Protect)
		for _, a := range c.Aliases {
			if by, ok := c.AliasRequiredBy[a]; ok {
				p("  alias %s requiredby=%s", a, list(by))
			}
		}
		for _, prm := range c.Params {
			p("  param %s", dumpDecl(prm))
		}
	}
	for _, fp := range r.FuncPointers {
		p("funcpointer %s return=%q", fp.Name, fp.Return)
		for _, prm := range fp.Params {
			p("  param %s", dumpDecl(prm))
		}
	}
	for _, s := range r.Structs {
		p("struct %s union=%t stype=%s extends=%s returnedonly=%t aliases=%s protect=%s requiredby=%s",
			s.Name, s.Union, s.SType, list(s.Extends), s.ReturnedOnly, list(s.Aliases), s.Protect, list(s.RequiredBy))
		for _, m := range s.Members {
			p("  member %s", dumpDecl(m))
		}
	}
	for _, t := range r.Types {
		p("%s", dumpType(t))
	}
	for _, f := range r.Features {
		p("feature %s number=%s api=%s depends=%q merged=%s", f.Name, f.Number, list(f.API), f.Depends, list(f.Merged))
		p("  commands=%s types=%s enums=%s", list(f.Commands), list(f.Types), list(f.Enums))
	}
	for _, x := range r.Extensions {
		p("extension %s number=%d type=%s supported=%s provisional=%t platform=%s protect=%s depends=%q promotedto=%s deprecatedby=%s obsoletedby=%s",
			x.Name, x.Number, x.Type, list(x.Supported), x.Provisional, x.Platform, x.Protect, x.Depends, x.PromotedTo, x.DeprecatedBy, x.ObsoletedBy)
		p("  commands=%s types=%s enums=%s", list(x.Commands), list(x.Types), list(x.Enums))
	}
	for _, w := range r.Warnings {
		p("warning %s", w)
	}
	return b.String()
}

func dumpType(t *Type) string {
	u := ""
	if t.Underlying != nil {
		u = " underlying=" + strconv.Quote(t.Underlying.CType())
	}
	return fmt.Sprintf("type %s kind=%s%s header=%s aliases=%s", t.Name, t.Kind, u, t.Header, strings.Join(t.Aliases, ","))
}

// dumpDecl renders every field of a declaration, zero values left out.
func dumpDecl(d Decl) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q name=%s type=%s", d.C(), d.Name, d.Type)
	add := func(key string, val any, zero bool) {
		if !zero {
			fmt.Fprintf(&b, " %s=%v", key, val)
		}
	}
	add("struct", d.Struct, !d.Struct)
	add("ptr", d.Pointers, d.Pointers == 0)
	add("const", d.Const, !slices.Contains(d.Const, true))
	var dims strings.Builder
	for _, a := range d.Array {
		if a.Const != "" {
			fmt.Fprintf(&dims, "[%s=%d]", a.Const, a.Size)
		} else {
			fmt.Fprintf(&dims, "[%d]", a.Size)
		}
	}
	add("array", dims.String(), d.Array == nil)
	add("bits", d.BitWidth, d.BitWidth == 0)
	add("len", d.Len, d.Len == "")
	add("altlen", d.AltLen, d.AltLen == "")
	add("optional", d.Optional, d.Optional == nil)
	add("externsync", d.ExternSync, d.ExternSync == "")
	add("noautovalidity", d.NoAutoValidity, !d.NoAutoValidity)
	add("values", d.Values, d.Values == "")
	add("selector", d.Selector, d.Selector == "")
	add("selection", d.Selection, d.Selection == nil)
	return b.String()
}
