package ssvmnb

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/solver/auto"
)

// The tests below run notebook cells as GoNB runs them: programs of their
// own (testdata/cell), built once, on a session folder of the test.

var cellBuild struct {
	once sync.Once
	path string
	err  error
}

// cellProgram returns the path of the cell program, built on first use.
func cellProgram(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the cell programs are interrupted with SIGINT")
	}
	cellBuild.once.Do(func() {
		gotool, err := exec.LookPath("go")
		if err != nil { // go test sets $GOROOT for the tests it runs
			gotool = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		}
		dir, err := os.MkdirTemp("", "ssvmnb-cell")
		if err != nil {
			cellBuild.err = err
			return
		}
		cellBuild.path = filepath.Join(dir, "cell")
		out, err := exec.Command(gotool, "build", "-o", cellBuild.path, "./testdata/cell").CombinedOutput()
		if err != nil {
			cellBuild.err = fmt.Errorf("building the cell program: %v\n%s", err, out)
		}
	})
	if cellBuild.err != nil {
		t.Fatal(cellBuild.err)
	}
	return cellBuild.path
}

// cellRun is a cell program running on the test's session folder.
type cellRun struct {
	cmd    *exec.Cmd
	stderr syncBuffer
	lines  chan string // its output lines, closed at its end
	done   chan error
}

// syncBuffer is the stderr of a cell, with the time its first line
// matching a pattern came.
type syncBuffer struct {
	sync.Mutex
	b       bytes.Buffer
	pattern *regexp.Regexp
	matched time.Time
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.Lock()
	defer s.Unlock()
	s.b.Write(p)
	if s.pattern != nil && s.matched.IsZero() && s.pattern.Match(s.b.Bytes()) {
		s.matched = time.Now()
	}
	return len(p), nil
}

func (s *syncBuffer) String() string {
	s.Lock()
	defer s.Unlock()
	return s.b.String()
}

// when returns when the pattern was first written (zero: never).
func (s *syncBuffer) when() time.Time {
	s.Lock()
	defer s.Unlock()
	return s.matched
}

// startCell starts the cell program with args on the session folder of
// the test (SessionDir) and returns it with its first line (the session
// is open).
func startCell(t *testing.T, args ...string) (*cellRun, string) {
	t.Helper()
	c := &cellRun{cmd: exec.Command(cellProgram(t), args...), lines: make(chan string, 16), done: make(chan error, 1)}
	c.stderr.pattern = interruptedAt
	c.cmd.Env = append(os.Environ(), "FWSTRUCT_SESSION="+SessionDir)
	c.cmd.Stderr = &c.stderr
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
		c.done <- c.cmd.Wait()
	}()
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		for range c.lines {
		}
	})
	return c, c.line(t, 2*time.Minute)
}

// line returns the next line of the cell's output, waiting at most limit.
func (c *cellRun) line(t *testing.T, limit time.Duration) string {
	t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			err := <-c.done
			c.done <- err
			t.Fatalf("the cell ended (%v) before printing a line: %s", err, c.stderr.String())
		}
		return l
	case <-time.After(limit):
		t.Fatalf("no line from the cell within %v: %s", limit, c.stderr.String())
	}
	return ""
}

// wait waits for the cell to end, at most limit, and returns its error.
func (c *cellRun) wait(t *testing.T, limit time.Duration) error {
	t.Helper()
	for {
		select {
		case _, ok := <-c.lines:
			if ok {
				continue
			}
			return <-c.done
		case <-time.After(limit):
			t.Fatalf("the cell did not end within %v: %s", limit, c.stderr.String())
		}
	}
}

// runCell runs the cell program to its end and returns its output.
func runCell(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(cellProgram(t), args...)
	cmd.Env = append(os.Environ(), "FWSTRUCT_SESSION="+SessionDir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cell %v: %v\n%s", args, err, out)
	}
	return string(out)
}

var interruptedAt = regexp.MustCompile(`interrupted at pass (\S+): the run is stored`)

