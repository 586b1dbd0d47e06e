package main

import (
	"strings"
	"testing"
	"time"
)

// TestParallelFlags: --batch, --simulate-workers and --async train to a
// certified gap, and every inapplicable or conflicting use is one line of
// error naming the flag.
func TestParallelFlags(t *testing.T) {
	base := []string{"train", "--data", "synthetic", "--synthetic-words", "20", "--quiet", "--lambda", "0.1", "--gap-every", "1"}
	for _, extra := range [][]string{
		{"--workers", "2"},
		{"--workers", "2", "--batch", "3", "--method", "bcfw"},
		{"--simulate-workers", "8"},
		{"--async", "--workers", "2"},
		{"--workers", "2", "--batch", "4", "--lookahead", "2"},
		{"--workers", "2", "--method", "mp-bcfw", "--mp-rule", "cost", "--mp-cost-ratio", "20"},
		{"--batch", "3", "--lookahead", "1", "--method", "mp-bcfw"},
		{"--simulate-workers", "3", "--simulate-delays", "1,5,2,1"},
		{"--workers", "2", "--lookahead", "3"}, // batches of one block, three ahead
	} {
		args := append(append(append([]string{}, base...), "--gap-tol", "0.05", "--passes", "200"), extra...)
		if code, out, errOut := runCLIWithin(t, time.Minute, args...); code != 0 || !strings.Contains(out, "done (converged)") {
			t.Errorf("%v: exit %d, %s %s", extra, code, out, errOut)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--batch", "-1"}, "--batch must be >= 0"},
		{[]string{"--simulate-workers", "-2"}, "--simulate-workers must be >= 0"},
		{[]string{"--batch", "2", "--method", "fw"}, "--batch does not apply to --method fw (a flag of --method auto, recommended, bcfw, mp-bcfw or lp-hard)"},
		{[]string{"--async", "--method", "ssg"}, "--async does not apply to --method ssg (a flag of --method auto, recommended, bcfw or lp-hard)"},
		{[]string{"--async", "--workers", "2", "--method", "mp-bcfw"}, "--async does not apply to --method mp-bcfw"},
		{[]string{"--simulate-workers", "3", "--method", "mp-bcfw"}, "--simulate-workers does not apply to --method mp-bcfw"},
		{[]string{"--lookahead", "1", "--method", "cp"}, "--lookahead does not apply to --method cp"},
		{[]string{"--batch", "2", "--method", "exact"}, "--batch does not apply to --method exact"},
		{[]string{"--lookahead", "-1"}, "--lookahead must be >= 0"},
		{[]string{"--simulate-delays", "0,1"}, "--simulate-delays needs --simulate-workers"},
		{[]string{"--simulate-workers", "2", "--simulate-delays", "0,x"}, "--simulate-delays: weight 1 is"},
		{[]string{"--simulate-workers", "2", "--simulate-delays", "0,0"}, "--simulate-delays: the weights must have a positive sum"},
		{[]string{"--batch", "2", "--async"}, "choose one"},
		{[]string{"--simulate-workers", "4", "--batch", "2"}, "choose one"},
	} {
		code, out, errOut := runCLIWithin(t, 30*time.Second, append(append([]string{}, base...), tc.args...)...)
		if code != 1 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line saying %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// TestWorkersResume: a run trained with --workers 2 as a mini-batch of 2
// with a lookahead and resumed with --workers 1 continues the same run:
// the batch size and lookahead are in the checkpoint, the workers are not;
// --workers alone leaves the steps sequential (their trajectory is the
// one-worker run's).
func TestWorkersResume(t *testing.T) {
	ck := t.TempDir() + "/ck"
	base := []string{"train", "--data", "synthetic", "--synthetic-words", "30", "--quiet"}
	lastLine := func(args ...string) string {
		t.Helper()
		code, out, errOut := runCLIWithin(t, time.Minute, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d, %s", args, code, errOut)
		}
		// The summary (past the solver and evaluation times) and what
		// follows it (a mini-batch's delays).
		k := strings.LastIndex(out, " solver time")
		if k < 0 {
			t.Fatalf("%v: no summary line in %q", args, out)
		}
		return out[k+strings.Index(out[k:], ": gap"):]
	}
	batch := []string{"--workers", "2", "--batch", "2", "--lookahead", "1"}
	whole := lastLine(append(append(append([]string{}, base...), batch...), "--passes", "6")...)
	lastLine(append(append(append([]string{}, base...), batch...), "--passes", "3", "--checkpoint", ck)...)
	resumed := lastLine("train", "--resume", ck, "--workers", "1", "--passes", "6", "--quiet")
	sequential := lastLine(append(append([]string{}, base...), "--workers", "1", "--passes", "6")...)
	workers := lastLine(append(append([]string{}, base...), "--workers", "2", "--passes", "6")...)
	if resumed != whole {
		t.Errorf("resumed with --workers 1: %s; uninterrupted with --workers 2: %s", resumed, whole)
	}
	if sequential == whole {
		t.Errorf("--batch 2 followed the sequential run (%s): no mini-batch", whole)
	}
	if workers != sequential {
		t.Errorf("--workers 2 alone: %s; --workers 1: %s (the steps of bcfw must stay sequential)", workers, sequential)
	}
}

// TestDelaysReplayed: a mini-batch run prints the staleness of its steps as
// the weights --simulate-delays takes, and the simulator run with them
// replays that distribution.
func TestDelaysReplayed(t *testing.T) {
	base := []string{"train", "--data", "synthetic", "--synthetic-words", "30", "--passes", "4", "--quiet"}
	code, out, errOut := runCLIWithin(t, time.Minute, append(append([]string{}, base...), "--batch", "3")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	const key = "--simulate-delays "
	k := strings.Index(out, key)
	if k < 0 || !strings.Contains(out, "steps applied 1 steps after the iterate they read, on average") {
		t.Fatalf("no staleness line (a batch of 3 has delays 0, 1, 2: mean 1): %s", out)
	}
	weights := strings.TrimSuffix(strings.TrimSpace(out[k+len(key):]), ")")
	if n := strings.Count(weights, ","); n != 2 {
		t.Fatalf("weights %q: want the 3 delays of a batch of 3", weights)
	}
	code, out, errOut = runCLIWithin(t, time.Minute, append(append([]string{}, base...), "--simulate-workers", "3", "--simulate-delays", weights)...)
	if code != 0 || !strings.Contains(out, "on average") {
		t.Fatalf("replayed: exit %d: %s %s", code, out, errOut)
	}
	if code, out, _ := runCLIWithin(t, time.Minute, base...); code != 0 || strings.Contains(out, "on average") {
		t.Fatalf("sequential bcfw printed a staleness: %s", out)
	}
}

// TestAutoLineWithExecutionGiven: with an execution named on the command
// line, auto's line says that the execution is the one given, not why auto
// would have chosen another.
func TestAutoLineWithExecutionGiven(t *testing.T) {
	code, out, errOut := runCLIWithin(t, time.Minute, "train", "--data", "synthetic", "--synthetic-words", "30", "--passes", "1", "--quiet", "--batch", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "execution mini-batch of 2") || !strings.Contains(out, "; the execution given (--batch)") || strings.Contains(out, "sequential steps") {
		t.Errorf("the auto line does not say the execution is the one given:\n%s", out)
	}
}
