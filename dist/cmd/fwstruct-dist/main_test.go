package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/dist"
)

// TestMain runs the command instead of the tests when FWSTRUCT_DIST_MAIN is
// set: the tests run the test binary as the command, in a process of its own
// (the command parses the process's flag set, as Beam needs, once).
func TestMain(m *testing.M) {
	if os.Getenv("FWSTRUCT_DIST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// runCommand runs fwstruct-dist with args and returns its exit code, stdout and
// stderr. Its outputs go to files, not pipes: a worker process it leaves
// behind (Beam's boot program does, see TestProcessEnvironment) would hold
// a pipe open.
func runCommand(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "FWSTRUCT_DIST_MAIN=1")
	cmd.Dir = dir
	files := [2]*os.File{}
	for i, name := range []string{"stdout", "stderr"} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		files[i] = f
	}
	cmd.Stdout, cmd.Stderr = files[0], files[1]
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%q did not end in 5 minutes", args)
	}
	var out [2]string
	for i, f := range files {
		b, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return code, out[0], out[1]
}

func readResults(t *testing.T, path string) []dist.TrainResult {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var res []dist.TrainResult
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var r dist.TrainResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		res = append(res, r)
	}
	return res
}

// TestTrainGrid runs a grid of 2 lambdas x 2 folds on prism and in a local
// loop: the same units, the same results.
func TestTrainGrid(t *testing.T) {
	dir := t.TempDir()
	grid := []string{"train", "--lambdas", "0.1,0.01", "--folds", "2", "--passes", "4", "--test",
		"--data-options", `{"synthetic": {"train_words": 30, "test_words": 10}}`}
	byRunner := map[string][]dist.TrainResult{}
	for _, r := range []string{"prism", "local"} {
		out := filepath.Join(dir, r+".jsonl")
		code, stdout, stderr := runCommand(t, append(grid, "--runner", r, "--out", out)...)
		if code != 0 {
			t.Fatalf("--runner %s: exit %d\n%s", r, code, stderr)
		}
		if !strings.Contains(stdout, "bcfw/lambda=0.01/fold=1") || !strings.Contains(stderr, "4 units on "+r) {
			t.Errorf("--runner %s: stdout\n%s\nstderr\n%s", r, stdout, stderr)
		}
		byRunner[r] = readResults(t, out)
	}
	p, l := byRunner["prism"], byRunner["local"]
	if len(p) != 4 || len(l) != 4 {
		t.Fatalf("%d and %d results, want 4", len(p), len(l))
	}
	for i := range p {
		if p[i].Key != l[i].Key || p[i].WeightsSHA256 == "" || p[i].WeightsSHA256 != l[i].WeightsSHA256 ||
			p[i].OracleCalls != l[i].OracleCalls || p[i].Last.Gap != l[i].Last.Gap {
			t.Errorf("unit %d: prism %+v\nlocal %+v", i, p[i], l[i])
		}
	}
	if p[0].WeightsSHA256 == p[1].WeightsSHA256 {
		t.Errorf("two folds, one set of weights: %s", p[0].WeightsSHA256)
	}
}

// TestTrainUnitsFile reads the units from a file; a unit that fails is
// reported on its line and in the exit code, the others run through.
func TestTrainUnitsFile(t *testing.T) {
	dir := t.TempDir()
	units := filepath.Join(dir, "units.jsonl")
	lines := `{"key": "fw", "method": {"method": "fw", "lambda": 0.1}, "data": {"name": "synthetic", "options": {"synthetic": {"train_words": 20}}}, "stop": {"passes": 3}}

{"method": {"method": "bcfw", "lambda": 0.1, "sampling": "perm"}, "data": {"name": "synthetic"}, "stop": {"passes": 2}, "weights": true}
{"key": "broken", "method": {"method": "bcfw", "lambda": 0.1}, "data": {"name": "synthetic"}, "stop": {}}
`
	if err := os.WriteFile(units, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "res.jsonl")
	code, stdout, stderr := runCommand(t, "train", "--units", units, "--out", out)
	if code != 1 || !strings.Contains(stderr, "1 of 3 units failed") {
		t.Errorf("exit %d, stderr %q: want 1 and the failed unit counted", code, stderr)
	}
	if !strings.Contains(stdout, "broken  failed") || !strings.Contains(stdout, "\nbroken: no stop criterion") {
		t.Errorf("stdout:\n%s", stdout)
	}
	res := readResults(t, out)
	if len(res) != 3 || res[0].Key != "fw" || res[1].Key != "line3" || res[2].Key != "broken" {
		t.Fatalf("results %+v", res)
	}
	if res[0].N != 20 || res[1].N != 300 || len(res[1].Weights) != res[1].D || res[2].Err == "" {
		t.Errorf("results: n %d and %d, %d weights of d = %d, error %q", res[0].N, res[1].N, len(res[1].Weights), res[1].D, res[2].Err)
	}
}

