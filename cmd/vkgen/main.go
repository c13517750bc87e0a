// Command vkgen reads the Khronos Vulkan registry (vk.xml) and generates code
// and tables from it. This package holds only flag handling: each
// subcommand's file registers itself on rootCmd in its init, and the logic
// lives in registry/, gen/ and audit/.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/vkgen/vkgen/gen/objtypes"
	"github.com/vkgen/vkgen/registry"
)

// version is set with -ldflags "-X main.version=..."; otherwise the module
// version from the build info is used.
var version = ""

var rootCmd = &cobra.Command{
	Use:   "vkgen",
	Short: "Generate code and tables from the Khronos Vulkan registry (vk.xml)",
	Long: `vkgen reads the Khronos Vulkan API registry (vk.xml) and generates Go and C
code for Vulkan layer authors: object-type tables, the legacy debug-report
mapping, destroyer commands and dispatch tables. It also prints and audits
hand-written debug-report -> object-type tables.

The registry is found in this order: --registry, $VK_REGISTRY, then, when
the current directory holds ` + registry.PinFile + ` (the registry its
generated files come from), a vk.xml with the pinned sha256 in
$VKGEN_REGISTRY_PATH (each DIR/<version>/vk.xml or DIR/vk.xml) or the
locations below, and no other: without a copy of the pinned registry vkgen
stops, saying how to get it. Outside such a tree:
$VULKAN_SDK/share/vulkan/registry/vk.xml, /usr/share/vulkan/registry/vk.xml,
/usr/local/share/vulkan/registry/vk.xml.`,
	Version:       buildVersion(),
	SilenceUsage:  true,
	SilenceErrors: true,
	// Subcommands must not set their own PersistentPreRunE (cobra would run
	// only theirs, skipping -C).
	PersistentPreRunE: func(*cobra.Command, []string) error {
		if chdir == "" {
			return nil
		}
		if err := os.Chdir(chdir); err != nil {
			return usageErr(err)
		}
		return nil
	},
}

// chdir is -C: relative paths, $VK_REGISTRY's included, are then taken
// from DIR.
var chdir string

func init() {
	rootCmd.PersistentFlags().StringVarP(&chdir, "chdir", "C", "", "change to `DIR` before doing anything (paths and $VK_REGISTRY are then relative to DIR)")
	_ = rootCmd.MarkPersistentFlagDirname("chdir")
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// exitError carries a specific exit status (audit: 1 findings, 2 usage).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

// usageErr wraps an error as a usage/input error (exit status 2).
func usageErr(err error) error { return &exitError{code: 2, err: err} }

// registryMaxMB is --registry-max-mb, shared by every command that reads
// the registry; at most maxRegistryMB, the bound --max-size has too.
var registryMaxMB int64

const maxRegistryMB = 1 << 20

// registryFlag adds the shared --registry and --registry-max-mb flags to cmd.
func registryFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "registry", "", "path to vk.xml, a file or a pipe (default: $VK_REGISTRY, then in a tree with "+registry.PinFile+" only a copy of the pinned registry, elsewhere the SDK and system locations)")
	_ = cmd.MarkFlagFilename("registry", "xml")
	cmd.Flags().Int64Var(&registryMaxMB, "registry-max-mb", registry.DefaultMaxSize>>20, "refuse a registry larger than `MiB` (parsing takes about 15 times the file's size in memory)")
}

// loadRegistry finds (by the rule of rootCmd's help) and loads the
// registry, printing its warnings on stderr.
func loadRegistry(cmd *cobra.Command, explicit string) (*registry.Registry, error) {
	if registryMaxMB <= 0 || registryMaxMB > maxRegistryMB { // MiB to bytes must not overflow
		return nil, usageErr(fmt.Errorf("--registry-max-mb %d: must be between 1 and %d (1 TiB)", registryMaxMB, maxRegistryMB))
	}
	pin, err := registry.ReadPin(registry.PinFile)
	switch {
	case errors.Is(err, os.ErrNotExist):
		pin = nil
	case err != nil:
		return nil, usageErr(err)
	}
	path, _, err := registry.FindPinned(explicit, pin)
	if err != nil {
		return nil, usageErr(err)
	}
	r, err := registry.Load(path, registry.WithMaxSize(registryMaxMB<<20))
	var se *registry.SizeError
	if errors.As(err, &se) {
		return nil, usageErr(fmt.Errorf("%w; raise it with --registry-max-mb", err))
	}
	if err != nil {
		return nil, usageErr(err)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", w)
	}
	if r.MoreWarnings > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "warning: ... and %d more warnings\n", r.MoreWarnings)
	}
	return r, nil
}

// loadTables loads the registry and derives the debug-report -> object-type
// tables, rejecting registries that lack either enum (usage error).
func loadTables(cmd *cobra.Command, explicit string) (*objtypes.Tables, error) {
	r, err := loadRegistry(cmd, explicit)
	if err != nil {
		return nil, err
	}
	t, err := objtypes.Derive(r)
	if err != nil {
		return nil, usageErr(err)
	}
	switch {
	case len(t.DebugReport) == 0:
		return nil, usageErr(fmt.Errorf("%s has no %s (VK_EXT_debug_report)", r.Path, objtypes.DebugReportEnum))
	case !t.HasObjectType():
		return nil, usageErr(fmt.Errorf("%s has no %s (it appeared in Vulkan 1.1); nothing to map to", r.Path, objtypes.ObjectTypeEnum))
	}
	return t, nil
}

// formatFlag adds --format/-f (default "text") with shell completion of formats.
func formatFlag(cmd *cobra.Command, p *string, formats []string) {
	cmd.Flags().StringVarP(p, "format", "f", "text", "output format: "+strings.Join(formats, ", "))
	_ = cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
}

// checkFormat rejects a --format value outside allowed as a usage error.
func checkFormat(format string, allowed []string) error {
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	return usageErr(fmt.Errorf("unknown --format %q (want one of %s)", format, strings.Join(allowed, ", ")))
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run executes vkgen with args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	rootCmd.SetArgs(args)
	rootCmd.SetOut(stdout)
	rootCmd.SetErr(stderr)
	err := rootCmd.Execute()
	if err == nil {
		return 0
	}
	code := 2 // cobra's own errors are flag/argument errors
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
		if ee.err == nil {
			return code
		}
	}
	fmt.Fprintln(stderr, "vkgen:", err)
	return code
}
