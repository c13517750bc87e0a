package main

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag value in bytes that accepts binary suffixes: 8MiB,
// 512K, 1G. It is the reading limit of audit inputs (--max-size).
type byteSize int64

var sizeSuffixes = []struct {
	suffix string
	shift  uint
}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"K", 10}, {"M", 20}, {"G", 30}, {"B", 0}}

func (s *byteSize) String() string {
	for _, u := range sizeSuffixes[:3] {
		if *s > 0 && int64(*s)%(1<<u.shift) == 0 && int64(*s)>>u.shift < 1024 {
			return fmt.Sprintf("%d%s", int64(*s)>>u.shift, u.suffix)
		}
	}
	return strconv.FormatInt(int64(*s), 10)
}

func (s *byteSize) Set(v string) error {
	num, shift := strings.TrimSpace(v), uint(0)
	for _, u := range sizeSuffixes {
		if rest, ok := strings.CutSuffix(num, u.suffix); ok {
			num, shift = strings.TrimSpace(rest), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)>>shift {
		return fmt.Errorf("%q is not a size between 1 byte and 1TiB (e.g. 65536, 512KiB, 64MiB)", v)
	}
	*s = byteSize(n << shift)
	return nil
}

func (s *byteSize) Type() string { return "size" }
