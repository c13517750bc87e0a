package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"

	"github.com/vkgen/vkgen/gen/objtypes"
)

// WriteText audits paths and writes each file's result as it is made (a
// summary or why it has no table, its notes, one line per finding), then a
// summary line. What it holds is one file's tables and one table's
// findings, whatever the output's size.
func WriteText(w io.Writer, t *objtypes.Tables, paths []string, opt Options) (*Report, error) {
	out := bufio.NewWriter(w)
	rep := Each(t, paths, opt, func(f *FileResult, findings iter.Seq[Finding]) {
		switch {
		case f.Error != "": // names the file already
			fmt.Fprintf(out, "error: %s\n", f.Error)
		case f.NoTable != "":
			fmt.Fprintf(out, "%s: %s\n", f.File, f.NoTable)
		default:
			fmt.Fprintf(out, "%s: %s\n", f.File, f.Summary())
		}
		for _, n := range f.Notes {
			fmt.Fprintln(out, n)
		}
		for fd := range findings {
			fmt.Fprintln(out, fd)
		}
	})
	fmt.Fprintf(out, "%d finding(s) in %d row(s) of %d file(s) against VK_HEADER_VERSION %d\n",
		rep.Findings, rep.Rows, len(rep.Files), rep.HeaderVersion)
	return rep, out.Flush()
}

// WriteJSON is WriteText as the JSON of a Report (every file with its
// findings), one file's header and each finding on a line of their own.
func WriteJSON(w io.Writer, t *objtypes.Tables, paths []string, opt Options) (*Report, error) {
	out := bufio.NewWriter(w)
	fmt.Fprintf(out, "{\"registry_header_version\":%d,\"files\":[", t.HeaderVersion)
	var err error
	first := true
	rep := Each(t, paths, opt, func(f *FileResult, findings iter.Seq[Finding]) {
		if !first {
			out.WriteByte(',')
		}
		first = false
		head, e := marshal(f) // ends with its empty findings: "findings":[]}
		head, ok := bytes.CutSuffix(head, []byte("[]}"))
		if e != nil || !ok {
			err = fmt.Errorf("audit: encoding the result of %s: %v", f.File, e)
			return
		}
		out.WriteString("\n")
		out.Write(head)
		out.WriteByte('[')
		sep := "\n"
		for fd := range findings {
			b, e := marshal(fd)
			if e != nil {
				err = e
				return
			}
			out.WriteString(sep)
			out.Write(b)
			sep = ",\n"
		}
		out.WriteString("]}")
	})
	fmt.Fprintf(out, "\n],\"rows\":%d,\"findings\":%d,\"status\":%d}\n", rep.Rows, rep.Findings, rep.Status)
	if err != nil {
		return rep, err
	}
	return rep, out.Flush()
}

// marshal is json.Marshal without HTML escaping (no trailing newline).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}
