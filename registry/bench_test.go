package registry

import (
	"testing"

	"github.com/vkgen/vkgen/internal/testenv"
)

func BenchmarkLoad1_4_359(b *testing.B) {
	path := testenv.Registry(b, "1.4.359")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(path); err != nil {
			b.Fatal(err)
		}
	}
}
