// Package tablefmt prints the debug-report -> object-type mapping of
// gen/objtypes for people auditing hand-written tables, in text, markdown,
// JSON or CSV. It formats only; the facts come from gen/objtypes.
package tablefmt

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/vkgen/vkgen/gen/objtypes"
)

// Formats lists the accepted format names.
var Formats = []string{"text", "markdown", "json", "csv"}

// Row is one non-alias VkDebugReportObjectTypeEXT value and its mapping.
type Row struct {
	DebugReport      string   `json:"debug_report"`
	DebugReportValue int64    `json:"debug_report_value"`
	Aliases          []string `json:"aliases,omitempty"`
	ObjectType       string   `json:"object_type"` // "" when unmapped
	ObjectTypeValue  int64    `json:"object_type_value"`
	Mapped           bool     `json:"mapped"`
}

// Rows returns the mapping rows of t, ascending by debug-report value.
func Rows(t *objtypes.Tables) []Row {
	rows := make([]Row, 0, len(t.DebugReport))
	for _, d := range t.DebugReport {
		rows = append(rows, Row{
			DebugReport: d.Name, DebugReportValue: d.Value, Aliases: d.Aliases,
			ObjectType: d.ObjectType, ObjectTypeValue: d.ObjectTypeValue, Mapped: d.ObjectType != "",
		})
	}
	return rows
}

// Write prints the mapping of t to w in format.
func Write(w io.Writer, t *objtypes.Tables, format string) error {
	rows := Rows(t)
	switch format {
	case "text":
		tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "VkDebugReportObjectTypeEXT\tvalue\tVkObjectType\tvalue")
		for _, r := range rows {
			if r.Mapped {
				fmt.Fprintf(tw, "%s\t%d\t%s\t%d\n", r.DebugReport, r.DebugReportValue, r.ObjectType, r.ObjectTypeValue)
			} else {
				fmt.Fprintf(tw, "%s\t%d\t(unmapped)\t-\n", r.DebugReport, r.DebugReportValue)
			}
		}
		return tw.Flush()
	case "markdown":
		fmt.Fprintln(w, "| VkDebugReportObjectTypeEXT | value | VkObjectType | value |")
		fmt.Fprintln(w, "|---|---:|---|---:|")
		for _, r := range rows {
			if r.Mapped {
				fmt.Fprintf(w, "| `%s` | %d | `%s` | %d |\n", r.DebugReport, r.DebugReportValue, r.ObjectType, r.ObjectTypeValue)
			} else {
				fmt.Fprintf(w, "| `%s` | %d | (unmapped) | |\n", r.DebugReport, r.DebugReportValue)
			}
		}
		return nil
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(struct {
			HeaderVersion int   `json:"registry_header_version"`
			Rows          []Row `json:"rows"`
		}{t.HeaderVersion, rows})
	case "csv":
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"debug_report", "debug_report_value", "object_type", "object_type_value"})
		for _, r := range rows {
			ov := ""
			if r.Mapped {
				ov = strconv.FormatInt(r.ObjectTypeValue, 10)
			}
			_ = cw.Write([]string{r.DebugReport, strconv.FormatInt(r.DebugReportValue, 10), r.ObjectType, ov})
		}
		cw.Flush()
		return cw.Error()
	}
	return fmt.Errorf("unknown format %q (want one of %v)", format, Formats)
}
