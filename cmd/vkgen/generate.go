package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/gen/gotables"
	"github.com/vkgen/vkgen/registry"
)

// generator produces one family of outputs from a registry under outDir and
// returns the files it wrote (changed or not) and its warnings. Errors caused
// by the registry are usageErr (exit 2); any other error is taken as a
// failure to write the output (exit 1).
// Other output families (gen/cdispatch, ...) register by appending to
// generators from an init func in their own file of this package.
type generator struct {
	name string
	run  func(r *registry.Registry, outDir string) (files, warnings []string, err error)
}

var generators = []generator{
	{name: "go tables", run: genGoTables},
}

func genGoTables(r *registry.Registry, outDir string) ([]string, []string, error) {
	files, warns, err := gotables.Generate(r)
	if err != nil {
		return nil, warns, usageErr(err)
	}
	var written []string
	for _, f := range files {
		p := filepath.Join(outDir, f.Name)
		if err := writeIfChanged(p, f.Data); err != nil {
			return written, warns, fmt.Errorf("cannot write %s: %w", p, err)
		}
		written = append(written, p)
	}
	return written, warns, nil
}

// writeIfChanged leaves identical files untouched (so build caches and
// mtimes stay put) and replaces others atomically.
func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".vkgen-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func init() {
	var reg, out string
	var quiet bool
	cmd := &cobra.Command{
		Use:   "generate [--registry PATH] [--out DIR]",
		Short: "Generate all outputs from the registry",
		Long: `generate writes every output vkgen knows (the Go package generated/, and the
C outputs of the generators registered beside it) from one registry.
Facts that do not resolve, such as a debug-report value naming no VkObjectType,
are printed as warnings on stderr; they never stop generation.

Exit status: 0 on success, 1 when an output cannot be written, 2 on usage or
input errors (no registry found, unreadable or malformed vk.xml, a registry
too old for the tables).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := loadRegistry(cmd, reg)
			if err != nil {
				return err
			}
			for _, g := range generators {
				files, warns, err := g.run(r, out)
				for _, w := range warns {
					fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s: %s\n", g.name, w)
				}
				if err != nil {
					err = fmt.Errorf("%s: %w", g.name, err)
					var ee *exitError
					if !errors.As(err, &ee) {
						err = &exitError{code: 1, err: err}
					}
					return err
				}
				if !quiet {
					for _, f := range files {
						fmt.Fprintln(cmd.OutOrStdout(), f)
					}
				}
			}
			return nil
		},
	}
	registryFlag(cmd, &reg)
	cmd.Flags().StringVar(&out, "out", "generated", "output directory")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "do not list the files written")
	_ = cmd.MarkFlagDirname("out")
	rootCmd.AddCommand(cmd)
}
