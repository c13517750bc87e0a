package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/vkgen/vkgen/gen/genfile"
	"github.com/vkgen/vkgen/gen/pipeline"
	"github.com/vkgen/vkgen/internal/testenv"
)

// vkgen runs the CLI in-process. Every call passes the flags it relies on,
// because cobra keeps flag values between Execute calls.
func vkgen(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return o.String(), e.String(), code
}

// TestCommittedUpToDate is the one freshness check of the tree: vkgen
// generate writes the whole set into a temporary directory from the pinned
// registry, and every committed file must equal its output, with no
// generated file left over that it no longer writes, and every output is
// named by the generated-file rule. --check agrees.
func TestCommittedUpToDate(t *testing.T) {
	reg := testenv.Registry(t, testenv.PinnedRegistry)
	root := testenv.Root()
	t.Chdir(root)
	dir := t.TempDir()
	if _, errOut, code := vkgen(t, "generate", "--registry", reg, "--out", dir, "--quiet", "--check=false"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	} else if strings.Contains(errOut, "warning") {
		t.Errorf("unexpected warnings on the pinned registry:\n%s", errOut)
	}
	files := readTree(t, dir)
	if len(files) < 10 {
		t.Fatalf("only %d files generated", len(files))
	}
	for _, f := range files {
		if !genfile.IsName(f.Name) {
			t.Errorf("%s: a generated file without the %q infix (genfile.Name)", f.Name, genfile.Infix)
		}
	}
	stale, err := pipeline.Stale(root, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stale {
		t.Errorf("%s (run go generate ./... with VK_REGISTRY=../shared/vkregistry/%s/vk.xml)", s, testenv.PinnedRegistry)
	}
	if out, errOut, code := vkgen(t, "generate", "--registry", reg, "--out", root, "--quiet", "--check"); code != 0 {
		t.Errorf("--check: exit %d: %s%s", code, out, errOut)
	}
}

// readTree reads every file under dir, named relative to it.
func readTree(t *testing.T, dir string) []genfile.File {
	t.Helper()
	var files []genfile.File
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files = append(files, genfile.File{Name: filepath.ToSlash(rel), Data: data})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestGenerateOldRegistryFails(t *testing.T) {
	t.Chdir(testenv.Root())
	_, errOut, code := vkgen(t, "generate", "--registry", testenv.Registry(t, "1.0.3"), "--out", t.TempDir(), "--quiet", "--check=false")
	if code == 0 || !strings.Contains(errOut, "VkObjectType") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

func TestTablesJSON(t *testing.T) {
	out, errOut, code := vkgen(t, "tables", "--registry", testenv.Registry(t, "1.4.359"), "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		HeaderVersion int `json:"registry_header_version"`
		Rows          []struct {
			DebugReport     string `json:"debug_report"`
			ObjectTypeValue int64  `json:"object_type_value"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.HeaderVersion != 359 || len(doc.Rows) != 41 {
		t.Errorf("header %d, %d rows", doc.HeaderVersion, len(doc.Rows))
	}
	if _, _, code := vkgen(t, "tables", "--registry", testenv.Registry(t, "1.4.359"), "--format", "yaml"); code != 2 {
		t.Errorf("bad format: exit %d", code)
	}
	if _, errOut, code := vkgen(t, "tables", "--registry", testenv.Registry(t, "1.0.3"), "--format", "text"); code != 2 || !strings.Contains(errOut, "no VkObjectType") {
		t.Errorf("1.0.3: exit %d: %s", code, errOut)
	}
}

func TestAuditExitStatus(t *testing.T) {
	reg := testenv.Registry(t, "1.4.359")
	out, _, code := vkgen(t, "audit", "--registry", reg, "--format", "text", "--max-size", "8MiB", auditFixture("reference39.c"))
	if code != 1 || strings.Count(out, ": missing: ") != 2 || !strings.Contains(out, "CUDA_MODULE_NV") || !strings.Contains(out, "added by VK_NV_cuda_kernel_launch") {
		t.Errorf("reference39: exit %d\n%s", code, out)
	}
	if out, _, code := vkgen(t, "audit", "--registry", reg, "--format", "text", "--max-size", "8MiB", auditFixture("complete_map.cpp")); code != 0 {
		t.Errorf("complete: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{
		{"audit", "--registry", reg, "--format", "text"},
		{"audit", "--registry", reg, "--format", "xml", auditFixture("reference39.c")},
		{"audit", "--registry", reg, "--format", "text", "--max-size", "lots", auditFixture("reference39.c")},
		{"audit", "--registry", filepath.Join(t.TempDir(), "none.xml"), "--format", "text", auditFixture("reference39.c")},
	} {
		if _, _, code := vkgen(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func auditFixture(name string) string {
	return filepath.Join(testenv.Root(), "audit", "testdata", name)
}

// TestAuditSeveralFiles is issue 17's case: a file without a table, an
// unreadable one and a binary one hide none of the other files' findings;
// the status is the worst, and JSON has a result per file.
func TestAuditSeveralFiles(t *testing.T) {
	reg := testenv.Registry(t, "1.4.359")
	bin := filepath.Join(t.TempDir(), "blob.bin")
	if err := os.WriteFile(bin, []byte("VK_OBJECT_TYPE_BUFFER\x00\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{auditFixture("call_args.cpp"), auditFixture("helper_if_chain.h"), bin, auditFixture("nope.c"), auditFixture("reference39.c")}
	out, _, code := vkgen(t, append([]string{"audit", "--registry", reg, "--format", "text", "--max-size", "8MiB"}, files...)...)
	for _, want := range []string{
		"call_args.cpp: no debug-report <-> object-type table; shapes read are switch/case",
		"helper_if_chain.h: if-chain debug-report -> object-type at line 9 (40 rows); if-chain object-type -> debug-report",
		"error: " + bin + ": binary file",
		"error: open " + auditFixture("nope.c") + ": no such file",
		"18 finding(s) in 119 row(s) of 5 file(s) against VK_HEADER_VERSION 359",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if code != 2 || strings.Count(out, "helper_if_chain.h:") != 17 /* the summary and 16 findings */ {
		t.Errorf("exit %d\n%s", code, out)
	}
	out, _, code = vkgen(t, append([]string{"audit", "--registry", reg, "--format", "json", "--max-size", "8MiB"}, files...)...)
	var rep struct {
		Status int
		Files  []struct {
			File     string
			Error    string
			NoTable  string `json:"no_table"`
			Tables   []struct{ Shape string }
			Findings []struct{ Kind, Message string }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 2 || rep.Status != 2 || len(rep.Files) != 5 {
		t.Fatalf("json: exit %d, %v\n%s", code, err, out)
	}
	f := rep.Files
	if f[0].NoTable == "" || len(f[1].Tables) != 2 || len(f[1].Findings) != 16 || f[2].Error == "" || f[3].Error == "" || len(f[4].Findings) != 2 {
		t.Errorf("per-file results: %+v", f)
	}
}

// TestAuditInputLimits: the size limit names the file and the flag; a FIFO
// and a device are refused without blocking; - reads standard input.
func TestAuditInputLimits(t *testing.T) {
	reg := testenv.Registry(t, "1.4.359")
	ref := auditFixture("reference39.c")
	out, _, code := vkgen(t, "audit", "--registry", reg, "--format", "text", "--max-size", "1KiB", ref)
	if code != 2 || !strings.Contains(out, ref+": larger than the 1024-byte limit") || !strings.Contains(out, "--max-size") {
		t.Errorf("limit: exit %d\n%s", code, out)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	out, _, code = vkgen(t, "audit", "--registry", reg, "--format", "text", "--max-size", "8MiB", fifo, "/dev/zero")
	if code != 2 || !strings.Contains(out, "named pipe") || !strings.Contains(out, "character device") {
		t.Errorf("special files: exit %d\n%s", code, out)
	}
	src, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	rootCmd.SetIn(bytes.NewReader(src))
	defer rootCmd.SetIn(nil)
	out, _, code = vkgen(t, "audit", "--registry", reg, "--format", "text", "--max-size", "8MiB", "-")
	if code != 1 || !strings.Contains(out, "-:82: missing: ") {
		t.Errorf("stdin: exit %d\n%s", code, out)
	}
}

func TestAuditHelpNamesShapes(t *testing.T) {
	out, _, code := vkgen(t, "audit", "--help")
	for _, want := range []string{"if/else-if chains", "Go map literals", "match arms", "--max-size", "standard input", "Rust", "Zig"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("audit --help lacks %q", want)
		}
	}
}

func TestVersionAndHelp(t *testing.T) {
	out, _, code := vkgen(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "vkgen version ") {
		t.Errorf("--version: %d %q", code, out)
	}
	out, _, code = vkgen(t, "--help")
	for _, sub := range []string{"generate", "tables", "audit", "completion"} {
		if code != 0 || !strings.Contains(out, sub) {
			t.Errorf("help lacks %s", sub)
		}
	}
}

// TestGenerateErrors: input errors exit 2, output errors 1, each with a
// message naming the file at fault.
func TestGenerateErrors(t *testing.T) {
	t.Chdir(testenv.Root())
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	truncated := write("truncated.xml", `<registry><types><type name="x"`)
	wrongRoot := write("root.xml", "<foo/>")
	notDir := write("file", "")
	good := testenv.Registry(t, "1.3.239")
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"missing registry", []string{"--registry", filepath.Join(dir, "nope", "vk.xml")}, 2, []string{"nope/vk.xml", "does not exist"}},
		{"registry is a directory", []string{"--registry", dir}, 2, []string{dir, "is a directory"}},
		{"truncated XML", []string{"--registry", truncated}, 2, []string{truncated + ":1:", "malformed XML"}},
		{"wrong root", []string{"--registry", wrongRoot}, 2, []string{wrongRoot + ":1:1", "want <registry>"}},
		{"--out is a file", []string{"--registry", good, "--out", notDir}, 1, []string{"cannot write " + notDir, "not a directory"}},
		{"--out below a file", []string{"--registry", good, "--out", filepath.Join(notDir, "sub")}, 1, []string{"cannot write " + notDir}},
	} {
		args := append([]string{"generate", "--quiet", "--check=false"}, c.args...)
		if !slices.Contains(c.args, "--out") {
			args = append(args, "--out", t.TempDir())
		}
		_, errOut, code := vkgen(t, args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d (%s)", c.name, code, c.code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr %q lacks %q", c.name, errOut, w)
			}
		}
	}
}
