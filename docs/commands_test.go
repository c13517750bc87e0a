package docs_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vkgen/vkgen/internal/doccmds"
	"github.com/vkgen/vkgen/internal/testenv"
	"github.com/vkgen/vkgen/internal/vktest"
)

// The documents' shell commands are run by TestDocCommands in a copy of the
// repository, block after block in the order a reader meets them; the ones
// a test cannot run are listed here, by file and command text (without the
// variables set before it), with the reason. They are still parsed, their vkgen subcommands and flags checked
// (cmd/vkgen TestDocumentedCommandsExist), the scripts they name found, and
// a `go test -bench` command's benchmarks matched (TestDocCommandsRefer).
var notRun = map[string]string{
	"README.md: scripts/demo.sh":                                    "installs Debian packages as root (scripts/setup.sh); its steps, docs/memreport.md's step by step block, run",
	"docs/memreport.md: scripts/demo.sh":                            "installs Debian packages as root (scripts/setup.sh); the step by step block below it runs",
	"README.md: your-vulkan-app":                                    "the reader's program",
	"docs/install.md: your-vulkan-app":                              "the reader's program",
	"docs/install.md: your-app":                                     "the reader's program",
	"docs/memreport.md: ./app":                                      "the reader's program",
	"docs/memreport.md: ./app --benchmark-scene":                    "the reader's program",
	"docs/memreport.md: ./frameprog leak 120":                       "a test program (layer/memreport/testdata/frameprog.c) run by TestGrowthOfALeak's harness, which builds it",
	"docs/android.md: scripts/test-arm64.sh":                        "a step of scripts/test-long.sh",
	"docs/android.md: scripts/build-deb.sh":                         "the arm64 package: scripts/test-arm64.sh builds and installs it (TestDebianPackage)",
	"docs/android.md: scripts/build-layers.sh build/layers-arm64":   "cross-builds the library for arm64 (minutes); scripts/test-arm64.sh builds the same",
	"docs/install.md: scripts/build-deb.sh":                         "TestDebianPackage (scripts/test-long.sh) builds, installs and removes it",
	"docs/install.md: sudo apt-get install ./build/deb/vkgen_*.deb": "installs into the system as root: TestDebianPackage does, in scripts/test-long.sh",
	"docs/install.md: vulkaninfo --summary":                         "lists the layers of the installed package (above)",
	"docs/install.md: grep VKGEN":                                   "reads the line above",
	"docs/install.md: mkdir -p /tmp/above":                          "prepares running the reader's program under validation",
	"docs/install.md: cp /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json /tmp/above/":                          "prepares running the reader's program under validation",
	"docs/install.md: vkgen trace summary /tmp/app-<pid>.pftrace":                                                                 "the reader's trace (<pid>)",
	"docs/memreport.md: vkgen trace summary /tmp/app-1234.pftrace --html memory.html":                                             "the reader's trace",
	"docs/memreport.md: demo/run.sh /tmp/nvidia-run":                                                                              "needs the NVIDIA driver",
	"docs/memreport.md: sed 's/libGLX_nvidia.so.0/libEGL_nvidia.so.0/' /usr/share/vulkan/icd.d/nvidia_icd.json >/tmp/nv_egl.json": "needs the NVIDIA driver",
	"docs/memreport.md: demo/run.sh $OUT/nvidia":                                                                                  "needs the NVIDIA driver",
	"docs/memreport.md: trace_processor_shell --add-sql-package layer/memreport/sql/vkgen -Q '\n  INCLUDE PERFETTO MODULE vkgen.memory;\n  SELECT g.type, g.name, g.start_bytes, g.bytes, g.frames, g.bytes_per_second, o.handle, o.bytes\n  FROM vkgen_memory_growth g JOIN vkgen_memory_growth_objects o ON o.growth_id = g.id\n  ORDER BY g.ns, o.bytes DESC' TRACE": "the reader's TRACE; layer/memreport/sql's tests run the module's tables",
	"docs/memreport.md: trace_processor_shell --add-sql-package layer/memreport/sql/vkgen \\\n    -Q 'INCLUDE PERFETTO MODULE vkgen.memory; SELECT * FROM vkgen_memory_leaks' TRACE":                                                                                                                                                                                    "the reader's TRACE; layer/memreport/sql's tests run the module's tables",
	"docs/memreport.md: trace_processor_shell summarize --add-sql-package layer/memreport/sql/vkgen \\\n    --metrics-v2 all TRACE layer/memreport/sql/spec/vkgen_memory.textproto":                                                                                                                                                                                     "the reader's TRACE; layer/memreport/sql's checkSpec runs the spec",
	"docs/memreport.md: vkgen trace check --rules configs/memory.rules --baseline baseline.pftrace \\\n    --junit memory-junit.xml run.pftrace":                                                                                                                                                                                                                        "the reader's CI traces",
	"docs/memreport.md: vkgen trace diff --html memory-diff.html baseline.pftrace run.pftrace":                                                                                                                                                                                                                                                                          "the reader's CI traces",
	"README.md: go run ./cmd/vkgen trace summary /tmp/app-<pid>.pftrace":                                                                                                                                                                                                                                                                                                "the reader's trace (<pid>)",
	"README.md: go run ./cmd/vkgen trace diff before.pftrace after.pftrace":                                                                                                                                                                                                                                                                                             "the reader's traces",
	"README.md: go run ./cmd/vkgen trace check --rules configs/memory.rules /tmp/app-<pid>.pftrace":                                                                                                                                                                                                                                                                     "the reader's trace (<pid>)",
	"docs/perfetto-system.md: tracebox traced --background":                                                                                                                                                                                                                                                                                                             "starts a system service that outlives the test; perfetto/system/acceptance runs traced from ../shared",
	"docs/perfetto-system.md: tracebox perfetto --txt -c configs/vkgen.pbtxt -o /tmp/vkgen.pftrace --background-wait":                                                                                                                                                                                                                                                   "needs the traced above",
	"docs/perfetto-system.md: build/demo/demo":                                                     "traced's producer: runs only inside the session above",
	"docs/perfetto-system.md: tracebox perfetto --txt -c configs/vkgen.pbtxt -o /tmp/late.pftrace": "needs the traced above",
	"docs/perfetto-system.md: tracebox traced --enable-relay-endpoint":                             "two machines",
	"docs/perfetto-system.md: tracebox traced_relay":                                               "two machines",
	"docs/perfetto-system.md: tracebox perfetto --txt -c /tmp/all.pbtxt -o /tmp/fleet.pftrace":     "two machines",
	"docs/perfetto-system.md: go test ./perfetto/system/acceptance/":                               "part of the suite (scripts/test.sh)",
}

