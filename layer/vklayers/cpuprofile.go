//go:build vkgenprof

package main

// Built with -tags vkgenprof (bench/layers/sustained.sh PROFILE=1), the
// library writes a CPU profile of its Go code: VKGEN_CPUPROFILE=FILE starts
// it when the library loads and stops it VKGEN_CPUPROFILE_SECONDS (default
// 10) later, so that no exit path has to end it. Not in the shipped build.

import (
	"os"
	"runtime/pprof"
	"strconv"
	"time"
)

func init() {
	path := os.Getenv("VKGEN_CPUPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		return
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return
	}
	secs, err := strconv.ParseFloat(os.Getenv("VKGEN_CPUPROFILE_SECONDS"), 64)
	if err != nil || secs <= 0 {
		secs = 10
	}
	go func() {
		time.Sleep(time.Duration(secs * float64(time.Second)))
		pprof.StopCPUProfile()
		f.Close()
	}()
}
