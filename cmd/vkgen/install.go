package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/layer/install"
)

func init() {
	var o install.Options
	var uninstall bool
	cmd := &cobra.Command{
		Use:   "install-layers",
		Short: "Install the built layer library with explicit and implicit manifests",
		Long: `install-layers copies libVkLayer_vkgen.so from a build folder (made by
scripts/build-layers.sh) to LIBDIR and writes two manifests per layer, naming
the library by its installed path:

  DATADIR/vulkan/explicit_layer.d/VkLayer_vkgen_<layer>.json
      enabled by name: VK_INSTANCE_LAYERS=VK_LAYER_VKGEN_DeviceMemoryReport,
      VK_LOADER_LAYERS_ENABLE or the application's enabled layers
  DATADIR/vulkan/implicit_layer.d/VkLayer_vkgen_<layer>.json
      enabled by one variable, VKGEN_<LAYER>=1 (VKGEN_MEMREPORT=1,
      VKGEN_DEBUGMARKER=1); DISABLE_VKGEN_<LAYER>=1 turns it off again

An application run without those variables does not load the library.
With --prefix ~/.local the loader finds the layers for your user; the
Debian package (scripts/build-deb.sh) uses --prefix /usr under --destdir.
--uninstall removes exactly those files. See docs/install.md.`,
		Example: `  scripts/build-layers.sh build/layers
  vkgen install-layers --from build/layers --prefix ~/.local
  VKGEN_MEMREPORT=1 VK_VKGEN_TRACE_FILE=/tmp/app-%p.pftrace your-vulkan-app
  vkgen install-layers --from build/layers --prefix ~/.local --uninstall`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Prefix == "" {
				return usageErr(fmt.Errorf("--prefix is required (for example ~/.local or /usr)"))
			}
			if !filepath.IsAbs(o.Prefix) {
				return usageErr(fmt.Errorf("--prefix %q must be an absolute path", o.Prefix))
			}
			op, verb := install.Install, "installed"
			if uninstall {
				op, verb = install.Uninstall, "removed"
			}
			files, err := op(o)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s:\n  %s\n", verb, strings.Join(files, "\n  "))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.From, "from", "build/layers", "build `DIR` holding libVkLayer_vkgen.so and VkLayer_vkgen_*.json")
	f.StringVar(&o.Prefix, "prefix", "", "installation prefix `DIR` (~/.local for your user, /usr for the system)")
	f.StringVar(&o.LibDir, "libdir", "", "`DIR` for the library (default PREFIX/lib/vkgen)")
	f.StringVar(&o.DataDir, "datadir", "", "`DIR` holding vulkan/*_layer.d (default PREFIX/share)")
	f.StringVar(&o.DestDir, "destdir", "", "staging root `DIR` to write under, for packaging (manifests still name PREFIX paths)")
	f.StringSliceVar(&o.Layers, "layers", nil, "layers to install, by manifest short name (default every one built: debugmarker, memreport, example)")
	f.BoolVar(&uninstall, "uninstall", false, "remove what the same options installed")
	rootCmd.AddCommand(cmd)
}
