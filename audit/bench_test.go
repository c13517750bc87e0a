package audit

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkParse parses real code (the reference fixture, repeated to
// 1 MiB) and the tokenizer's worst case, a token in every byte.
func BenchmarkParse(b *testing.B) {
	ref, err := os.ReadFile(fixture("reference39.c"))
	if err != nil {
		b.Fatal(err)
	}
	for name, src := range map[string]string{
		"code":        strings.Repeat(string(ref), (1<<20)/len(ref)+1),
		"punctuation": strings.Repeat("{(", 1<<19),
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				Parse("f", src)
			}
		})
	}
}
