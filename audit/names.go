package audit

import (
	"strconv"
	"strings"

	"github.com/vkgen/vkgen/gen/objtypes"
)

// names resolves the spellings a table uses to registry values: C names
// exactly (as the compiler would), bindings' members (Go constants,
// vulkan.hpp eBuffer, ash BUFFER, Zig buffer) by their letters alone.
type names struct {
	t      *objtypes.Tables
	dByKey map[string]string // loose key of a member -> enumerant
	oByKey map[string]string
	revD   map[string]objtypes.DebugReportType // VkObjectType name -> its debug-report value
	// byValue names the value of each enum ('D', 'O') by number.
	byValue map[byte]map[int64]string
}

func newNames(t *objtypes.Tables) *names {
	n := &names{t: t, dByKey: map[string]string{}, oByKey: map[string]string{}, revD: map[string]objtypes.DebugReportType{},
		byValue: map[byte]map[int64]string{'D': {}, 'O': {}}}
	// Full keys first, so that a stripped key never shadows a full one.
	for _, strip := range []bool{false, true} {
		for _, d := range t.DebugReport {
			for _, e := range append([]string{d.Name}, d.Aliases...) {
				part := strings.TrimPrefix(e, objtypes.DebugReportPrefix)
				if strip {
					part = strings.TrimSuffix(part, "_EXT")
				}
				if k := loose(part); n.dByKey[k] == "" {
					n.dByKey[k] = e
				}
			}
		}
	}
	for _, o := range t.ObjectTypes {
		for _, e := range append([]string{o.Name}, o.Aliases...) {
			n.oByKey[loose(strings.TrimPrefix(e, objtypes.ObjectTypePrefix))] = e
		}
	}
	for _, d := range t.DebugReport {
		n.byValue['D'][d.Value] = d.Name
		if _, dup := n.revD[d.ObjectType]; d.ObjectType != "" && !dup {
			n.revD[d.ObjectType] = d
		}
	}
	for _, o := range t.ObjectTypes {
		n.byValue['O'][o.Value] = o.Name
	}
	return n
}

// loose lower-cases a name and drops its underscores: SURFACE_KHR, SurfaceKHR
// and surface_khr agree.
func loose(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "_", ""))
}

// member is the part of a binding's spelling that names the value, "" for
// C names: ObjectType::eBuffer -> Buffer, DebugReportObjectTypeBuffer -> Buffer.
func member(spelling string) string {
	if strings.HasPrefix(spelling, "VK_") {
		return ""
	}
	m := spelling
	if i := strings.LastIndexAny(m, ".:"); i >= 0 {
		m = m[i+1:]
	} else if rest, ok := strings.CutPrefix(m, "DebugReportObjectType"); ok {
		m = rest
	} else {
		m = strings.TrimPrefix(m, "ObjectType")
	}
	if len(m) > 1 && m[0] == 'e' && m[1] >= 'A' && m[1] <= 'Z' { // vulkan.hpp
		m = m[1:]
	}
	return m
}

// cname is the C name a row's spelling stands for ("" when none): a
// positional array's "[9]" by value, a binding's member by its letters
// (some bindings keep the C prefix in members, VkObjectType::OBJECT_TYPE_BUFFER,
// which carries no information), a C name as it is (matched exactly).
func (n *names) cname(kind byte, spelling string) string {
	if v, ok := position(spelling); ok {
		return n.byValue[kind][v]
	}
	m := member(spelling)
	if m == "" {
		return spelling
	}
	if kind == 'D' {
		return n.dByKey[strings.TrimPrefix(loose(m), "debugreportobjecttype")]
	}
	return n.oByKey[strings.TrimPrefix(loose(m), "objecttype")]
}

func (n *names) debugReport(spelling string) (objtypes.DebugReportType, bool) {
	return n.t.DebugReportByName(n.cname('D', spelling))
}

func (n *names) objectType(spelling string) (objtypes.ObjectType, bool) {
	return n.t.ObjectTypeByName(n.cname('O', spelling))
}

// position reads the key of a positional array row, "[9]".
func position(spelling string) (int64, bool) {
	inner, ok := strings.CutPrefix(spelling, "[")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSuffix(inner, "]"), 10, 64)
	return v, err == nil
}

// stem is the loosest form of a name, for linking a spelling to the
// registry's: prefix, every trailing _EXT and underscores dropped, so that
// VALIDATION_CACHE_EXT_EXT and VALIDATION_CACHE_EXT meet.
func stem(spelling string) string {
	s := member(spelling)
	if s == "" {
		s = strings.TrimPrefix(strings.TrimPrefix(spelling, objtypes.DebugReportPrefix), objtypes.ObjectTypePrefix)
	}
	s = loose(s)
	for strings.HasSuffix(s, "ext") && len(s) > 3 {
		s = strings.TrimSuffix(s, "ext")
	}
	return s
}

// retired are values Khronos removed from the registry, by stem, with the
// extension that defined them: VK_NVX_device_generated_commands (still in
// the 1.2.131 registry, gone by 1.2.182 for VkObjectType and by 1.3.239 for
// VkDebugReportObjectTypeEXT).
var retired = map[string]string{
	"objecttablenvx":            "VK_NVX_device_generated_commands",
	"indirectcommandslayoutnvx": "VK_NVX_device_generated_commands",
}

// nearest returns the registry name of kind ('D' or 'O') within two edits
// of spelling's stem, "" when none is that close.
func (n *names) nearest(kind byte, spelling string) string {
	s := stem(spelling)
	if len(s) < 5 {
		return ""
	}
	best, bestD := "", 3
	try := func(name string) {
		if d := editDistance(s, stem(name), bestD); d < bestD {
			best, bestD = name, d
		}
	}
	if kind == 'D' {
		for _, d := range n.t.DebugReport {
			try(d.Name)
		}
	} else {
		for _, o := range n.t.ObjectTypes {
			try(o.Name)
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, or limit when it is
// at least limit (names are short; this stays cheap).
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}
