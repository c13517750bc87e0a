package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/vkgen/vkgen/internal/doccmds"
	"github.com/vkgen/vkgen/internal/testenv"
)

// TestDocumentedCommandsExist: every vkgen command the documents show
// (README.md and docs/*.md: shell blocks, run or not, and usage synopses)
// names an existing subcommand, only flags that subcommand has, and
// arguments its validator accepts; docs/commands_test.go runs the ones a
// test can run.
func TestDocumentedCommandsExist(t *testing.T) {
	root := testenv.Root()
	blocks, err := doccmds.ShellBlocks(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, b := range blocks {
		cmds, err := doccmds.Commands(b)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, c := range cmds {
			if args, ok := c.Vkgen(); ok {
				n++
				if err := checkArgs(args, true); err != "" {
					t.Errorf("%s: `%s`: %s", c.Pos(), c.Text, err)
				}
			}
		}
	}
	syn, err := doccmds.Synopses(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range syn {
		n++
		if err := checkArgs(append(s.Command, s.Flags...), false); err != "" {
			t.Errorf("%s: usage of vkgen %s: %s", s.Pos(), strings.Join(s.Command, " "), err)
		}
	}
	if n < 10 {
		t.Errorf("only %d vkgen commands found in the documents", n)
	}
}

// checkArgs finds the subcommand of args and checks its flags (and, when
// positional is set, the arguments that are not flags) without running it.
func checkArgs(args []string, positional bool) string {
	cmd, rest, err := rootCmd.Find(args)
	if err != nil {
		return err.Error()
	}
	if cmd == rootCmd && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return "no subcommand " + args[0]
	}
	var pos []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			pos = append(pos, rest[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := lookupFlag(cmd, name, !strings.HasPrefix(a, "--"))
		if f == nil {
			return "vkgen " + cmd.CommandPath()[len("vkgen "):] + " has no flag " + a
		}
		if !hasValue && f.NoOptDefVal == "" && positional {
			i++ // the flag's value
		}
	}
	if positional && cmd.Args != nil {
		if err := cmd.Args(cmd, pos); err != nil {
			return err.Error()
		}
	}
	return ""
}

func lookupFlag(cmd *cobra.Command, name string, short bool) *pflag.Flag {
	for c := cmd; c != nil; c = c.Parent() {
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.PersistentFlags()} {
			if short && len(name) == 1 {
				if f := fs.ShorthandLookup(name); f != nil {
					return f
				}
			} else if f := fs.Lookup(name); f != nil {
				return f
			}
		}
	}
	return nil
}
