package cabi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/registry"
)

const synthetic = `<registry><types>
<type requires="vk_platform" name="char"/>
<type requires="vk_platform" name="uint8_t"/>
<type requires="vk_platform" name="uint32_t"/>
<type requires="vk_platform" name="uint64_t"/>
<type requires="vk_platform" name="void"/>
<type category="basetype">struct <name>Opaque</name>;</type>
<type category="basetype">typedef <type>uint32_t</type> <name>VkFlags</name>;</type>
<type category="bitmask">typedef <type>VkFlags</type> <name>VkF</name>;</type>
<type category="struct" name="Bits">
  <member><type>uint8_t</type> <name>a</name></member>
  <member><type>uint32_t</type> <name>b</name>:20</member>
  <member><type>VkF</type> <name>c</name>:20</member>
  <member><type>uint8_t</type> <name>d</name></member>
</type>
<type category="union" name="U">
  <member><type>char</type> <name>s</name>[5]</member>
  <member><type>uint32_t</type> <name>x</name></member>
</type>
<type category="struct" name="Outer">
  <member><type>char</type> <name>c</name></member>
  <member><type>U</type> <name>u</name>[2]</member>
  <member>const <type>void</type>* <name>p</name></member>
  <member><type>uint64_t</type> <name>m</name>[3][2]</member>
</type>
<type category="struct" name="HasOpaque"><member><type>Opaque</type> <name>o</name></member></type>
<type category="struct" name="Self"><member><type>Self</type> <name>s</name></member></type>
</types></registry>`

func TestSynthetic(t *testing.T) {
	r, err := registry.Parse(strings.NewReader(synthetic), "synthetic.xml")
	if err != nil {
		t.Fatal(err)
	}
	abi := New(r)
	for name, want := range map[string]string{
		// b fits after a in the first uint32 unit; c would straddle it (gcc agrees: sizeof 8, d at 7).
		"Bits":  "size 8 align 4: a@0 b@0+8:20 c@4+0:20 d@7",
		"U":     "size 8 align 4: s@0 x@0",
		"Outer": "size 80 align 8: c@0 u@4 p@24 m@32",
	} {
		l, err := abi.Struct(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := describe(l); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	for name, want := range map[string]string{
		"HasOpaque": "cabi: HasOpaque.o: basetype Opaque has no known layout",
		"Self":      "cabi: Self.s: cabi: Self contains itself",
		"Missing":   "cabi: Missing is not a struct or union",
	} {
		if _, err := abi.Struct(name); err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %s", name, err, want)
		}
	}
}

func describe(l *Layout) string {
	var parts []string
	for _, m := range l.Members {
		s := fmt.Sprintf("%s@%d", m.Name, m.Offset)
		if m.BitWidth > 0 {
			s += fmt.Sprintf("+%d:%d", m.Bit, m.BitWidth)
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("size %d align %d: %s", l.Size, l.Align, strings.Join(parts, " "))
}
