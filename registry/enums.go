package registry

import (
	"math"
	"strconv"
	"strings"

	"github.com/beevik/etree"
)

// extBase is where extension enumerant values start: 1e9 + (number-1)*1000 + offset.
const extBase = 1000000000

func (b *builder) enumBlock(sec *etree.Element) error {
	b.checkAttrs(sec, "enums")
	name := attr(sec, "name")
	e := &Enum{Name: name, BitWidth: 32, ValueByName: map[string]*EnumValue{}}
	switch t := attr(sec, "type"); {
	case t == "bitmask":
		e.Kind = EnumKindBitmask
	case t == "enum":
	case t == "constants" || name == "API Constants":
		e.Kind = EnumKindConstants
	default:
		b.warnf(sec, "<enums name=%q> has unknown type %q; treated as enum", name, t)
	}
	if w := attr(sec, "bitwidth"); w != "" {
		n, err := strconv.Atoi(w)
		if err != nil || (n != 32 && n != 64) {
			return b.errorf(sec, "<enums name=%q>: bitwidth %q is not 32 or 64", name, w)
		}
		e.BitWidth = n
	}
	if prev := b.enums[name]; prev != nil {
		b.warnf(sec, "<enums name=%q> appears twice; values merged", name)
		e = prev
	} else {
		b.enums[name] = e
		b.reg.Enums = append(b.reg.Enums, e)
	}
	for _, el := range sec.ChildElements() {
		switch el.Tag {
		case "enum":
			b.checkAttrs(el, "enum")
			if !supports(attr(el, "api"), b.api) {
				continue
			}
			v, err := b.enumValue(el, e, 0)
			if err != nil {
				return err
			}
			b.addValue(el, e, v)
		case "unused":
			b.checkAttrs(el, "unused")
		case "comment":
		default:
			b.warnf(el, "unknown element <%s> in <enums>", el.Tag)
		}
	}
	return nil
}

// enumValue computes one enumerant. extNumber is the number of the
// extension whose <require> holds el (0 in <enums> blocks and features).
func (b *builder) enumValue(el *etree.Element, e *Enum, extNumber int) (*EnumValue, error) {
	v := &EnumValue{
		Name:       attr(el, "name"),
		Alias:      attr(el, "alias"),
		Comment:    attr(el, "comment"),
		Deprecated: attr(el, "deprecated"),
		Protect:    attr(el, "protect"),
		Type:       attr(el, "type"),
	}
	if v.Name == "" {
		return nil, b.errorf(el, "<enum> without a name")
	}
	constants := e != nil && e.Kind == EnumKindConstants
	switch {
	case v.Alias != "":
		// Resolved once every value is known (see resolveEnumAliases).
	case el.SelectAttr("bitpos") != nil:
		s := attr(el, "bitpos")
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 63 {
			return nil, b.errorf(el, "enum %s: bitpos %q is not a number in 0..63", v.Name, s)
		}
		v.Value = int64(uint64(1) << n)
	case el.SelectAttr("offset") != nil:
		s := attr(el, "offset")
		off, err := strconv.Atoi(s)
		if err != nil || off < 0 {
			return nil, b.errorf(el, "enum %s: offset %q is not a non-negative number", v.Name, s)
		}
		num := extNumber
		if s := attr(el, "extnumber"); s != "" {
			if num, err = strconv.Atoi(s); err != nil || num <= 0 {
				return nil, b.errorf(el, "enum %s: extnumber %q is not a positive number", v.Name, s)
			}
		}
		if num <= 0 {
			return nil, b.errorf(el, "enum %s: offset without an extension number (no extnumber and not inside an <extension>)", v.Name)
		}
		v.Value = extBase + int64(num-1)*1000 + int64(off)
		if attr(el, "dir") == "-" {
			v.Value = -v.Value
		}
	case el.SelectAttr("value") != nil:
		s := attr(el, "value")
		n, ok := parseCInt(s)
		switch {
		case ok:
			v.Value = n
		case constants:
			v.Text = s
			v.Value, _ = parseCConstant(s)
		default:
			return nil, b.errorf(el, "enum %s: value %q is not a number", v.Name, s)
		}
		if constants && v.Text == "" && s != strconv.FormatInt(n, 10) {
			v.Text = s
		}
	default:
		if e != nil {
			return nil, b.errorf(el, "enum %s has no value, bitpos, offset or alias", v.Name)
		}
	}
	return v, nil
}

// parseCInt parses the integer forms the registry uses: decimal, hex,
// negative numbers.
func parseCInt(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	u := strings.TrimPrefix(s, "-")
	var n uint64
	var err error
	if strings.HasPrefix(u, "0x") || strings.HasPrefix(u, "0X") {
		n, err = strconv.ParseUint(u[2:], 16, 64)
	} else {
		n, err = strconv.ParseUint(u, 10, 64)
	}
	if err != nil || (neg && n > math.MaxInt64) {
		return 0, false
	}
	if neg {
		return -int64(n), true
	}
	return int64(n), true
}

// parseCConstant evaluates the C constant expressions API Constants use:
// (~0U), (~1U), (~0ULL), 1000.0F (not integral: false).
func parseCConstant(s string) (int64, bool) {
	t := strings.TrimSuffix(strings.TrimPrefix(s, "("), ")")
	if !strings.HasPrefix(t, "~") {
		return 0, false
	}
	t = t[1:]
	wide := strings.HasSuffix(t, "ULL")
	t = strings.TrimRight(t, "UL")
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil {
		return 0, false
	}
	if wide {
		return int64(^n), true
	}
	return int64(^uint32(n)), true
}

// addValue appends v to e unless an enumerant of that name exists: the same
// value again (features re-requiring a promoted extension's enumerant) is
// fine, a different one is a warning and the first definition wins.
func (b *builder) addValue(el *etree.Element, e *Enum, v *EnumValue) {
	if prev := b.values[v.Name]; prev != nil {
		if prev.Alias != v.Alias || (v.Alias == "" && prev.Value != v.Value) || prev.Text != v.Text {
			b.warnf(el, "enum %s redefined with a different value (%s); keeping the first (%s)",
				v.Name, describe(v), describe(prev))
		}
		return
	}
	b.values[v.Name] = v
	if e != nil {
		e.Values = append(e.Values, v)
		e.ValueByName[v.Name] = v
	}
}

func describe(v *EnumValue) string {
	switch {
	case v.Alias != "":
		return "alias " + v.Alias
	case v.Text != "":
		return v.Text
	}
	return strconv.FormatInt(v.Value, 10)
}

// resolveEnumAliases gives alias enumerants their target's value, following
// chains.
func (b *builder) resolveEnumAliases() {
	for _, e := range b.reg.Enums {
		for _, v := range e.Values {
			if v.Alias == "" {
				continue
			}
			t := v
			for range 16 {
				next := b.values[t.Alias]
				if next == nil {
					break
				}
				t = next
				if t.Alias == "" {
					break
				}
			}
			if t.Alias == "" {
				v.Value, v.Text = t.Value, t.Text
			} else {
				b.warn(Diagnostic{File: b.file,
					Msg: "enum " + v.Name + ": alias " + v.Alias + " does not resolve to a value"})
			}
		}
	}
}
