package main

import (
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/gen/layerstubs"
	"github.com/vkgen/vkgen/gen/pipeline"
)

func init() {
	layerCmd := &cobra.Command{
		Use:   "layer",
		Short: "Create vkgen layers and show the hooks they implement",
		Long: `layer helps write vkgen layers (docs/layers.md). A layer is a package
layer/<name>/ with a ` + layerstubs.SpecFile + `; vkgen generate writes its
code. "layer new" scaffolds one; "layer hooks" prints the exact signature of
every hook a layer's spec asks for.`,
	}

	var reg string
	newCmd := &cobra.Command{
		Use:   "new NAME",
		Short: "Scaffold layer/NAME (spec and hooks file) and generate its code",
		Long: `new creates layer/NAME/` + layerstubs.SpecFile + ` (layer VK_LAYER_VKGEN_NAME,
hooking vkCreateInstance in Go) and layer/NAME/NAME.go with that hook, then
runs vkgen generate, which registers the layer in the library
(layer/vklayers). Run it at the module root. scripts/build-layers.sh then
builds the library with the new layer's manifest.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := loadRegistry(cmd, reg)
			if err != nil {
				return err
			}
			dir := path.Join(pipeline.FrameworkDir, args[0])
			if _, err := os.Stat(filepath.FromSlash(dir)); err == nil {
				return usageErr(fmt.Errorf("%s already exists", dir))
			}
			files, err := layerstubs.Scaffold(r, dir, args[0])
			if err != nil {
				return usageErr(err)
			}
			for _, f := range files {
				if err := writeIfChanged(filepath.FromSlash(f.Name), f.Data); err != nil {
					return &exitError{code: 1, err: err}
				}
			}
			gen, warns, err := pipeline.Generate(r, ".")
			for _, w := range warns {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
			}
			if err != nil {
				return usageErr(err)
			}
			for _, f := range gen {
				if err := writeIfChanged(filepath.FromSlash(f.Name), f.Data); err != nil {
					return &exitError{code: 1, err: err}
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: layer VK_LAYER_VKGEN_%s; edit %s and %s/%s.go, then go generate ./...\n", dir, args[0], path.Join(dir, layerstubs.SpecFile), dir, args[0])
			return nil
		},
	}
	registryFlag(newCmd, &reg)

	var hreg string
	hooksCmd := &cobra.Command{
		Use:   "hooks [DIR [COMMAND...]]",
		Short: "Check a layer's hooks and print the signatures of the hooks of the given commands",
		Long: `hooks checks the hooks the layer package in DIR implements (as vkgen generate does: every
mistake at its file:line:col, with the name meant for a near miss), lists them, and prints for
every COMMAND (vkCreateBuffer ...) the signature of every form of its hooks: pre, the editing
pre, post without and with *layer.Call, the deferred before and after (and what a
//vkgen:query adds), and its next-layer call.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) > 0 {
				dir = args[0]
			}
			var commands []string
			if len(args) > 1 {
				commands = args[1:]
			}
			spec, err := layerstubs.LoadSpec(filepath.Join(dir, layerstubs.SpecFile))
			if err != nil {
				return usageErr(err)
			}
			r, err := loadRegistry(cmd, hreg)
			if err != nil {
				return err
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return usageErr(err)
			}
			impl, err := layerstubs.Discover(dir)
			if err != nil {
				return usageErr(err)
			}
			out, warns, err := layerstubs.Hooks(r, filepath.ToSlash(abs), spec, impl, commands, pipeline.LayerOptions(".", r))
			for _, w := range warns {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
			}
			if err != nil {
				return usageErr(err)
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), string(out))
			return err
		},
	}
	registryFlag(hooksCmd, &hreg)

	layerCmd.AddCommand(newCmd, hooksCmd)
	rootCmd.AddCommand(layerCmd)
}
