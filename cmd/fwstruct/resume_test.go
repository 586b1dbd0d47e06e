package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/datasets"
	fwmodel "github.com/fwstruct/fwstruct/model"
	"github.com/fwstruct/fwstruct/solver"
	solverrun "github.com/fwstruct/fwstruct/solver/run"
)

// childEnv makes the test binary run fwstruct's main (see TestMain).
const childEnv = "FWSTRUCT_TEST_AS_MAIN"

// TestMain runs the test binary as the fwstruct command when childEnv is
// set, so that tests can start, signal and kill real fwstruct processes
// built from this package.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// startChild starts fwstruct with args in a child process.
func startChild(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, &out
}

// checkpointPasses returns the passes recorded in a checkpoint's header
// (-1 while there is no readable checkpoint).
func checkpointPasses(path string) float64 {
	f, err := os.Open(path)
	if err != nil {
		return -1
	}
	defer f.Close()
	h, err := readCheckpointHeader(bufio.NewReader(f))
	if err != nil {
		return -1
	}
	return h.Passes
}

// readTraceFile reads a trace file, failing the test when it cannot.
func readTraceFile(t *testing.T, path string) []solverrun.Point {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := parseTrace(b)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// sameRun requires equal weights and equal traces but for the solver time.
func sameRun(t *testing.T, modelA, traceA, modelB, traceB string) {
	t.Helper()
	a, err := readModel(modelA)
	if err != nil {
		t.Fatal(err)
	}
	b, err := readModel(modelB)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Weights, b.Weights) || a.Passes != b.Passes {
		t.Fatalf("weights or passes differ: %v vs %v passes", a.Passes, b.Passes)
	}
	ta, tb := readTraceFile(t, traceA), readTraceFile(t, traceB)
	if len(ta) != len(tb) {
		t.Fatalf("traces of %d and %d points", len(ta), len(tb))
	}
	for k := range ta {
		pa, pb := ta[k], tb[k]
		// timings: the solver's and the evaluations' seconds, multi-plane
		// BCFW's share of the time in oracle calls
		pa.Seconds, pb.Seconds, pa.EvalSeconds, pb.EvalSeconds = 0, 0, 0, 0
		pa.OracleTimeShare, pb.OracleTimeShare = 0, 0
		ja, _ := json.Marshal(pa)
		jb, _ := json.Marshal(pb)
		if !bytes.Equal(ja, jb) {
			t.Fatalf("trace point %d differs:\n%s\n%s", k, ja, jb)
		}
	}
}

