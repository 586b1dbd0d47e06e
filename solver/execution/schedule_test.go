package execution

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fwstruct/fwstruct/solver/run"
)

// fakeSteps is a method whose iterate is the count of its steps (w[0] =
// Made()): a read part records the iterate it saw, so a write can check
// the age the scheduler gives it, and the fake checks the rest of the
// contract of Steps as it is called.
type fakeSteps struct {
	t       *testing.T
	n       int
	workers int
	pass    int // Room: the steps left in a pass of pass steps (0: unbounded)
	made    int64
	w       []float64
	pcg     *rand.PCG
	rng     *rand.Rand
	under   map[int]bool // blocks begun and not written
	moved   map[int]bool // blocks under way when Moved was called: their age is unknown
	written []int
}

// fakeRead is the fake's read part: the iterate it saw.
type fakeRead struct {
	at   float64
	read bool
}

func newFake(t *testing.T, n, workers, pass int) *fakeSteps {
	pcg := rand.NewPCG(1, 2)
	return &fakeSteps{t: t, n: n, workers: workers, pass: pass, w: []float64{0}, pcg: pcg, rng: rand.New(pcg), under: map[int]bool{}, moved: map[int]bool{}}
}

func (f *fakeSteps) Blocks() int        { return f.n }
func (f *fakeSteps) Workers() int       { return f.workers }
func (f *fakeSteps) Made() int64        { return f.made }
func (f *fakeSteps) Iterate() []float64 { return f.w }

func (f *fakeSteps) Step() error {
	f.written = append(f.written, f.rng.IntN(f.n))
	f.advance()
	return nil
}

func (f *fakeSteps) Draw(tau int, exclude []int, dst []int) []int {
	dst = dst[:0]
	for len(dst) < min(tau, f.n-len(exclude)) {
		if i := f.rng.IntN(f.n); !slices.Contains(dst, i) && !slices.Contains(exclude, i) {
			dst = append(dst, i)
		}
	}
	return dst
}

func (f *fakeSteps) Room() int {
	if f.pass == 0 {
		return math.MaxInt
	}
	return f.pass - int(f.made%int64(f.pass))
}

func (f *fakeSteps) Snapshot(dst []float64, _ int) []float64 { return append(dst[:0], f.w...) }

func (f *fakeSteps) Begin(i int, e *fakeRead) {
	if f.under[i] {
		f.t.Errorf("block %d begun while under way", i)
	}
	f.under[i] = true
	e.read = false
}

func (f *fakeSteps) Read(i int, e *fakeRead, w []float64, k int) error {
	if k < 0 || k >= max(1, f.workers) {
		return fmt.Errorf("block %d read on worker %d of %d", i, k, f.workers)
	}
	e.at, e.read = w[0], true
	return nil
}

func (f *fakeSteps) Write(i int, e *fakeRead, age int64) error {
	switch {
	case !f.under[i] || !e.read:
		return fmt.Errorf("block %d written without a read part", i)
	case f.moved[i] && age >= 0, !f.moved[i] && age != f.made-int64(e.at):
		return fmt.Errorf("block %d read at step %v written at step %d with age %d (moved %v)", i, e.at, f.made, age, f.moved[i])
	case f.pass > 0 && f.Room() == 1 && len(f.under) > 1:
		return fmt.Errorf("%d blocks under way at the end of a pass", len(f.under))
	}
	delete(f.under, i)
	delete(f.moved, i)
	f.written = append(f.written, i)
	f.advance()
	return nil
}

func (f *fakeSteps) advance() {
	f.made++
	f.w[0] = float64(f.made)
}

func (f *fakeSteps) Save(_ int, e *fakeRead) float64 { return e.at }

func (f *fakeSteps) Restore(i int, e *fakeRead, at float64) error {
	if f.under[i] {
		return errors.New("restored twice")
	}
	f.under[i] = true
	e.at, e.read = at, true
	return nil
}

