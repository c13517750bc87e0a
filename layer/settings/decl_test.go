package settings

import (
	"reflect"
	"strings"
	"testing"
)

// A settings file decodes to the Defs it declares, defaults typed by the
// setting's type; mistakes are errors, never a panic.
func TestDecode(t *testing.T) {
	got, err := Decode([]byte(`{"settings": [
		{"key": "trace_file", "label": "Trace file", "description": "d", "type": "SAVE_FILE", "default": ""},
		{"key": "perfetto_system", "label": "System backend", "description": "d", "type": "BOOL", "default": true},
		{"key": "buffer_kb", "label": "Buffer", "description": "d", "type": "INT", "default": 1024, "min": 4, "max": 1048576}]}`))
	if err != nil || !reflect.DeepEqual(got, defs) {
		t.Fatalf("Decode = %+v, %v; want %+v", got, err, defs)
	}
	for text, want := range map[string]string{
		`{"settings": [{"key": "a", "label": "A", "description": "d", "type": "INT", "default": true}]}`:        "default",
		`{"settings": [{"key": "a", "label": "A", "description": "d", "type": "INT", "default": 5, "max": 4}]}`: "5 is outside 0..4",
		`{"settings": [{"key": "a", "label": "A", "description": "d", "type": "BOOL", "colour": 1}]}`:           "colour",
		`{"settings": [{"key": "a", "label": "", "description": "d", "type": "BOOL"}]}`:                         "label is empty",
		`{"setting": []}`: "setting",
		`[`:               "EOF",
	} {
		if _, err := Decode([]byte(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%s) = %v, want an error with %q", text, err, want)
		}
	}
}

// Check names the field at fault of a Def made in Go, never panicking.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		d     Def
		field string
	}{
		{defs[2], ""},
		{Def{Key: "n", Label: "N", Description: "d", Type: Int, Default: 3}, "default"},
		{Def{Key: "b", Label: "B", Description: "d", Type: Bool}, "default"},
		{Def{Key: "s", Label: "S", Description: "d", Type: String, Default: "", Max: 2}, "max"},
		{Def{Key: "n", Label: "N", Description: "d", Type: Int, Default: int64(0), Min: 3, Max: 2}, "min"},
	} {
		if field, err := c.d.Check(); field != c.field {
			t.Errorf("Check(%+v) = %q, %v; want field %q", c.d, field, err, c.field)
		}
	}
}

// Known is what owners registered, in order; a key registered again by
// another owner keeps its first declaration.
func TestRegisterKnown(t *testing.T) {
	saved, savedOwners := known, ownerOf
	t.Cleanup(func() { known, ownerOf = saved, savedOwners })
	known, ownerOf = nil, map[string]string{}
	Register("a", defs[:2])
	Register("b", []Def{{Key: "trace_file", Label: "Other", Description: "d", Type: Bool, Default: false}, defs[2]})
	if got := Known(); !reflect.DeepEqual(got, defs) {
		t.Errorf("Known = %+v, want %+v", got, defs)
	}
}
