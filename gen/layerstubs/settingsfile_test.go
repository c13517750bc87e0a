package layerstubs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/testreg"
	"github.com/vkgen/vkgen/layer/settings"
)

// A spec's settings and the settings files it includes are checked like
// the rest of the spec: each mistake at its line:col, in the file that
// holds it.
func TestSpecSettingsErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inc := write("common.json", `{"settings": [
  {"key": "shared", "label": "S", "description": "d", "type": "BOOL", "default": true},
  {"key": "depth", "label": "D", "description": "d", "type": "INT", "default": 100, "min": 0, "max": 64},
  {"key": "k", "label": "K", "description": "d", "type": "STRING", "defualt": ""}
]}`)
	p := write(SpecFile, `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d",
  "tracing_settings": true,
  "settings_include": ["common.json", "absent.json"],
  "settings": [
    {"key": "shared", "label": "S", "description": "d", "type": "BOOL"},
    {"key": "n", "label": "N", "description": "d", "type": "INT", "default": "1"},
    {"key": "Bad", "label": "B", "description": "d", "type": "BOOL"},
    {"key": "f", "label": "F", "description": "d", "type": "FLOAT"},
    {"key": "s", "label": "S", "description": "d", "type": "STRING", "max": 3}
  ]}`)
	_, err := LoadSpec(p)
	for _, w := range []string{
		p + `:2:3: "tracing_settings" is no longer declared`,
		inc + `:3:80: setting depth: default 100 is outside 0..64`,
		inc + `:4:68: unknown field "defualt"; did you mean default?`,
		p + `:3:39: settings_include: open ` + filepath.Join(dir, "absent.json"),
		p + `:5:13: setting shared is declared twice (first by ` + inc + `)`,
		p + `:6:78: default: want a JSON int64, not string`,
		p + `:7:13: setting key "Bad" is not lower_snake_case`,
		p + `:8:60: setting f: type "FLOAT" is none of BOOL, INT, STRING, SAVE_FILE`,
		p + `:9:77: setting s: min and max bound only an INT`,
	} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("want %q in\n%v", w, err)
		}
	}
}

// The tracing settings file layer/tracing embeds is one the generator
// reads, and the specs of the tree declare each key once.
func TestSpecSettingsOfTheTree(t *testing.T) {
	s, err := LoadSpec(filepath.Join(testenv.Root(), "layer", "memreport", SpecFile))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(testenv.Root(), "layer", "tracing", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	tracing, err := settings.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.defs) != len(tracing)+len(s.own) || len(s.own) == 0 || s.defs[0].Key != tracing[0].Key {
		t.Errorf("DeviceMemoryReport's settings: %d included and own, want the %d of tracing then its %d", len(s.defs), len(tracing), len(s.own))
	}
}

// A layer's own settings reach its manifest and its glue, which registers
// them, whether or not it has Go hooks; it advertises VK_EXT_layer_settings.
func TestSpecSettingsGenerated(t *testing.T) {
	r := testreg.Load(t, testenv.PinnedRegistry)
	files, err := gen(t, r, `{"name": "VK_LAYER_T_t", "symbol": "t", "description": "d",
  "settings": [{"key": "depth", "label": "Depth", "description": "How deep.", "type": "INT", "default": 4, "min": 0, "max": 8}]}`, "")
	if err != nil {
		t.Fatal(err)
	}
	glue, manifest := files["vkgen_t_glue.gen.go"], files["VkLayer_vkgen_t.gen.json"]
	for _, want := range []string{`import "github.com/vkgen/vkgen/layer/settings"`, `settings.Register("VK_LAYER_T_t", []settings.Def{`,
		`{Key: "depth", Label: "Depth", Type: settings.Int, Default: int64(4), Min: 0, Max: 8,`} {
		if !strings.Contains(glue, want) {
			t.Errorf("glue lacks %q:\n%s", want, glue)
		}
	}
	for _, want := range []string{`"key": "depth"`, `"env": "VK_T_T_DEPTH"`, `"name": "VK_EXT_layer_settings"`} {
		if !strings.Contains(manifest, want) {
			t.Errorf("manifest lacks %q:\n%s", want, manifest)
		}
	}
}