// TestErrors: every mistake is one line on stderr naming what is wrong, with
// exit code 1 (the run) or 2 (the command line).
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"train", "--runner", "storm"}, 1, `runner "storm" is not available (available: local, prism, flink, spark, dataflow, universal)`},
		{[]string{"train", "--runner", "flink"}, 1, "runner flink needs --endpoint"},
		{[]string{"train", "--runner", "spark", "--job_endpoint", "127.0.0.1:1"}, 1, "runner spark: no job server at --endpoint 127.0.0.1:1"},
		{[]string{"train", "--runner", "dataflow"}, 1, "runner dataflow: the outputs need a location"},
		{[]string{"train", "--runner", "local", "--output-dir", "x"}, 1, "--output-dir is for Beam runners"},
		{[]string{"train", "--lambdas", "0.1", "--folds", "1"}, 1, "--folds 1: want k >= 2"},
		{[]string{"train", "--method", "bcfw"}, 1, "give --lambdas"},
		{[]string{"train", "--method", "nope", "--lambdas", "1"}, 1, "--method"},
		{[]string{"train", "--lambdas", "0.1,-1"}, 1, `--lambdas: "-1" is not a positive number`},
		{[]string{"train", "--units", "missing.jsonl"}, 1, "--units: open missing.jsonl"},
		{[]string{"train", "--log", "loud"}, 2, `--log "loud"`},
		{[]string{"train", "stray"}, 2, "unexpected arguments"},
		{[]string{"path"}, 2, `unknown command "path" (commands: train, tune, rounds)`},
		{nil, 2, "Usage: fwstruct-dist COMMAND"},
	} {
		code, _, stderr := runCommand(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
		if c.code == 1 && strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%q: more than one line on stderr:\n%s", c.args, stderr)
		}
	}
}

func TestHelp(t *testing.T) {
	code, _, stderr := runCommand(t, "train", "-h")
	if code != 0 || !strings.Contains(stderr, "-lambdas") || !strings.Contains(stderr, "--environment_type") ||
		strings.Contains(stderr, "--control_endpoint") {
		t.Errorf("exit %d, help:\n%s", code, stderr)
	}
}