// notRunAnywhere: commands not run wherever they appear.
var notRunAnywhere = map[string]string{
	"scripts/test.sh":               "the test suite itself",
	"scripts/test-long.sh":          "the long steps of CI, which run it",
	"scripts/test-cpu.sh":           "runs the test suite's go tests one at a time to time them (minutes)",
	"demo/bench.sh":                 "a benchmark (minutes); its figures are in docs/performance.md",
	"vkstress":                      "a benchmark workload (testdata/vkstress) on the reader's PATH",
	"/usr/bin/time":                 "times a benchmark; its figures are in docs/performance.md",
	"go test -bench":                "a benchmark (minutes): TestDocCommandsRefer checks the package has benchmarks of that name",
	"bench/":                        "a benchmark script (minutes): TestDocCommandsRefer checks it exists and parses",
	"layer/debugmarker/bench.sh":    "a benchmark script (minutes): TestDocCommandsRefer checks it exists and parses",
	"cat configs/vkgen.pbtxt":       "part of a two-machine set-up",
	"echo trace_all_machines: true": "part of a two-machine set-up",
}

// skipReason says why c is not run, or "".
func skipReason(c doccmds.Command) string {
	if r, ok := notRun[c.File+": "+c.Call]; ok {
		return r
	}
	w := strings.Join(c.Words, " ")
	for k, r := range notRunAnywhere {
		switch {
		case strings.HasSuffix(k, "/") && len(c.Words) > 0 && strings.HasPrefix(c.Words[0], k):
			return r
		case k == "go test -bench" && len(c.Words) > 1 && c.Words[0] == "go" && c.Words[1] == "test" && slices.Contains(c.Words, "-bench"):
			return r
		case w == k || strings.HasPrefix(w, k+" "):
			return r
		}
	}
	return ""
}

// madeByCommands: paths the documents name that a documented command
// makes; TestDocCommands checks them after running the commands.
var madeByCommands = map[string]string{
	"layer/bufcount/": "docs/layers.md's `vkgen layer new bufcount`",
}