// TestInterruptedCellResumesWhereItShowed: a cell interrupted by SIGINT
// during Run (the stop button: GoNB kills the program 5 s later) stops
// and stores its run well within those 5 s, says at which pass it stands,
// evaluates it and exits, and the next cell resumes the run at exactly
// that pass, its trace ending there; on synthetic data always, on OCR,
// Yeast and horses when the data is there (and CoNLL, the largest,
// outside -short). The times from SIGINT to the stored run and to the
// exit are logged.
func TestInterruptedCellResumesWhereItShowed(t *testing.T) {
	isolated(t)
	sets := []string{"synthetic", "ocr", "yeast", "horses", "conll"}
	for _, name := range sets {
		t.Run(name, func(t *testing.T) {
			if name != "synthetic" {
				if err := dataPresent(name); err != nil {
					t.Skipf("%s not found: %v", name, err)
				}
				if name == "conll" && testing.Short() {
					t.Skip("CoNLL takes a while to load: not in -short")
				}
			}
			// The cell runs a pass, then a long run: the interrupt comes
			// while that one trains.
			c, first := startCell(t, "run", name, name, "1e6")
			var ready float64
			if _, err := fmt.Sscanf(first, "ready at pass %g", &ready); err != nil || ready < 1 {
				t.Fatalf("first line %q", first)
			}
			time.Sleep(1500 * time.Millisecond)
			sent := time.Now()
			if err := c.cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			err := c.wait(t, 30*time.Second)
			took, stored := time.Since(sent), c.stderr.when().Sub(sent)
			t.Logf("%s: from SIGINT to the run stored %.2f s, to exit %.2f s", name, stored.Seconds(), took.Seconds())
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(c.stderr.String(), "interrupted (SIGINT") {
				t.Fatalf("the interrupted cell ended with %v, want the error of Run: %s", err, c.stderr.String())
			}
			if stored < 0 || stored > 4*time.Second {
				t.Errorf("%s: %.2f s from SIGINT to the run stored: GoNB kills the cell at 5 s", name, stored.Seconds())
			}
			m := interruptedAt.FindStringSubmatch(c.stderr.String())
			if m == nil {
				t.Fatalf("no note of the pass it stopped at: %s", c.stderr.String())
			}
			var at float64
			if _, err := fmt.Sscanf(m[1], "%g", &at); err != nil || at <= ready {
				t.Fatalf("interrupted at pass %s, the long run started at pass %v: it did not train", m[1], ready)
			}
			got := runCell(t, "resume", name)
			if want := fmt.Sprintf("pass %s, last point at pass %s", m[1], m[1]); !strings.Contains(got, want) {
				t.Fatalf("the interrupted cell said pass %s; the next cell resumes at %q", m[1], got)
			}
		})
	}
}

// dataPresent says whether the real dataset name can be found.
func dataPresent(name string) error {
	if name == "horses" {
		_, err := datasets.LocateHorses("")
		return err
	}
	ds, err := datasets.ByName(name)
	if err != nil {
		return err
	}
	_, err = datasets.Locate(ds, "")
	return err
}

// TestCellDefaultInterruptAfterRun: outside a Run, SIGINT has its default
// handling again (it ends the program); and Live, a cell's setting, is
// not saved with the run: the cell turned it off, the next one has it on.
func TestCellDefaultInterruptAfterRun(t *testing.T) {
	isolated(t)
	c, _ := startCell(t, "after", "run", "synthetic")
	if l := c.line(t, time.Minute); l != "ran" {
		t.Fatalf("line %q, want ran", l)
	}
	if err := c.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := c.wait(t, 10*time.Second)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
		t.Fatalf("SIGINT after Run: the cell ended with %v, want killed by SIGINT: %s", err, c.stderr.String())
	}
	if got := runCell(t, "resume", "run"); !strings.Contains(got, "pass 1,") || !strings.Contains(got, "live true") {
		t.Fatalf("the resumed run: %q, want pass 1 and Live on", got)
	}
}

// TestSessionHeldByAnotherProgram: a run held by a running program is
// refused to another (issue 35 item 9: two programs on one session lost
// each other's work), with an error naming the holder; its Forget and
// ForgetAll delete nothing; once the holder is dead (killed: its lock
// stays on disk), the run is taken over.
func TestSessionHeldByAnotherProgram(t *testing.T) {
	isolated(t)
	c, first := startCell(t, "hold", "held", "synthetic")
	if first != "ready at pass 0" {
		t.Fatalf("first line %q", first)
	}
	data := syntheticData(t)
	pid := fmt.Sprintf("pid %d on host", c.cmd.Process.Pid)
	for what, call := range map[string]func() error{
		"Session":   func() error { _, err := Session("held", data, auto.Method{Lambda: 0.01}); return err },
		"Resume":    func() error { _, err := Resume("held"); return err },
		"Forget":    func() error { return Forget("held") },
		"ForgetAll": ForgetAll,
	} {
		if err := call(); err == nil || !strings.Contains(err.Error(), "in use by another program") || !strings.Contains(err.Error(), pid) {
			t.Errorf("%s of a run held by %s: %v", what, pid, err)
		}
	}
	if _, err := os.Stat(filepath.Join(SessionDir, "held.gob")); err != nil {
		t.Fatalf("the held run was deleted: %v", err)
	}
	c.cmd.Process.Kill()
	c.wait(t, 10*time.Second)
	tr, err := Resume("held")
	if err != nil {
		t.Fatalf("the run of a dead program: %v", err)
	}
	if _, err := tr.Run(1); err != nil {
		t.Fatal(err)
	}
}
