package tracecheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
)

// The example rules file of the docs parses.
func TestParseExample(t *testing.T) {
	f, err := os.Open(filepath.Join(testenv.Root(), "configs", "memory.rules"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules, err := Parse(f, "memory.rules")
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 13 {
		t.Fatalf("%d rules", len(rules))
	}
	r := rules[10]
	if r.Metric != "peak" || r.Kind != "name" || r.Key != "frame.*" || !r.Relative || r.Add != 1<<20 || r.Line != 20 {
		t.Errorf("rule 11 %+v", r)
	}
	if r := rules[12]; r.Metric != "growth" || r.Kind != "name" || r.Key != "*" || r.Limit != 4<<20 {
		t.Errorf("last rule %+v", r)
	}
	if r := rules[7]; !r.Relative || r.Percent != 5 || r.Kind != "total" || r.Key != "app" {
		t.Errorf("rule 8 %+v", r)
	}
}

func TestParseLimits(t *testing.T) {
	for in, want := range map[string]float64{"0": 0, "512": 512, "1KiB": 1024, "1.5MiB": 1.5 * (1 << 20), "2GB": 2e9, "3B": 3} {
		rules, err := Parse(strings.NewReader("peak total app <= "+in), "r")
		if err != nil || rules[0].Limit != want || rules[0].Relative {
			t.Errorf("%s: %+v %v", in, rules, err)
		}
	}
	rules, err := Parse(strings.NewReader("final heap 1<baseline - 2 %\ngrowth type IMAGE<=4KiB\nleaks==0\ngrowth_events name \"a*\" <= 2"), "r")
	if err != nil || rules[0].Op != "<" || rules[0].Percent != -2 || rules[1].Limit != 4096 || rules[2].Metric != "leaks" || rules[3].Limit != 2 || rules[3].Kind != "name" {
		t.Errorf("%+v %v", rules, err)
	}
}

// Bad rules files are errors naming the file, line and column.
func TestParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		"":                                "r: no rules",
		"# only a comment\n":              "r: no rules",
		"peek total app <= 1":             "r:1:1: unknown metric \"peek\"",
		"\n\npeak total ap <= 1":          "r:3:12: unknown total \"ap\"",
		"peak heap 16 <= 1":               "r:1:11: heap \"16\": want an index from 0 to 15",
		"peak cluster textures <= 1":      "r:1:14: unknown cluster \"textures\"",
		"peak type buffer <= 1":           "r:1:11: unknown type \"buffer\"",
		"peak colour x <= 1":              "r:1:6: unknown selector \"colour\"",
		"peak <= 1":                       "r:1:6: peak needs a selector",
		"peak name a b <= 1":              "r:1:13: unexpected \"b\"",
		"peak name \"a <= 1":              "r:1:11: unterminated quote",
		"peak name \"[\" <= 1":            "r:1:11: bad name pattern",
		"peak total app 1":                "r:1:16: no comparison",
		"peak total app <=":               "r:1:16: no limit after <=",
		"peak total app <= 1XB":           "r:1:19: bad limit \"1XB\"",
		"peak total app <= -1":            "r:1:19: bad limit \"-1\"",
		"peak total app <= NaN":           "r:1:19: bad limit \"NaN\"",
		"peak total app <= 1e300GiB":      "r:1:19: bad limit",
		"peak total app <= baseline*2":    "r:1:19: after baseline",
		"peak total app <= baseline+x%":   "r:1:19: bad percentage",
		"leaks type BUFFER == 0":          "r:1:7: leaks takes no selector",
		"growth heap 0 <= 1MiB":           "r:1:8: growth is measured per name, type or total, not \"heap\"",
		"growth_events cluster x <= 1":    "r:1:15: growth_events is measured per name, type or total",
		"growth total app <= 1MiB/s":      "r:1:21: bad limit \"1MiB/s\"",
		"peak total app <= 1 # c\nleaks ": "r:2:1: no comparison",
	} {
		_, err := Parse(strings.NewReader(in), "r")
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %s...", in, err, want)
		}
	}
	if _, err := Parse(strings.NewReader(strings.Repeat("leaks == 0\n", MaxRules+1)), "r"); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("too many rules: %v", err)
	}
	if _, err := Parse(strings.NewReader(strings.Repeat("#", MaxRulesBytes+1)), "r"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("too large: %v", err)
	}
}

// No input makes Parse panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"peak total app <= baseline+5%", "peak name \"a*\" == 0", "growth type BUFFER < 1KiB", "growth_events name \"x\" == baseline", "leaks == 0 # x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		Parse(strings.NewReader(s), "f")
	})
}