// external: paths of other repositories the documents name.
var external = map[string]string{
	"docs/android.md: docs/LoaderLayerInterface.md": "KhronosGroup/Vulkan-Loader's document",
	"docs/generating.md: registry/vk.xml":           "KhronosGroup/Vulkan-Headers' registry",
}

func documentedCommands(t *testing.T) []doccmds.Command {
	t.Helper()
	blocks, err := doccmds.ShellBlocks(testenv.Root())
	if err != nil {
		t.Fatal(err)
	}
	var out []doccmds.Command
	for _, b := range blocks {
		cmds, err := doccmds.Commands(b)
		if err != nil {
			t.Error(err)
		}
		out = append(out, cmds...)
	}
	return out
}

// TestDocPaths: every repository path README.md and docs/*.md name exists.
func TestDocPaths(t *testing.T) {
	root := testenv.Root()
	refs, err := doccmds.Paths(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range refs {
		if _, ok := external[p.File+": "+p.Path]; ok || madeBy(p.Path) != "" {
			continue
		}
		if !p.Exists(root) {
			t.Errorf("%s:%d: names %s, which is not in the repository", p.File, p.Line, p.Path)
		}
	}
	if len(refs) < 100 {
		t.Errorf("only %d paths found in the documents", len(refs))
	}
}

func madeBy(path string) string {
	for pre, by := range madeByCommands {
		if strings.HasPrefix(path+"/", pre) {
			return by
		}
	}
	return ""
}

var failedLine = regexp.MustCompile(`vkgen-docs: line (\d+)`)

var benchFunc = regexp.MustCompile(`(?m)^func (Benchmark\w+)\(`)

// TestDocCommandsRefer: without running anything, every shell block
// parses, every script a command starts is in the repository and
// executable and parses (bash -n), every `go test` names a package whose
// benchmarks match its -bench, and every entry of notRun still names a
// documented command.
func TestDocCommandsRefer(t *testing.T) {
	root := testenv.Root()
	cmds := documentedCommands(t)
	seen := map[string]bool{}
	for _, c := range cmds {
		seen[c.File+": "+c.Call] = true
		if len(c.Words) == 0 {
			continue
		}
		name := c.Words[0]
		if strings.Contains(name, "/") && !filepath.IsAbs(name) && !strings.HasPrefix(name, "build/") && !strings.HasPrefix(name, "./") && !strings.HasPrefix(name, "$") {
			p := filepath.Join(root, name)
			st, err := os.Stat(p)
			switch {
			case err != nil:
				t.Errorf("%s: `%s`: no %s in the repository", c.Pos(), c.Text, name)
			case st.Mode()&0o111 == 0:
				t.Errorf("%s: `%s`: %s is not executable", c.Pos(), c.Text, name)
			default:
				if out, err := exec.Command("bash", "-n", p).CombinedOutput(); err != nil {
					t.Errorf("%s: `%s`: %s does not parse: %s", c.Pos(), c.Text, name, out)
				}
			}
		}
		if name == "go" && len(c.Words) > 2 && c.Words[1] == "test" {
			checkGoTest(t, c)
		}
	}
	for k := range notRun {
		if !seen[k] {
			t.Errorf("notRun lists %q, which no document shows any more: remove it", k)
		}
	}
}

// checkGoTest: the package of a documented `go test` exists and, with
// -bench, has a benchmark each alternative of the pattern matches.
func checkGoTest(t *testing.T, c doccmds.Command) {
	t.Helper()
	bench := ""
	var pkgs []string
	for i, w := range c.Words[2:] {
		switch {
		case w == "-bench" && i+3 < len(c.Words):
			bench = c.Words[i+3]
		case strings.HasPrefix(w, "./"):
			pkgs = append(pkgs, strings.TrimSuffix(strings.TrimSuffix(w, "..."), "/"))
		}
	}
	for _, pkg := range pkgs {
		dir := filepath.Join(testenv.Root(), pkg)
		tests, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if len(tests) == 0 {
			t.Errorf("%s: `%s`: %s has no tests", c.Pos(), c.Text, pkg)
			continue
		}
		if bench == "" {
			continue
		}
		var names []string
		for _, f := range tests {
			b, _ := os.ReadFile(f)
			for _, m := range benchFunc.FindAllStringSubmatch(string(b), -1) {
				names = append(names, m[1])
			}
		}
		alts := []string{bench}
		if !strings.Contains(bench, "(") {
			alts = strings.Split(bench, "|") // each alternative names a benchmark
		}
		for _, alt := range alts {
			re, err := regexp.Compile(alt)
			if err != nil {
				t.Errorf("%s: -bench %q: %v", c.Pos(), bench, err)
				continue
			}
			if !slices.ContainsFunc(names, re.MatchString) {
				t.Errorf("%s: `%s`: no benchmark of %s matches %q", c.Pos(), c.Text, pkg, alt)
			}
		}
	}
}

// TestDocCommands runs every shell block of README.md and docs/*.md that
// holds a command a test can run, in a copy of the repository (tracked and
// untracked files, ../shared beside it), in the order a reader meets them,
// HOME a fresh folder and lavapipe the driver; the commands of notRun are
// replaced by `true`. A Go block whose first line is `// PATH` is a file the
// reader writes: it is written to PATH when the test reaches it. A failing
// command names its document's line.
func TestDocCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the documented commands in a copy of the repository")
	}
	vktest.Require(t)
	shared := testenv.Shared(t, "vkregistry")
	tmp := vktest.FixedDir(t, "doccommands") // the copy's builds hit the Go build cache
	repo := filepath.Join(tmp, "vkgen")
	vktest.CopyCheckout(t, repo)
	if err := os.Symlink(filepath.Dir(shared), filepath.Join(tmp, "shared")); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(tmp, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8",
		"VK_ICD_FILENAMES=" + vktest.LavapipeICD, "NODEVICE_SELECT=1", "XDG_RUNTIME_DIR=" + tmp,
		// the pinned registry as docs/generating.md has readers find it
		"VKGEN_REGISTRY_PATH=" + filepath.Join(tmp, "shared", "vkregistry"),
		// -trimpath: the copy's builds share the Go build cache with the
		// tree's (scripts/build-layers.sh builds so too)
		"GOCACHE=" + goEnv(t, "GOCACHE"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE"), "GOFLAGS=-trimpath"}

	blocks, err := doccmds.AllBlocks(testenv.Root())
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, b := range blocks {
		if path, ok := b.FileToWrite(); ok {
			p := filepath.Join(repo, filepath.FromSlash(path))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(b.Text), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if b.Lang != "sh" && b.Lang != "bash" {
			continue
		}
		cmds, err := doccmds.Commands(b)
		if err != nil {
			t.Error(err)
			continue
		}
		script, n := runnable(b, cmds)
		if n == 0 {
			continue
		}
		ran += n
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		// the set and the trap on the block's first line, so that $LINENO
		// counts the block's lines
		sh := exec.CommandContext(ctx, "bash", "-c", `set -eo pipefail; trap 'echo "vkgen-docs: line $LINENO" >&2' ERR; `+script)
		sh.Dir, sh.Env = repo, env
		out, err := sh.CombinedOutput()
		cancel()
		cpu := 0.0
		if sh.ProcessState != nil {
			cpu = (sh.ProcessState.UserTime() + sh.ProcessState.SystemTime()).Seconds()
		}
		t.Logf("%s: %d commands, %.1f s, %.1f CPU s", b.Pos(), n, time.Since(start).Seconds(), cpu)
		if err != nil {
			line := b.Line
			if m := failedLine.FindSubmatch(out); m != nil {
				l, _ := strconv.Atoi(string(m[1]))
				line += l - 1
			}
			t.Errorf("%s:%d: the block's command failed (%v); run it from the repository root, or list it in notRun (docs/commands_test.go) with the reason:\n%s", b.File, line, err, out)
		}
	}
	if ran < 15 {
		t.Errorf("only %d documented commands ran", ran)
	}
	for pre, by := range madeByCommands {
		if _, err := os.Stat(filepath.Join(repo, pre)); err != nil {
			t.Errorf("%s should have made %s: %v", by, pre, err)
		}
	}
}

// runnable is the block's text with the commands a test cannot run
// replaced by `true`, and how many it keeps.
func runnable(b doccmds.Block, cmds []doccmds.Command) (string, int) {
	src, n := b.Text, 0
	// from the end, so that the offsets of earlier commands stay right
	for i := len(cmds) - 1; i >= 0; i-- {
		c := cmds[i]
		if skipReason(c) == "" {
			n++
			continue
		}
		src = src[:c.Offset] + "true" + src[c.End:]
	}
	return src, n
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
