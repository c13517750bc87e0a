package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/gen/cdispatch"
	"github.com/vkgen/vkgen/gen/layerstubs"
)

func init() {
	layerCmd := &cobra.Command{
		Use:   "layer",
		Short: "Generate Vulkan layer code (trampolines, Go glue, manifests, dispatch tables)",
		Long: `layer generates the code of vkgen layers. "layer generate" reads a layer
package's ` + layerstubs.SpecFile + ` and writes its C trampolines, Go hook glue and
manifest; "layer dispatch" writes the framework's C dispatch table. See
docs/layers.md.`,
	}

	var reg, dir string
	gen := &cobra.Command{
		Use:   "generate [--registry PATH] [--dir DIR]",
		Short: "Generate a layer package's stubs and manifest from its " + layerstubs.SpecFile,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			spec, err := layerstubs.LoadSpec(filepath.Join(dir, layerstubs.SpecFile))
			if err != nil {
				return usageErr(err)
			}
			r, err := loadRegistry(cmd, reg)
			if err != nil {
				return err
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return err
			}
			files, err := layerstubs.Generate(r, spec, layerstubs.PackageName(abs))
			if err != nil {
				return err
			}
			for _, f := range files {
				if err := writeIfChanged(filepath.Join(dir, f.Name), f.Data); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d files for %s\n", dir, len(files), spec.Name)
			return nil
		},
	}
	registryFlag(gen, &reg)
	gen.Flags().StringVar(&dir, "dir", ".", "layer package directory holding "+layerstubs.SpecFile)

	var dreg, out string
	disp := &cobra.Command{
		Use:   "dispatch [--registry PATH] [--out DIR]",
		Short: "Generate the C dispatch table (vkgen_dispatch.h/.c) of the layer framework",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := loadRegistry(cmd, dreg)
			if err != nil {
				return err
			}
			files, err := cdispatch.Generate(r)
			if err != nil {
				return err
			}
			for _, f := range files {
				if err := writeIfChanged(filepath.Join(out, f.Name), f.Data); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: dispatch table for VK_HEADER_VERSION %d\n", out, r.HeaderVersion)
			return nil
		},
	}
	registryFlag(disp, &dreg)
	disp.Flags().StringVar(&out, "out", "layer", "output directory")

	layerCmd.AddCommand(gen, disp)
	rootCmd.AddCommand(layerCmd)
}
