package layerstubs

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/vkgen/vkgen/layer/settings"
)

// defFields are the keys of a setting's declaration.
var defFields = jsonFields(reflect.TypeFor[settings.Def]())

// settingsFileFields are the keys an object of a settings file may hold.
func settingsFileFields(path string) []string {
	switch {
	case path == "":
		return []string{"settings"}
	case settingsElemRE.MatchString(path):
		return defFields
	}
	return nil
}

// readSettings reads the spec's settings_include files and decodes its own
// settings (but the entries in bad, whose unknown fields are reported),
// checking each and that no key is declared twice.
func (s *Spec) readSettings(bad map[string]bool) Errors {
	var errs Errors
	s.ownerOf = map[string]string{}
	add := func(defs []settings.Def, owner string, at func(i int) token.Position) {
		for i, d := range defs {
			if first, dup := s.ownerOf[d.Key]; dup {
				errs = append(errs, Diag{at(i), fmt.Sprintf("setting %s is declared twice (first by %s)", d.Key, first)})
				continue
			}
			s.ownerOf[d.Key] = owner
			s.defs = append(s.defs, d)
		}
	}
	for i, name := range s.SettingsInclude {
		name = filepath.Join(filepath.Dir(s.file), name)
		at := s.Pos(fmt.Sprintf("settings_include[%d]", i))
		defs, es := loadSettingsFile(name, at)
		errs = append(errs, es...)
		add(defs, name, func(int) token.Position { return at })
	}
	own, es := decodeDefs(&s.jsonText, s.Settings, bad)
	errs = append(errs, es...)
	s.own = own
	add(own, s.Name, func(i int) token.Position { return s.Pos(fmt.Sprintf("settings[%d].key", i)) })
	return errs
}

// loadSettingsFile reads a settings file ({"settings": [...]}) named at
// at in a spec; its mistakes are at their line:col in it.
func loadSettingsFile(name string, at token.Position) ([]settings.Def, Errors) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, Errors{{at, fmt.Sprintf("settings_include: %v", err)}}
	}
	t := &jsonText{file: name, data: data}
	var unknown []string
	pos, serr := walkSpec(data, settingsFileFields, func(key string, _ []string) { unknown = append(unknown, key) })
	t.pos = pos
	if serr != nil {
		return nil, Errors{{t.at(serr.off), serr.msg}}
	}
	var errs Errors
	bad := map[string]bool{}
	for _, key := range unknown {
		field, parent := key[strings.LastIndexAny(key, ".]")+1:], key[:max(strings.LastIndex(key, "."), 0)]
		errs = append(errs, Diag{t.Pos(key), fmt.Sprintf("unknown field %q%s", field, didYouMean(closest(field, settingsFileFields(parent), 3)))})
		bad[parent] = true
	}
	var f struct {
		Settings []json.RawMessage `json:"settings"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, append(errs, Diag{t.Pos(""), "invalid settings file: " + err.Error()})
	}
	defs, es := decodeDefs(t, f.Settings, bad)
	return defs, append(errs, es...)
}

// decodeDefs decodes and checks the "settings" entries of t but those in bad.
func decodeDefs(t *jsonText, raws []json.RawMessage, bad map[string]bool) ([]settings.Def, Errors) {
	var defs []settings.Def
	var errs Errors
	for i, raw := range raws {
		key := fmt.Sprintf("settings[%d]", i)
		if bad[key] {
			continue
		}
		var d settings.Def
		if err := json.Unmarshal(raw, &d); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				errs = append(errs, Diag{t.Pos(key + "." + te.Field), fmt.Sprintf("%s: want a JSON %s, not %s", te.Field, te.Type.Kind(), te.Value)})
			} else {
				errs = append(errs, Diag{t.Pos(key), err.Error()})
			}
			continue
		}
		if field, err := d.Check(); err != nil {
			errs = append(errs, Diag{t.Pos(key + "." + field), err.Error()})
			continue
		}
		defs = append(defs, d)
	}
	return defs, errs
}

// goDef is d as a settings.Def literal of the generated glue.
func goDef(d settings.Def) string {
	def := fmt.Sprintf("%q", d.Default)
	switch d.Type {
	case settings.Bool:
		def = fmt.Sprint(d.Default)
	case settings.Int:
		def = fmt.Sprintf("int64(%d)", d.Default)
	}
	typ := map[settings.Type]string{settings.Bool: "Bool", settings.Int: "Int", settings.String: "String", settings.SaveFile: "SaveFile"}[d.Type]
	return fmt.Sprintf("{Key: %q, Label: %q, Type: settings.%s, Default: %s, Min: %d, Max: %d,\n\t\tDescription: %q}", d.Key, d.Label, typ, def, d.Min, d.Max, d.Description)
}
