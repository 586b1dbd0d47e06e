package solver_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/internal/realdata"
	"github.com/fwstruct/fwstruct/solver"
	"github.com/fwstruct/fwstruct/solver/execution"
	"github.com/fwstruct/fwstruct/solver/run"
)

// BenchmarkLPHardYeast times a run of LP-hard BCFW on the Yeast training
// set (the recommended preset at lambda 0.01, an exact gap pass every 2
// passes, 6 passes in all), whose steps are nearly all the LP oracle:
// sequentially on one worker and as a mini-batch of 2 with a lookahead of
// 2 on two, the execution the command line gives lp-hard with 2 workers.
// The ratio of the two is the parallel speedup of LP-hard's steps on this
// machine (read it under a quiet load only; cpu-ns/op, the process's CPU
// time, is what a busy machine disturbs less); each op is a whole run, so
// run it with -benchtime 1x and -count.
func BenchmarkLPHardYeast(b *testing.B) {
	d, err := datasets.LoadMULAN(realdata.File(b, "yeast/yeast-train.arff"), datasets.Options{})
	if err != nil {
		b.Fatal(err)
	}
	m := solver.LPHard{BCFW: solver.Recommended(0.01)}
	m.GapEvery = 2
	for _, c := range []struct {
		name    string
		x       run.Execution
		workers int
	}{
		{"sequential", nil, 1},
		{"batch=2-lookahead=2", execution.MiniBatch{Batch: 2, Lookahead: 2}, 2},
	} {
		b.Run(fmt.Sprintf("%s/workers=%d", c.name, c.workers), func(b *testing.B) {
			t0 := cpuTime()
			for range b.N {
				s, err := m.New(d.Train, run.WithExecution(c.x), run.WithWorkers(c.workers))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Run(context.Background(), run.Stop{Passes: 6}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-t0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime returns the CPU time the process has used so far, in
// nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
