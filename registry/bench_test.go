package registry

import (
	"os"
	"testing"

	"github.com/beevik/etree"
	"github.com/vkgen/vkgen/internal/testenv"
)

// BenchmarkLoad times Load (read, XML parse, model build, index) on the
// pinned and the Debian registry; the etree sub-benchmark is the baseline of
// the same run: reading and parsing the file into an etree document only,
// which every Load does first.
func BenchmarkLoad(b *testing.B) {
	for _, v := range []string{"1.4.359", "1.3.239"} {
		path := testenv.Registry(b, v)
		b.Run(v+"/model", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Load(path); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(v+"/etree", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				src, err := os.ReadFile(path)
				if err != nil {
					b.Fatal(err)
				}
				if err := etree.NewDocument().ReadFromBytes(src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
