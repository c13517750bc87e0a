package tracing_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/vktest"
	"github.com/vkgen/vkgen/layer/tracing"
)

// runSettingsProg runs testdata/settingsprog.c through the real loader with
// DebugMarker enabled; the program chains a VkLayerSettingsCreateInfoEXT whose
// trace_file is apiTrace. It returns the program's stderr.
func runSettingsProg(t *testing.T, apiTrace string, extraEnv ...string) string {
	t.Helper()
	prog := vktest.Program(t, "layer/tracing/testdata/settingsprog.c")
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, layerName, apiTrace)
	cmd.Env = append(vktest.Env(t, layerName), extraEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || !strings.Contains(stdout.String(), "settings ok") {
		t.Fatalf("settingsprog: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	return stderr.String()
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Each source of the Khronos layer-settings convention configures the
// trace file through the real loader, in the documented precedence
// (environment, then vk_layer_settings.txt, then the application's
// VkLayerSettingsCreateInfoEXT), and bad values are reported once, naming
// the setting and its source.
func TestSettingsSources(t *testing.T) {
	dir := t.TempDir()
	apiTrace := filepath.Join(dir, "api.pftrace")
	noSystem := tracing.EnvSystem + "=0"
	noFile := tracing.EnvSettingsPath + "=" + filepath.Join(dir, "none")

	t.Run("CreateInfo", func(t *testing.T) {
		stderr := runSettingsProg(t, apiTrace, noSystem, noFile)
		if readNames(t, apiTrace)["settings.buffer"] != 1 {
			t.Errorf("the trace file named by VkLayerSettingsCreateInfoEXT lacks the buffer's name")
		}
		for _, want := range []string{
			"vkgen: settings: trace_buffer_kb from VkLayerSettingsCreateInfoEXT: type VK_LAYER_SETTING_TYPE_BOOL32_EXT, want an integer type; ignored",
			"vkgen: settings: unknown setting no_such_setting of VK_LAYER_VKGEN_DebugMarker in VkLayerSettingsCreateInfoEXT",
		} {
			if n := strings.Count(stderr, want); n != 1 {
				t.Errorf("%q reported %d times, want once:\n%s", want, n, stderr)
			}
		}
	})

	t.Run("FileOverCreateInfo", func(t *testing.T) {
		api, fromFile := filepath.Join(dir, "api2.pftrace"), filepath.Join(dir, "file.pftrace")
		settings := filepath.Join(dir, "vk_layer_settings.txt")
		text := "# vkgen\nvkgen_debugmarker.trace_file = " + fromFile + "\nvkgen_debugmarker.perfetto_system = maybe\n"
		if err := os.WriteFile(settings, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		stderr := runSettingsProg(t, api, tracing.EnvSettingsPath+"="+settings)
		if exists(api) || readNames(t, fromFile)["settings.buffer"] != 1 {
			t.Errorf("vk_layer_settings.txt did not win over the create info (create info's file exists: %v)", exists(api))
		}
		want := `vkgen: settings: perfetto_system from ` + settings + `:3: "maybe" is not a boolean`
		if strings.Count(stderr, want) != 1 {
			t.Errorf("bad value not reported once with file and line: want %q in\n%s", want, stderr)
		}
	})

	t.Run("EnvironmentOverFile", func(t *testing.T) {
		api, fromFile, fromEnv := filepath.Join(dir, "api3.pftrace"), filepath.Join(dir, "file3.pftrace"), filepath.Join(dir, "env.pftrace")
		settings := filepath.Join(dir, "vk_layer_settings3.txt")
		if err := os.WriteFile(settings, []byte("vkgen_debugmarker.trace_file = "+fromFile+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		runSettingsProg(t, api, noSystem, tracing.EnvSettingsPath+"="+settings, "VK_VKGEN_DEBUGMARKER_TRACE_FILE="+fromEnv)
		if exists(api) || exists(fromFile) || readNames(t, fromEnv)["settings.buffer"] != 1 {
			t.Errorf("VK_VKGEN_DEBUGMARKER_TRACE_FILE did not win (create info's file %v, settings file's %v)", exists(api), exists(fromFile))
		}
	})
}