// TestProcessEnvironment runs units on workers in processes of their own,
// as a cluster runs them: prism (in this process) starts Beam's Go boot
// program for the PROCESS environment, which fetches the staged worker
// binary (this test binary, which is the command) and runs it with Beam's
// worker flags; the outputs travel through --output-dir. The results are
// the local loop's.
func TestProcessEnvironment(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Beam's boot program and stages a worker binary")
	}
	dir := t.TempDir()
	boot := filepath.Join(dir, "boot")
	build := exec.Command("go", "build", "-o", boot, "github.com/apache/beam/sdks/v2/go/container")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building Beam's boot program: %v\n%s", err, out)
	}
	// prism v2.77.0 passes --id='ID' with the quotes, which the boot
	// program then does not find among the workers: the wrapper drops them.
	wrapper := filepath.Join(dir, "boot.sh")
	script := "#!/bin/sh\nexec " + boot + " \"$(echo \"$1\" | tr -d \"'\")\" \"$2\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// The boot program copies the worker binary to /tmp/bin*/worker and
	// /tmp/staged, leaves them there, and leaves the worker running once
	// prism has killed it (the SDK's worker waits to be terminated): the
	// test stops the workers it started and removes their copies.
	before, _ := filepath.Glob("/tmp/bin*")
	_, staged := os.Stat("/tmp/staged")
	defer func() {
		after, _ := filepath.Glob("/tmp/bin*")
		var made []string
		for _, d := range after {
			if _, err := os.Stat(filepath.Join(d, "worker")); err == nil && !slices.Contains(before, d) {
				made = append(made, d)
			}
		}
		procs, _ := filepath.Glob("/proc/[0-9]*/exe")
		for _, exe := range procs {
			if target, err := os.Readlink(exe); err == nil && slices.Contains(made, filepath.Dir(target)) {
				if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(exe))); err == nil {
					syscall.Kill(pid, syscall.SIGTERM)
				}
			}
		}
		for _, d := range made {
			os.RemoveAll(d)
		}
		if staged != nil {
			os.RemoveAll("/tmp/staged")
		}
	}()
	cfg, _ := json.Marshal(map[string]string{"command": wrapper})
	grid := []string{"train", "--lambdas", "0.1", "--folds", "2", "--passes", "3",
		"--data-options", `{"synthetic": {"train_words": 20, "test_words": 5}}`}
	outputs := filepath.Join(dir, "outputs")
	proc, local := filepath.Join(dir, "process.jsonl"), filepath.Join(dir, "local.jsonl")
	code, _, stderr := runCommand(t, append(grid, "--environment_type", "PROCESS", "--environment_config", string(cfg),
		"--worker_binary", os.Args[0], "--output-dir", outputs, "--out", proc)...)
	if code != 0 {
		t.Fatalf("PROCESS environment: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runCommand(t, append(grid, "--runner", "local", "--out", local)...); code != 0 {
		t.Fatalf("--runner local: exit %d\n%s", code, stderr)
	}
	p, l := readResults(t, proc), readResults(t, local)
	if len(p) != 2 || len(l) != 2 {
		t.Fatalf("%d and %d results, want 2", len(p), len(l))
	}
	for i := range p {
		if p[i].Key != l[i].Key || p[i].WeightsSHA256 != l[i].WeightsSHA256 || p[i].Fingerprint != l[i].Fingerprint {
			t.Errorf("unit %d: PROCESS %+v\nlocal %+v", i, p[i], l[i])
		}
	}
	if left, _ := os.ReadDir(outputs); len(left) != 0 {
		t.Errorf("the outputs file was not removed: %v", left)
	}
}

// TestTempDir: a run leaves nothing in the temporary directory (Beam would
// leave a file there at every run).
func TestTempDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if code, _, stderr := runCommand(t, "train", "--lambdas", "0.1", "--passes", "1"); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in the temporary directory: %v", left)
	}
}

