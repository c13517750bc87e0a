package registry

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

func TestMalformed(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"truncated", "<registry>\n  <types>\n    <type name=\"x\"", "bad.xml:3:"},
		{"unclosed", "<registry>\n  <types>\n", "bad.xml:3:1: malformed XML"},
		{"mismatched", "<registry>\n  <types></enums>\n</registry>", "bad.xml:2:"},
		{"empty", "", "bad.xml: no root element"},
		{"wrong root", "<?xml version=\"1.0\"?>\n\n  <notregistry/>", "bad.xml:3:3: root element is <notregistry>, want <registry>"},
		{"non-numeric value", "<registry>\n<enums name=\"VkE\" type=\"enum\">\n  <enum value=\"abc\" name=\"VK_E_X\"/>\n</enums>\n</registry>",
			`bad.xml:3:3: enum VK_E_X: value "abc" is not a number`},
		{"bad bitpos", "<registry>\n<enums name=\"VkE\" type=\"bitmask\">\n <enum bitpos=\"64\" name=\"VK_E_X\"/>\n</enums>\n</registry>",
			`bad.xml:3:2: enum VK_E_X: bitpos "64" is not a number in 0..63`},
		{"offset without extension number", "<registry>\n<enums name=\"VkE\" type=\"enum\"/>\n<feature api=\"vulkan\" name=\"VK_VERSION_1_0\" number=\"1.0\">\n <require>\n  <enum extends=\"VkE\" offset=\"1\" name=\"VK_E_Y\"/>\n </require>\n</feature>\n</registry>",
			"bad.xml:5:3: enum VK_E_Y: offset without an extension number"},
		{"bad extension number", "<registry><extensions>\n<extension name=\"VK_X\" number=\"x\" supported=\"vulkan\"/></extensions></registry>",
			`bad.xml:2:1: extension VK_X: number "x" is not a positive number`},
		{"command without proto", "<registry><commands>\n <command/></commands></registry>", "bad.xml:2:2: <command> without <proto>"},
		{"member without name", "<registry><types>\n <type category=\"struct\" name=\"VkS\">\n  <member><type>uint32_t</type> x</member>\n </type></types></registry>",
			"bad.xml:3:3: <member>: no <name>"},
		{"member without anything", "<registry><types>\n <type category=\"struct\" name=\"VkS\">\n  <member></member>\n </type></types></registry>",
			"bad.xml:3:3: <member>: no base type"},
		{"param without name", "<registry><commands>\n <command><proto><type>void</type> <name>vkX</name></proto>\n  <param><type>VkDevice</type></param></command></commands></registry>",
			"bad.xml:3:3: <param>: no <name>"},
		{"array size not a number", "<registry><types>\n <type category=\"struct\" name=\"VkS\">\n  <member><type>char</type> <name>s</name>[N]</member>\n </type></types></registry>",
			`bad.xml:3:3: <member> s: array size "N" is neither a number nor an <enum> constant`},
		{"array size zero", "<registry><types>\n <type category=\"struct\" name=\"VkS\">\n  <member><type>char</type> <name>s</name>[0]</member>\n </type></types></registry>",
			"bad.xml:3:3: <member> s: array size 0 is not a positive number"},
		{"array not closed", "<registry><types>\n <type category=\"struct\" name=\"VkS\">\n  <member><type>char</type> <name>s</name>[4</member>\n </type></types></registry>",
			"bad.xml:3:3: <member> s: array dimension is not closed by ]"},
		{"bad bitfield", "<registry><types>\n <type category=\"struct\" name=\"VkS\">\n  <member><type>uint32_t</type> <name>s</name>:99</member>\n </type></types></registry>",
			`bad.xml:3:3: <member> s: bitfield width "99" is not a number from 1 to 64`},
		{"basetype without name", "<registry><types>\n <type category=\"basetype\">typedef <type>uint32_t</type> VkX;</type></types></registry>",
			`bad.xml:2:2: <type category="basetype"> without <name>`},
		{"bitmask without typedef", "<registry><types>\n <type category=\"bitmask\">struct <name>VkX</name>;</type></types></registry>",
			"bad.xml:2:2: bitmask VkX is not a typedef"},
		{"old funcpointer without parentheses", "<registry><types>\n <type category=\"funcpointer\">typedef void <name>PFN_x</name>;</type></types></registry>",
			`bad.xml:2:2: funcpointer PFN_x is not "typedef R (VKAPI_PTR *NAME)(params);"`},
		{"old funcpointer bad param", "<registry><types>\n <type category=\"funcpointer\">typedef void (VKAPI_PTR *<name>PFN_x</name>)(<type>int</type>* a b);</type></types></registry>",
			`bad.xml:2:2: funcpointer PFN_x: parameter 1: unexpected "b" after the declaration`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reg, err := Parse(strings.NewReader(c.src), "bad.xml")
			if err == nil {
				t.Fatalf("no error; model %+v", reg)
			}
			if !strings.HasPrefix(err.Error(), c.want) && !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to contain %q", err, c.want)
			}
			var perr *Error
			if !errors.As(err, &perr) {
				t.Errorf("error %T is not *registry.Error", err)
			}
		})
	}
}

