package tracesummary

import (
	"io"
	"runtime"
	"sync"
)

// Input is one trace for ReadMany: its name in errors and how to open it
// (called when its turn comes, so open files stay bounded).
type Input struct {
	Name string
	Open func() (io.ReadCloser, error)
}

// Result is what Read returned for one input: a summary, an error, or both
// (a cut or damaged trace).
type Result struct {
	Summary *Summary
	Err     error
}

// ReadMany summarises every input, at most parallel at once (GOMAXPROCS
// when 0), and returns the results in input order. Unless o.Workers says
// otherwise, the decoding workers are shared out so that all traces
// together use every core once: many small traces run side by side, two
// large ones split the cores.
func ReadMany(ins []Input, o Options, parallel int) []Result {
	out := make([]Result, len(ins))
	ReadEach(ins, o, parallel, func(i int, r Result) { out[i] = r })
	return out
}

// ReadEach is ReadMany handing each input's result to fn as soon as it is
// read, on the goroutine that read it (fn must be safe for concurrent use
// on distinct i): a caller that keeps only what it needs of a summary holds
// at most parallel summaries at once, however many traces it reads.
func ReadEach(ins []Input, o Options, parallel int, fn func(i int, r Result)) {
	procs := runtime.GOMAXPROCS(0)
	if parallel <= 0 {
		parallel = procs
	}
	parallel = max(1, min(parallel, len(ins)))
	if o.Workers <= 0 {
		o.Workers = max(1, min(procs/parallel, maxWorkers))
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range parallel {
		wg.Go(func() {
			for i := range next {
				fn(i, readOne(ins[i], o))
			}
		})
	}
	for i := range ins {
		next <- i
	}
	close(next)
	wg.Wait()
}

func readOne(in Input, o Options) Result {
	r, err := in.Open()
	if err != nil {
		return Result{Err: err}
	}
	defer r.Close()
	s, err := Read(r, in.Name, o)
	return Result{Summary: s, Err: err}
}