// TestTuneCommand: fwstruct-dist tune prints the same table on prism as in
// a local loop, and writes the curve; its flag errors are one line.
func TestTuneCommand(t *testing.T) {
	dir := t.TempDir()
	args := []string{"tune", "--method", "bcfw", "--lambdas", "0.1,0.01", "--folds", "2", "--passes", "3",
		"--data-options", `{"synthetic": {"train_words": 30, "test_words": 10}}`}
	tables := map[string]string{}
	for _, r := range []string{"prism", "local"} {
		curve := filepath.Join(dir, r+".json")
		code, stdout, stderr := runCommand(t, append(args, "--runner", r, "--curve", curve)...)
		if code != 0 {
			t.Fatalf("--runner %s: exit %d\n%s", r, code, stderr)
		}
		if !strings.Contains(stdout, "<- chosen") || !strings.Contains(stderr, "2 units and the final model on "+r) {
			t.Errorf("--runner %s: stdout\n%s\nstderr\n%s", r, stdout, stderr)
		}
		// The table and the summary, without the time in all.
		table, _, _ := strings.Cut(stdout, "s in all")
		tables[r] = table[:strings.LastIndex(table, ",")]
		b, err := os.ReadFile(curve)
		var c struct{ Curve []json.RawMessage }
		if err != nil || json.Unmarshal(b, &c) != nil || len(c.Curve) != 2 {
			t.Errorf("--runner %s: the curve %s, %v", r, b, err)
		}
	}
	if tables["prism"] != tables["local"] {
		t.Errorf("prism:\n%s\nlocal:\n%s", tables["prism"], tables["local"])
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--folds", "1"}, "--folds must be >= 2"},
		{[]string{"--hold-out", "0.2", "--folds", "3"}, "not both"},
		{[]string{"--rhos", "1"}, "rho grid applies to the soft solver only"},
		{[]string{"--lambdas", "0.1,x"}, `--lambdas: "x" is not a positive number`},
	} {
		code, _, stderr := runCommand(t, append(append([]string{}, args...), c.args...)...)
		if code != 1 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q, want one line saying %q", c.args, code, stderr, c.want)
		}
	}
}

// TestRoundsCommand: fwstruct-dist rounds prints the same rounds on prism
// as in a local loop, resumes a run at --state, and says what is wrong in
// one line.
func TestRoundsCommand(t *testing.T) {
	dir := t.TempDir()
	args := []string{"rounds", "--k", "3", "--passes", "2", "--lambda", "0.1", "--workers", "1",
		"--data-options", `{"synthetic": {"train_words": 30, "test_words": 5}}`}
	tables := map[string]string{}
	for _, r := range []string{"prism", "local"} {
		code, stdout, stderr := runCommand(t, append(args, "--runner", r, "--rounds", "4", "--trace", filepath.Join(dir, r+".jsonl"))...)
		if code != 0 {
			t.Fatalf("--runner %s: exit %d\n%s", r, code, stderr)
		}
		var table []string
		for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
			f := strings.Fields(line)
			table = append(table, strings.Join(f[:len(f)-1], " ")) // without the seconds
		}
		tables[r] = strings.Join(table, "\n")
		if len(table) != 5 || !strings.Contains(stderr, "4 rounds of 3 partitions on "+r) {
			t.Errorf("--runner %s: stdout\n%s\nstderr\n%s", r, stdout, stderr)
		}
	}
	if tables["prism"] != tables["local"] {
		t.Errorf("prism:\n%s\nlocal:\n%s", tables["prism"], tables["local"])
	}
	state := filepath.Join(dir, "state")
	if code, _, stderr := runCommand(t, append(args, "--rounds", "2", "--state", state)...); code != 0 {
		t.Fatalf("2 rounds: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := runCommand(t, append(args, "--rounds", "4", "--state", state, "--resume")...)
	if code != 0 || !strings.Contains(stderr, "2 rounds of 3 partitions") {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	got := strings.Split(strings.TrimSpace(stdout), "\n")
	want := strings.Split(tables["prism"], "\n")
	for i := 1; i < len(got); i++ {
		f := strings.Fields(got[i])
		if strings.Join(f[:len(f)-1], " ") != want[i] {
			t.Errorf("resumed round %d: %s, uninterrupted %s", i, got[i], want[i])
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--k", "31"}, "31 partitions of 30 examples"},
		{[]string{"--passes", "0"}, "0 local passes a round: want at least 1"},
		{[]string{"--combine", "mean"}, `--combine "mean"`},
		{[]string{"--method", "fw"}, "not fw"},
		{[]string{"--resume"}, "--resume needs --state"},
		{[]string{"--runner", "dataflow", "--output-dir", dir}, "--state: the workers are not this process"},
		{[]string{"--state", state}, "holds a run already"},
		{[]string{"--state", "/proc/x"}, "cannot be written"},
	} {
		code, _, stderr := runCommand(t, append(append([]string{}, args...), c.args...)...)
		if code != 1 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q, want one line saying %q", c.args, code, stderr, c.want)
		}
	}
}
