package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/gen/pipeline"
	"github.com/vkgen/vkgen/registry"
)

// writeIfChanged leaves identical files untouched (so build caches and
// mtimes stay put) and replaces others.
func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	o := output{path: path, mode: 0o644, replace: true}
	return o.write(data)
}

func init() {
	var reg, out string
	var quiet, check, repin bool
	cmd := &cobra.Command{
		Use:   "generate [--registry PATH [--repin]] [--out DIR] [--check]",
		Short: "Generate every output of the source tree from one registry",
		Long: `generate writes every generated file of the source tree in the current
directory (the module root; see -C) from one registry: the Go tables
(generated/), the Go views of the Vulkan types (layer/vk), the layer
framework's C dispatch and trampolines (layer/), each layer's hook table, Go
glue and manifest (layer/<name>/, one per vkgen-layer.json) and the
library's list of layers (layer/vklayers). --out
writes the same files under another root.

--repin makes the registry given by --registry or $VK_REGISTRY the tree's
pinned one: after generating, it writes its version and sha256 into
` + registry.PinFile + ` under --out. Without a pin change, the pinned
registry is the only one used unless --registry or $VK_REGISTRY names
another.

Hooks of commands, types or extensions a registry older than the pinned one
lacks are left out of the layers' tables, with a warning naming each; with
the pinned registry or a newer one they are errors.

--check writes nothing: it lists every file that differs, is missing, or is
generated but no longer produced, and exits 1 when there is any.

Facts that do not resolve, such as a debug-report value naming no VkObjectType,
are printed as warnings on stderr; they never stop generation.

Exit status: 0 on success, 1 when an output cannot be written (or --check
finds stale files), 2 on usage or input errors (no registry found, unreadable
or malformed vk.xml or layer spec, a registry too old for the tables).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if repin && (check || reg == "" && os.Getenv("VK_REGISTRY") == "") {
				return usageErr(fmt.Errorf("--repin needs the new registry, from --registry or $VK_REGISTRY, and no --check"))
			}
			r, err := loadRegistry(cmd, reg)
			if err != nil {
				return err
			}
			files, warns, err := pipeline.Generate(r, ".")
			for _, w := range warns {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
			}
			if err != nil {
				return usageErr(err)
			}
			if check {
				stale, err := pipeline.Stale(out, files)
				if err != nil {
					return &exitError{code: 1, err: err}
				}
				for _, s := range stale {
					fmt.Fprintln(cmd.OutOrStdout(), s)
				}
				if len(stale) > 0 {
					return &exitError{code: 1, err: fmt.Errorf("%d generated files are stale; run go generate ./... (docs/generating.md)", len(stale))}
				}
				return nil
			}
			for _, f := range files {
				p := filepath.Join(out, filepath.FromSlash(f.Name))
				if err := writeIfChanged(p, f.Data); err != nil {
					return &exitError{code: 1, err: err}
				}
				if !quiet {
					fmt.Fprintln(cmd.OutOrStdout(), p)
				}
			}
			if repin {
				p := filepath.Join(out, registry.PinFile)
				if err := registry.WritePin(p, r); err != nil {
					return &exitError{code: 1, err: err}
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: pinned %s\n", p, r.Version())
			}
			return nil
		},
	}
	registryFlag(cmd, &reg)
	cmd.Flags().StringVar(&out, "out", ".", "root `DIR` the files are written under (or compared with, for --check)")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "do not list the files written")
	cmd.Flags().BoolVar(&repin, "repin", false, "make the registry of --registry or $VK_REGISTRY the pinned one ("+registry.PinFile+")")
	cmd.Flags().BoolVar(&check, "check", false, "write nothing; list stale files and exit 1 when there are any")
	_ = cmd.MarkFlagDirname("out")
	rootCmd.AddCommand(cmd)
}
