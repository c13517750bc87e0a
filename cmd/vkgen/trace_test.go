package main

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/perfettotools"
	"github.com/vkgen/vkgen/perfetto"
	"google.golang.org/protobuf/encoding/protowire"
)

// TestTraceSummary runs `vkgen trace summary` on a small trace written with
// the layer's event vocabulary.
func TestTraceSummary(t *testing.T) {
	buf, s := cliSession(t)
	cat := perfetto.NewCategory("VulkanDeviceMemoryReport")
	an := perfetto.NewAnnotationName
	perfetto.Instant(cat, perfetto.NewEventName("VulkanMemoryAllocation"),
		perfetto.String(an("operation"), "CREATE"), perfetto.String(an("source"), "DEVICE_MEMORY"),
		perfetto.Uint(an("memory_object_id"), 0x100), perfetto.Uint(an("size"), 4096), perfetto.Uint(an("offset"), 0),
		perfetto.Uint(an("object_handle"), 0x100), perfetto.String(an("memory_type"), "unbound_memory"))
	perfetto.Instant(cat, perfetto.NewEventName("VulkanObjectName"),
		perfetto.Int(an("object_type"), 8), perfetto.Uint(an("object_handle"), 0x100), perfetto.String(an("object_name"), "heap.block"))
	perfetto.Counter(perfetto.NewCounterTrack("vulkan.mem.app.usage.unbound_memory", perfetto.UnitSizeBytes), 4096)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.pftrace")
	if err := os.WriteFile(trace, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	perfettotools.CheckStats(t, trace)

	out, errOut, code := vkgen(t, "trace", "summary", "--top", "100", "--window", "33554432", "--format", "text", "--svg", "", "--html", "", trace)
	if code != 0 || !strings.Contains(out, "heap.block") || !strings.Contains(out, "vulkan.mem.app.usage.unbound_memory") {
		t.Errorf("text: code %d\n%s\n%s", code, out, errOut)
	}
	svg := filepath.Join(dir, "c.svg")
	out, errOut, code = vkgen(t, "trace", "summary", "--top", "100", "--window", "33554432", "--format", "json", "--svg", svg, "--html", "", trace)
	var js struct {
		Objects []struct {
			Name  string
			Bytes uint64
		}
		Clusters []struct {
			Track string
			Peak  int64 `json:"peak_bytes"`
		}
	}
	if err := json.Unmarshal([]byte(out), &js); code != 0 || err != nil || len(js.Objects) != 1 ||
		js.Objects[0].Name != "heap.block" || js.Objects[0].Bytes != 4096 || len(js.Clusters) != 1 || js.Clusters[0].Peak != 4096 {
		t.Errorf("json: code %d err %v\n%s\n%s", code, err, out, errOut)
	}
	if b, err := os.ReadFile(svg); err != nil || !bytes.Contains(b, []byte(`<polygon class="layer"`)) {
		t.Errorf("svg not written: %v", err)
	}

	// A trace still being written, or cut: the summary of its whole
	// packets, exit status 1 and where it stops.
	cut := filepath.Join(dir, "cut.pftrace")
	if err := os.WriteFile(cut, buf.Bytes()[:buf.Len()-3], 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = vkgen(t, "trace", "summary", "--top", "100", "--window", "33554432", "--format", "text", "--svg", "", "--html", "", cut)
	if code != 1 || !strings.Contains(out, "heap.block") || !strings.Contains(errOut, cut+": byte offset ") ||
		!strings.Contains(errOut, "truncated") || !strings.Contains(errOut, "the summary covers every packet before it") {
		t.Errorf("cut trace: code %d, want 1\n%s\n%s", code, out, errOut)
	}

	for _, args := range [][]string{
		{"trace", "summary", "--top", "100", "--window", "33554432", "--format", "text", "--svg", "", "--html", "", filepath.Join(dir, "missing")},
		{"trace", "summary", "--top", "100", "--window", "33554432", "--format", "yaml", "--svg", "", "--html", "", trace},
		{"trace", "summary", "--top", "100", "--window", "33554432", "--format", "text", "--svg", svg, "--html", svg + ".html", trace},
	} {
		if _, _, code := vkgen(t, args...); code != 2 {
			t.Errorf("vkgen %v: exit %d, want 2", args, code)
		}
	}
}

// summary runs vkgen trace summary with every flag at its default but
// those in args (cobra keeps flag values between runs).
func summary(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return vkgen(t, append([]string{"trace", "summary", "--top", "100", "--window", "33554432", "--format", "text",
		"--svg", "", "--html", "", "-o", "", "--force=false"}, args...)...)
}

// smallTrace writes a trace of the layer's vocabulary into dir.
func smallTrace(t *testing.T, dir string) (path string, data []byte) {
	t.Helper()
	buf, s := cliSession(t)
	cat := perfetto.NewCategory("VulkanDeviceMemoryReport")
	an := perfetto.NewAnnotationName
	for i := range 20 {
		perfetto.Instant(cat, perfetto.NewEventName("VulkanMemoryAllocation"),
			perfetto.String(an("operation"), "CREATE"), perfetto.String(an("source"), "DEVICE_MEMORY"),
			perfetto.Uint(an("memory_object_id"), uint64(0x100+i)), perfetto.Uint(an("size"), 4096), perfetto.Uint(an("offset"), 0),
			perfetto.Uint(an("object_handle"), uint64(0x100+i)), perfetto.String(an("memory_type"), "unbound_memory"))
		perfetto.Counter(perfetto.NewCounterTrack("vulkan.mem.app.usage.unbound_memory", perfetto.UnitSizeBytes), int64(4096*(i+1)))
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "t.pftrace")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, buf.Bytes()
}

// Outputs never replace the input, never write through a symbolic link,
// replace an existing file only with --force, and are written whole with
// mode 0600.
func TestTraceSummaryOutputs(t *testing.T) {
	dir := t.TempDir()
	trace, data := smallTrace(t, dir)
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "pw.html")
	hard := filepath.Join(dir, "hard.html")
	toTrace := filepath.Join(dir, "trace-link.html")
	existing := filepath.Join(dir, "old.html")
	for _, err := range []error{os.Symlink(victim, link), os.Link(trace, hard), os.Symlink(trace, toTrace), os.WriteFile(existing, []byte("old"), 0o644)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--html", trace}, "is an input"},
		{[]string{"--svg", trace, "--force"}, "is an input"},
		{[]string{"-o", hard, "--force"}, "is an input"},
		{[]string{"--html", toTrace, "--force"}, "is an input"},
		{[]string{"--html", link}, "symbolic link"},
		{[]string{"--html", existing}, "without --force"},
		{[]string{"-o", existing}, "without --force"},
		{[]string{"--html", "/dev/null", "--force"}, "not a regular file"},
		{[]string{"--html", dir, "--force"}, "not a regular file"},
		{[]string{"--html", filepath.Join(dir, "none", "x.html")}, "cannot write " + filepath.Join(dir, "none", "x.html")},
		{[]string{"-o", existing, "--html", existing}, "the same file"},
	} {
		if _, errOut, code := summary(t, append(c.args, trace)...); code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", c.args, code, c.want, errOut)
		}
	}
	if b, err := os.ReadFile(trace); err != nil || !bytes.Equal(b, data) {
		t.Fatalf("the trace changed: %v", err)
	}
	if b, err := os.ReadFile(existing); err != nil || string(b) != "old" {
		t.Errorf("%s changed: %q %v", existing, b, err)
	}

	// --force replaces the link itself, not what it names; -o gets the
	// summary; every output has mode 0600.
	out := filepath.Join(dir, "summary.txt")
	if stdout, errOut, code := summary(t, "--html", link, "-o", out, "--force", trace); code != 0 || stdout != "" {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, errOut)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "keep me" {
		t.Errorf("the link's target changed: %q %v", b, err)
	}
	for _, p := range []string{link, out} {
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want a regular file of mode 0600", p, fi.Mode(), err)
		}
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), "vulkan.mem.app.usage.unbound_memory") {
		t.Errorf("-o: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// - is standard input, and the input the outputs must not replace.
func TestTraceSummaryStdin(t *testing.T) {
	dir := t.TempDir()
	trace, data := smallTrace(t, dir)
	want, _, code := summary(t, trace)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	rootCmd.SetIn(bytes.NewReader(data))
	got, errOut, code := summary(t, "-")
	rootCmd.SetIn(nil)
	if code != 0 || got != want {
		t.Errorf("stdin: exit %d\n%s\nwant\n%s\n%s", code, got, want, errOut)
	}
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rootCmd.SetIn(f)
	_, errOut, code = summary(t, "--html", trace, "--force", "-")
	rootCmd.SetIn(nil)
	if code != 2 || !strings.Contains(errOut, "is an input") {
		t.Errorf("stdin as output: exit %d\n%s", code, errOut)
	}
}

// A damaged packet is skipped and counted (exit 1, the summary of the
// others); a gzip'd trace and one whose packets are compressed read as the
// trace; what is no trace is named.
func TestTraceSummaryBadInput(t *testing.T) {
	dir := t.TempDir()
	trace, data := smallTrace(t, dir)
	want, _, _ := summary(t, trace)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got, errOut, code := summary(t, write("t.pftrace.gz", gzipBytes(data))); code != 0 || got != want {
		t.Errorf("gzip: exit %d\n%s\n%s", code, got, errOut)
	}
	// As traced writes with compression_type DEFLATE: the packets in a
	// zlib stream in a packet's compressed_packets (field 50).
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(data)
	zw.Close()
	deflated := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType),
		protowire.AppendBytes(protowire.AppendTag(nil, 50, protowire.BytesType), z.Bytes()))
	if got, errOut, code := summary(t, write("deflated.pftrace", deflated)); code != 0 || got != want {
		t.Errorf("compressed_packets: exit %d\n%s\n%s", code, got, errOut)
	}
	// Garbage over the tag of a packet in the middle: the framing breaks.
	bad := bytes.Clone(data)
	mid := len(bad) / 2
	for bad[mid] != 0x0a || bad[mid+1] >= 0x80 { // a packet's tag and one-byte length, likely
		mid++
	}
	bad[mid] = 0xff
	got, errOut, code := summary(t, write("bad.pftrace", bad))
	if code != 1 || !strings.Contains(got, "vulkan.mem.app.usage.unbound_memory") || !strings.Contains(errOut, "damaged packet(s) skipped") ||
		!strings.Contains(errOut, "the summary covers every other packet") {
		t.Errorf("damaged: exit %d, want 1\n%s\n%s", code, got, errOut)
	}
	for name, c := range map[string]struct{ in, want string }{
		"page.html":   {"<!DOCTYPE html>\n<html></html>\n", "HTML"},
		"trace.zst":   {"\x28\xb5\x2f\xfd\x04\x58\x00", "zstd"},
		"notes.txt":   {"\nnot a trace\n", "text"},
		"empty":       {"", "empty"},
		"a.out":       {"\x7fELF\x02\x01\x01\x00", "ELF"},
		"text.gz":     {string(gzipBytes([]byte("hello\n"))), "gzip-compressed text"},
		"archive.zip": {"PK\x03\x04\x14\x00", "zip"},
	} {
		p := write(name, []byte(c.in))
		if _, errOut, code := summary(t, p); code != 2 || !strings.Contains(errOut, p+": byte offset 0") || !strings.Contains(errOut, "not a Perfetto trace: ") || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, want 2 and %q\n%s", name, code, c.want, errOut)
		}
	}
}

func gzipBytes(b []byte) []byte {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(b)
	w.Close()
	return gz.Bytes()
}

// cliSession starts a session writing into the returned buffer.
func cliSession(t *testing.T) (*bytes.Buffer, *perfetto.Session) {
	t.Helper()
	var buf bytes.Buffer
	s, err := perfetto.StartSession("cli", perfetto.WriterOutput(&buf), perfetto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &buf, s
}
