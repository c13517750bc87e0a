package main

import "testing"

func TestByteSize(t *testing.T) {
	for in, want := range map[string]int64{"65536": 65536, "512KiB": 512 << 10, "4MiB": 4 << 20, "2G": 2 << 30, " 3 M ": 3 << 20, "10B": 10} {
		var s byteSize
		if err := s.Set(in); err != nil || int64(s) != want {
			t.Errorf("%q: %d, %v; want %d", in, s, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "lots", "1.5MiB", "2TiB", "9999999999G"} {
		var s byteSize
		if err := s.Set(in); err == nil {
			t.Errorf("%q accepted as %d", in, s)
		}
	}
	for in, want := range map[byteSize]string{4 << 20: "4MiB", 1536: "1536", 1 << 30: "1GiB", 7: "7"} {
		if got := in.String(); got != want {
			t.Errorf("%d prints %q, want %q", int64(in), got, want)
		}
	}
}
