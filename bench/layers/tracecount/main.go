// Command tracecount prints how many VkDebugUtilsObjectName packets and
// track events of each name a Perfetto trace holds, one "KIND NAME COUNT"
// line each, sorted: bench/layers/peer.sh checks with it that a traced
// session really recorded the layers' work (trace_processor does not
// expose the raw name packets).
//
// Usage: go run ./bench/layers/tracecount TRACE
package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/vkgen/vkgen/perfetto/decode"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: tracecount TRACE")
		os.Exit(2)
	}
	counts, err := count(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracecount:", err)
		os.Exit(1)
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Println(k, counts[k])
	}
}

func count(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts := map[string]int{}
	r := decode.NewReader(f, path)
	for {
		p, err := r.Next()
		if err == io.EOF {
			return counts, nil
		}
		if err != nil {
			return nil, err
		}
		switch {
		case p.ObjectName != nil:
			counts["packet VkDebugUtilsObjectName"]++
		case p.Event != nil && p.Event.Type == decode.TypeInstant && p.Event.Name != "":
			counts["event "+p.Event.Name]++ // instants: the lifetime slices beside them are not counted
		}
	}
}
