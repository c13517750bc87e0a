package layerstubs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
)

// The rules of Vulkan Configurator's layer-manifest JSON schema (LunarG's
// VulkanTools, vkconfig_core/layers/layers_schema.json) that our manifests
// touch, restated: required members and their types, the setting types and
// the JSON type each one's default must have, the members a setting may
// carry, and the enumerations.
var (
	versionPattern  = regexp.MustCompile(`^1\.[0-9]+\.[0-9]+`)
	layerRequired   = []string{"name", "library_path", "api_version", "implementation_version", "description"}
	settingRequired = []string{"key", "label", "description", "type", "default"}
	settingAllowed  = map[string]bool{"key": true, "env": true, "label": true, "description": true, "url": true,
		"platforms": true, "status": true, "view": true, "type": true, "default": true}
	numericAllowed = map[string]bool{"range": true, "unit": true}
	platforms      = []string{"WINDOWS", "LINUX", "MACOS", "ANDROID"}
	// defaultKind is the JSON type of "default" for each setting type.
	defaultKind = map[string]string{"STRING": "string", "SAVE_FOLDER": "string", "SAVE_FILE": "string",
		"LOAD_FILE": "string", "FRAMES": "string", "BOOL": "boolean", "INT": "integer", "FLOAT": "number"}
)

func jsonKind(v any) string {
	switch x := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	}
	return "other"
}

// TestManifestsFollowTheSchema checks every committed layer manifest
// against those rules. One rule is knowingly not followed: the schema's
// name pattern ^VK_LAYER_[A-Z0-9]+_[a-z0-9_]+ wants a lower-case name after
// the vendor; the layers keep the names the loader, users and the
// reference (VK_LAYER_GOOGLE_DebugMarker) use.
func TestManifestsFollowTheSchema(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(testenv.Root(), "layer", "*", "VkLayer_vkgen_*.gen.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	withSettings := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			FileFormatVersion string                     `json:"file_format_version"`
			Layer             map[string]json.RawMessage `json:"layer"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !versionPattern.MatchString(m.FileFormatVersion) {
			t.Errorf("%s: file_format_version %q", p, m.FileFormatVersion)
		}
		for _, k := range layerRequired {
			var s string
			if err := json.Unmarshal(m.Layer[k], &s); err != nil {
				t.Errorf("%s: layer.%s must be a string: %v", p, k, err)
			}
		}
		var api string
		json.Unmarshal(m.Layer["api_version"], &api)
		if !versionPattern.MatchString(api) {
			t.Errorf("%s: api_version %q", p, api)
		}
		var features struct {
			Settings []map[string]any `json:"settings"`
		}
		if raw, ok := m.Layer["features"]; ok {
			if err := json.Unmarshal(raw, &features); err != nil {
				t.Fatalf("%s: features: %v", p, err)
			}
			withSettings++
		}
		keys := map[string]bool{}
		for _, s := range features.Settings {
			key, _ := s["key"].(string)
			if keys[key] {
				t.Errorf("%s: setting %q twice", p, key)
			}
			keys[key] = true
			for _, r := range settingRequired {
				if _, ok := s[r]; !ok {
					t.Errorf("%s: setting %q lacks %s", p, key, r)
				}
			}
			typ, _ := s["type"].(string)
			want, known := defaultKind[typ]
			if !known {
				t.Errorf("%s: setting %q: type %q is none of the schema's", p, key, typ)
			}
			if got := jsonKind(s["default"]); got != want && !(want == "number" && got == "integer") {
				t.Errorf("%s: setting %q (%s): default is %s, want %s", p, key, typ, got, want)
			}
			for member := range s {
				if !settingAllowed[member] && !(numericAllowed[member] && (typ == "INT" || typ == "FLOAT")) {
					t.Errorf("%s: setting %q: member %q is not allowed for %s", p, key, member, typ)
				}
			}
			for _, pl := range s["platforms"].([]any) {
				if !slices.Contains(platforms, pl.(string)) {
					t.Errorf("%s: setting %q: platform %v", p, key, pl)
				}
			}
			if r, ok := s["range"].(map[string]any); ok {
				for _, bound := range []string{"min", "max"} {
					if jsonKind(r[bound]) != "integer" {
						t.Errorf("%s: setting %q: range.%s %v", p, key, bound, r[bound])
					}
				}
			}
		}
		if len(features.Settings) > 0 {
			got := make([]string, 0, len(keys))
			for k := range keys {
				got = append(got, k)
			}
			sort.Strings(got)
			t.Logf("%s: settings %v", filepath.Base(p), got)
		}
	}
	if withSettings < 2 {
		t.Errorf("%d manifests declare settings, want DebugMarker's and DeviceMemoryReport's", withSettings)
	}
}