// TestResumeAfterSignal: a training run in a child process, checkpointing
// every 3 passes, is killed (SIGKILL: nothing written but the periodic
// checkpoints) or terminated (SIGTERM: handled like SIGINT, the run stops
// and writes its checkpoint, model and trace); train --resume then
// finishes it with exactly the weights and the trace (but for the solver
// time) of an uninterrupted run with the same seed.
func TestResumeAfterSignal(t *testing.T) {
	const passes = "120"
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			trace, model, ck := filepath.Join(dir, "trace.json"), filepath.Join(dir, "model.json"), filepath.Join(dir, "run.ckpt")
			args := []string{"train", "--data", "synthetic", "--synthetic-words", "40", "--passes", passes, "--gap-every", "2",
				"--seed", "7", "--train-loss", "--quiet", "--progress", "off"}
			cmd, out := startChild(t, append(args, "--trace", trace, "--model", model, "--checkpoint", ck, "--checkpoint-every", "3")...)
			deadline := time.Now().Add(time.Minute)
			for checkpointPasses(ck) < 3 {
				if time.Now().After(deadline) {
					t.Fatalf("no checkpoint after a minute: %s", out)
				}
				time.Sleep(5 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the child ended before the signal (%v); make the run longer:\n%s", err, out)
			}
			ws := exit.Sys().(syscall.WaitStatus)
			at := checkpointPasses(ck)
			switch sig {
			case syscall.SIGKILL:
				if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
					t.Fatalf("child: %v, want killed", err)
				}
				if _, err := os.Stat(model); err == nil {
					t.Fatal("a killed run wrote its model")
				}
			case syscall.SIGTERM:
				if ws.ExitStatus() != 1 || !strings.Contains(out.String(), "interrupted after") || !strings.Contains(out.String(), "--resume "+ck) {
					t.Fatalf("child: %v, output:\n%s", err, out)
				}
				// Everything computed was written, describing the same
				// iterate: the model's passes are the checkpoint's.
				m, err := readModel(model)
				if err != nil {
					t.Fatal(err)
				}
				if m.Passes != at || len(readTraceFile(t, trace)) < 2 {
					t.Fatalf("model at %v passes, checkpoint at %v", m.Passes, at)
				}
			}
			if !(at >= 3 && at < 120) {
				t.Fatalf("checkpoint at %v passes", at)
			}
			t.Logf("%v after %.1f passes (checkpoint)", sig, at)

			// The outputs are the command line's: a checkpoint records the
			// run, not where its outputs went.
			code, stdout, stderr := runCLI(t, "train", "--resume", ck, "--trace", trace, "--model", model)
			if code != 0 || !strings.Contains(stdout, "resumed from "+ck) {
				t.Fatalf("resume: exit %d\n%s%s", code, stdout, stderr)
			}
			refTrace, refModel := filepath.Join(dir, "ref-trace.json"), filepath.Join(dir, "ref-model.json")
			if code, _, stderr := runCLI(t, append(args, "--trace", refTrace, "--model", refModel)...); code != 0 {
				t.Fatal(stderr)
			}
			sameRun(t, model, trace, refModel, refTrace)

			// The checkpoint of the finished run goes on where it ended.
			if code, stdout, stderr := runCLI(t, "train", "--resume", ck, "--passes", "124"); code != 0 || !strings.Contains(stdout, "done (passes) after 124") {
				t.Fatalf("continuing a finished run: exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}
}

// TestResumeRefusesOtherData: a resumed run keeps its data and solver
// flags; different ones, or data that changed since the checkpoint, are
// refused with one line naming the difference.
func TestResumeRefusesOtherData(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "toy_train.csv")
	rows := "a,b,y\n1,0,x\n0,1,y\n1,1,z\n0.5,0,x\n0,0.5,y\n"
	writeTestFile(t, csv, []byte(rows))
	writeTestFile(t, filepath.Join(dir, "toy_test.csv"), []byte(rows))
	ck := filepath.Join(dir, "run.ckpt")
	if code, _, stderr := runCLI(t, "train", "--data", csv, "--method", "recommended", "--passes", "4", "--quiet", "--checkpoint", ck); code != 0 {
		t.Fatal(stderr)
	}
	rec, err := fwmodel.NewRecord(solver.BCFW{Lambda: 0.01}, nil, datasets.Spec{Name: csv}, 1)
	if err != nil {
		t.Fatal(err)
	}
	line, err := encodeHeader(checkpointHeader{Record: rec, Stop: stopRecord{Passes: 5}, TestLoss: true})
	if err != nil {
		t.Fatal(err)
	}
	garbage := writeTestFile(t, filepath.Join(dir, "garbage.ckpt"), append(line, "\nnot gob"...))
	older := writeTestFile(t, filepath.Join(dir, "older.ckpt"), []byte("{\"format\":\"fwstruct-checkpoint/1\",\"flags\":{}}\nnot gob"))
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--lambda", "0.5"}, `--lambda "0.5" differs from the checkpoint's "0.01"`},
		{[]string{"--data", "synthetic"}, `--data "synthetic" differs`},
		{[]string{"--scale", "minmax"}, `--scale "minmax" differs`},
		{[]string{"--sampling", "uniform"}, `--sampling "uniform" differs from the checkpoint's "gap"`},
		{[]string{"--method", "fw"}, `--method "fw" differs from the checkpoint's "bcfw"`},
		{[]string{"--batch", "2"}, `--batch "2" differs from the checkpoint's "0"`},
		{[]string{"--resume", filepath.Join(dir, "missing.ckpt")}, "missing.ckpt"},
		{[]string{"--resume", csv}, "not a checkpoint of fwstruct train"},
		{[]string{"--resume", garbage}, "not a checkpoint"},
		{[]string{"--resume", older}, "made by an older fwstruct: train again"},
	}
	for _, tc := range cases {
		code, _, stderr := runCLI(t, append([]string{"train", "--resume", ck}, tc.args...)...)
		if code != 1 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want one line saying %q", tc.args, code, stderr, tc.want)
		}
	}
	// Flags that do not change the problem may be given again.
	if code, _, stderr := runCLI(t, "train", "--resume", ck, "--lambda", "0.010", "--data", csv, "--passes", "6", "--quiet"); code != 0 {
		t.Fatalf("equal flags refused: %s", stderr)
	}
	// The data file changed under the checkpoint: other labels.
	writeTestFile(t, csv, []byte(strings.ReplaceAll(rows, "1,1,z", "1,1,x")))
	if code, _, stderr := runCLI(t, "train", "--resume", ck, "--passes", "8"); code != 1 || !strings.Contains(stderr, "cannot continue on") || !strings.Contains(stderr, "taken on other data: this problem has dimension d=6, not 9") {
		t.Errorf("changed data: exit %d, stderr %q", code, stderr)
	}
}

// TestResumeCheckpointsToItsFile: a resumed run checkpoints to the file it
// resumed from, or to --checkpoint, never to a path stored in the file: a
// copy of a checkpoint resumed leaves the original unchanged (issue 35,
// item 2).
func TestResumeCheckpointsToItsFile(t *testing.T) {
	dir := t.TempDir()
	orig, backup, other := filepath.Join(dir, "orig.ckpt"), filepath.Join(dir, "backup.ckpt"), filepath.Join(dir, "other.ckpt")
	base := []string{"--quiet", "--progress", "off"}
	if code, _, stderr := runCLI(t, append([]string{"train", "--data", "synthetic", "--synthetic-words", "20", "--passes", "2", "--checkpoint", orig}, base...)...); code != 0 {
		t.Fatal(stderr)
	}
	saved := mustRead(t, orig)
	writeTestFile(t, backup, saved)
	if code, _, stderr := runCLI(t, append([]string{"train", "--resume", backup, "--passes", "4"}, base...)...); code != 0 {
		t.Fatal(stderr)
	}
	if !bytes.Equal(mustRead(t, orig), saved) || checkpointPasses(backup) != 4 {
		t.Errorf("resuming a copy: the original changed (%v), the copy is at %v passes", !bytes.Equal(mustRead(t, orig), saved), checkpointPasses(backup))
	}
	if code, _, stderr := runCLI(t, append([]string{"train", "--resume", backup, "--passes", "6", "--checkpoint", other}, base...)...); code != 0 {
		t.Fatal(stderr)
	}
	if checkpointPasses(other) != 6 || checkpointPasses(backup) != 4 {
		t.Errorf("--checkpoint other.ckpt: other at %v passes, the resumed file at %v", checkpointPasses(other), checkpointPasses(backup))
	}
}