// TestSchedulersKeepTheContract runs every execution over the fake: no
// block is under way twice, every write gets the age of its read (unknown
// after Moved), a mini-batch respects Room, and a run saved mid-queue and
// restored over a copy of the method writes the same blocks as the run
// that goes on.
func TestSchedulersKeepTheContract(t *testing.T) {
	for _, c := range []struct {
		x             run.Execution
		pass          int
		deterministic bool
	}{
		{nil, 0, true},
		{MiniBatch{Batch: 1}, 0, true},
		{MiniBatch{Batch: 3}, 0, true},
		{MiniBatch{Batch: 3, Lookahead: 2}, 0, true},
		{MiniBatch{Batch: 4, Lookahead: 1}, 7, true},
		{Simulated{Workers: 1}, 0, true},
		{Simulated{Workers: 4}, 0, true},
		{Simulated{Workers: 3, Delays: &Delays{Weights: []float64{1, 0, 2, 1}}}, 0, true},
		{Async{}, 0, false},
	} {
		name := "sequential"
		if c.x != nil {
			name = c.x.Describe()
		}
		t.Run(name, func(t *testing.T) {
			f := newFake(t, 12, 3, c.pass)
			s, err := Schedule(c.x, Steps[fakeRead, float64](f), 7)
			if err != nil {
				t.Fatal(err)
			}
			step := func(s Scheduler[fakeRead, float64], k int) {
				t.Helper()
				for range k {
					if err := s.Step(); err != nil {
						t.Fatal(err)
					}
				}
			}
			step(s, 40)
			s.Settle()
			if len(f.under) > 0 && !s.Ahead() {
				t.Errorf("%d blocks under way in a run that does not read ahead", len(f.under))
			}
			for i := range f.under {
				f.moved[i] = true
			}
			s.Moved()
			step(s, 25)
			s.Stop()

			sv := s.Save()
			if sv != nil && len(sv.Blocks) != len(f.under) {
				t.Fatalf("saved %d steps under way, %d begun", len(sv.Blocks), len(f.under))
			}
			g := newFake(t, 12, 2, c.pass)
			g.made, g.w[0] = f.made, f.w[0]
			for i := range f.moved {
				g.moved[i] = true
			}
			state, _ := f.pcg.MarshalBinary()
			if err := g.pcg.UnmarshalBinary(state); err != nil {
				t.Fatal(err)
			}
			r, err := Schedule(c.x, Steps[fakeRead, float64](g), 7)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Restore(sv); err != nil {
				t.Fatal(err)
			}
			from := len(f.written)
			step(s, 30)
			step(r, 30)
			s.Stop()
			r.Stop()
			if c.deterministic && !slices.Equal(f.written[from:], g.written) {
				t.Fatalf("after the checkpoint the run writes %v, the restored one %v", f.written[from:], g.written)
			}
		})
	}
}

// TestScheduleRefusals: values an execution refuses, and a checkpoint's
// queue a scheduler refuses, each with an error.
func TestScheduleRefusals(t *testing.T) {
	f := newFake(t, 5, 1, 0)
	for _, x := range []run.Execution{MiniBatch{Batch: 0}, MiniBatch{Batch: 2, Lookahead: 5}, Simulated{Workers: 0}, Simulated{Workers: 2, Delays: &Delays{}}} {
		if _, err := Schedule(x, Steps[fakeRead, float64](f), 1); err == nil {
			t.Errorf("%+v accepted", x)
		}
	}
	for _, c := range []struct {
		x  run.Execution
		sv *Saved[float64]
	}{
		{nil, &Saved[float64]{Blocks: []int32{1}, Ats: []int64{0}, Reads: []float64{0}}},
		{MiniBatch{Batch: 2}, &Saved[float64]{Blocks: []int32{1, 2, 3}, Ats: []int64{0, 0, 0}, Reads: []float64{0, 0, 0}}},
		{MiniBatch{Batch: 2}, &Saved[float64]{Blocks: []int32{7}, Ats: []int64{0}, Reads: []float64{0}}},
		{Simulated{Workers: 2}, &Saved[float64]{Blocks: []int32{1}, Ats: []int64{3}, Reads: []float64{0}}},
		{Simulated{Workers: 2}, &Saved[float64]{Blocks: []int32{1, 1}, Ats: []int64{0, 0}, Reads: []float64{0, 0}}},
		{Simulated{Workers: 2, Delays: &Delays{Weights: []float64{1}}}, &Saved[float64]{Blocks: []int32{1}, Ats: []int64{0}, Reads: []float64{0}}},
		{Async{}, &Saved[float64]{Blocks: []int32{1}, Ats: []int64{0}}},
	} {
		s, err := Schedule(c.x, Steps[fakeRead, float64](newFake(t, 5, 1, 0)), 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Restore(c.sv); err == nil {
			t.Errorf("%v restored %+v", c.x, c.sv)
		}
	}
}
