package tablefmt

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/gen/objtypes"
)

var tables = &objtypes.Tables{HeaderVersion: 9, DebugReport: []objtypes.DebugReportType{
	{Name: "VK_DEBUG_REPORT_OBJECT_TYPE_SURFACE_KHR_EXT", Value: 26, ObjectType: "VK_OBJECT_TYPE_SURFACE_KHR", ObjectTypeValue: 1000000000},
	{Name: "VK_DEBUG_REPORT_OBJECT_TYPE_GONE_EXT", Value: 31},
}}

func TestFormats(t *testing.T) {
	for _, f := range Formats {
		var b bytes.Buffer
		if err := Write(&b, tables, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out := b.String()
		if !strings.Contains(out, "VK_OBJECT_TYPE_SURFACE_KHR") || !strings.Contains(out, "1000000000") || !strings.Contains(out, "GONE_EXT") {
			t.Errorf("%s output lacks a row:\n%s", f, out)
		}
		switch f {
		case "json":
			var doc struct {
				HeaderVersion int   `json:"registry_header_version"`
				Rows          []Row `json:"rows"`
			}
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil || doc.HeaderVersion != 9 || len(doc.Rows) != 2 || doc.Rows[1].Mapped {
				t.Errorf("json: %+v %v", doc, err)
			}
		case "csv":
			recs, err := csv.NewReader(&b).ReadAll()
			if err != nil || len(recs) != 3 || recs[2][3] != "" || recs[1][1] != "26" {
				t.Errorf("csv: %q %v", recs, err)
			}
		}
	}
	if err := Write(&bytes.Buffer{}, tables, "yaml"); err == nil {
		t.Error("unknown format accepted")
	}
}