func TestUnknownIsWarning(t *testing.T) {
	src := `<registry>
  <frobs/>
  <types comment="x" colour="red">
    <type category="handle" wibble="1"><type>VK_DEFINE_HANDLE</type>(<name>VkInstance</name>)</type>
    <gadget/>
  </types>
  <commands>
    <command>
      <proto><type>void</type> <name>vkX</name></proto>
      <param><type>VkInstance</type> <name>instance</name></param>
      <sparkle/>
    </command>
  </commands>
  <feature api="vulkan" name="VK_VERSION_1_0" number="1.0">
    <require><command name="vkX"/><widget/></require>
  </feature>
</registry>`
	reg, err := Parse(strings.NewReader(src), "warn.xml")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"warn.xml:2:3: unknown element <frobs> in <registry>",
		`warn.xml:3:3: unknown attribute "colour" on <types>`,
		`warn.xml:4:5: unknown attribute "wibble" on <type>`,
		"warn.xml:5:5: unknown element <gadget> in <types>",
		"warn.xml:11:7: unknown element <sparkle> in <command>",
		"warn.xml:15:35: unknown element <widget> in <require>",
	}
	var got []string
	for _, w := range reg.Warnings {
		got = append(got, w.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c := reg.Command("vkX"); c == nil || c.Level != LevelInstance {
		t.Errorf("vkX = %+v", c)
	}
}

// Issue 28: one <type> with 1M unknown attributes printed 1,000,004
// warnings. The registry lists MaxWarnings and counts the rest.
func TestWarningsAreCapped(t *testing.T) {
	var attrs strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&attrs, ` a%d="1"`, i)
	}
	src := `<registry><types><type category="handle"` + attrs.String() + `><type>VK_DEFINE_HANDLE</type>(<name>VkInstance</name>)</type></types></registry>`
	reg, err := Parse(strings.NewReader(src), "attrs.xml")
	if err != nil {
		t.Fatal(err)
	}
	if len(reg.Warnings) != MaxWarnings || reg.MoreWarnings != 20_000-MaxWarnings {
		t.Fatalf("%d warnings listed and %d more, want %d and %d", len(reg.Warnings), reg.MoreWarnings, MaxWarnings, 20_000-MaxWarnings)
	}
	if w := reg.Warnings[0].String(); w != `attrs.xml:1:18: unknown attribute "a0" on <type>` {
		t.Errorf("first warning %q", w)
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	xml := filepath.Join(dir, "vk.xml")
	if err := os.WriteFile(xml, []byte("<registry/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VK_REGISTRY", "")
	t.Setenv("VULKAN_SDK", "")
	if p, _, err := Find(xml); err != nil || p != xml {
		t.Errorf("explicit: %q %v", p, err)
	}
	if _, _, err := Find(filepath.Join(dir, "missing.xml")); err == nil || !strings.Contains(err.Error(), "missing.xml") {
		t.Errorf("missing explicit path: %v", err)
	}
	t.Setenv("VK_REGISTRY", xml)
	if p, s, err := Find(""); err != nil || p != xml || len(s) != 1 {
		t.Errorf("$VK_REGISTRY: %q %v %v", p, s, err)
	}
	t.Setenv("VK_REGISTRY", "")
	sdk := filepath.Join(dir, "sdk")
	t.Setenv("VULKAN_SDK", sdk)
	p, searched, err := Find("")
	if len(searched) < 2 || searched[0] != filepath.Join(sdk, "share", "vulkan", "registry", "vk.xml") {
		t.Errorf("searched %v", searched)
	}
	if err != nil {
		for _, s := range searched {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not name %s", err, s)
			}
		}
		if !strings.Contains(err.Error(), "libvulkan-dev") || !strings.Contains(err.Error(), "LunarG Vulkan SDK") {
			t.Errorf("error %q lacks the install hint", err)
		}
	} else if p != systemRegistries[0] && p != systemRegistries[1] {
		t.Errorf("found %q", p)
	}
}

// TestFindNothing stands in for a machine with neither libvulkan-dev nor an
// SDK: the error lists every place searched and how to get a registry.
func TestFindNothing(t *testing.T) {
	dir := t.TempDir()
	old := systemRegistries
	systemRegistries = []string{filepath.Join(dir, "usr", "vk.xml"), filepath.Join(dir, "local", "vk.xml")}
	t.Cleanup(func() { systemRegistries = old })
	t.Setenv("VK_REGISTRY", "")
	t.Setenv("VULKAN_SDK", filepath.Join(dir, "sdk"))
	p, searched, err := Find("")
	if err == nil {
		t.Fatalf("found %q", p)
	}
	want := []string{filepath.Join(dir, "sdk", "share", "vulkan", "registry", "vk.xml"), systemRegistries[0], systemRegistries[1]}
	if strings.Join(searched, "|") != strings.Join(want, "|") {
		t.Errorf("searched %v, want %v", searched, want)
	}
	for _, s := range append(want, "libvulkan-dev", "LunarG Vulkan SDK", "$VK_REGISTRY") {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixtureDir, "*.txtar"))
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, af := range ar.Files {
			if af.Name == "vk.xml" {
				f.Add(af.Data)
			}
		}
	}
	f.Add([]byte("<registry><enums name=\"E\" type=\"enum\"><enum value=\"0x\" name=\"V\"/></enums></registry>"))
	f.Fuzz(func(t *testing.T, src []byte) {
		reg, err := Parse(bytes.NewReader(src), "fuzz.xml", WithAPI("vulkan"))
		if (reg == nil) == (err == nil) {
			t.Fatalf("Parse returned reg=%v err=%v", reg != nil, err)
		}
		if reg != nil {
			for _, w := range reg.Warnings {
				_ = w.String()
			}
		}
	})
}
