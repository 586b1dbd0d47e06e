package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fwstruct/fwstruct/datasets"
	solverrun "github.com/fwstruct/fwstruct/solver/run"
)

// checkpointFormat names the checkpoint files of fwstruct train: one line
// of JSON (checkpointHeader) followed by the solver's state (solver.Save,
// framed and checksummed). Format 1 had no checksum of the header line, and
// its state neither a checksum nor the fingerprint of the data: refused.
const (
	checkpointFormat   = "fwstruct-checkpoint/2"
	checkpointFormatV1 = "fwstruct-checkpoint/1"
)

// maxHeader bounds the header line of a checkpoint.
const maxHeader = 1 << 20

// checkpointHeader is the first line of a checkpoint file: what fwstruct
// train --resume needs besides the solver's state to go on.
type checkpointHeader struct {
	Format string `json:"format"`
	// Flags holds every data flag as the data was loaded (the dataset name
	// resolved, paths absolute) and every other flag given to train,
	// output paths absolute.
	Flags map[string]string `json:"flags"`
	// Passes is the effective passes made when the checkpoint was written.
	Passes float64 `json:"passes"`
	// CRC is the CRC-32C, in hex, of the header line with CRC empty.
	CRC string `json:"crc"`
}

// headerCRC returns the CRC of h with its CRC field empty.
func headerCRC(h checkpointHeader) (string, error) {
	h.CRC = ""
	b, err := json.Marshal(h)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%08x", crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli))), nil
}

// writeCheckpoint writes h and the state of s to path atomically.
func writeCheckpoint(path string, h checkpointHeader, s solverrun.Solver) error {
	h.Format = checkpointFormat
	h.Passes = s.Passes()
	var err error
	if h.CRC, err = headerCRC(h); err != nil {
		return err
	}
	line, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return writeFile(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		bw.Write(line)
		bw.WriteByte('\n')
		if err := s.Save(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// readCheckpointHeader reads the header line of a checkpoint from r,
// leaving r at the solver's state.
func readCheckpointHeader(r *bufio.Reader) (checkpointHeader, error) {
	var h checkpointHeader
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...) // a copy: chunk is r's buffer
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) && !errors.Is(err, io.EOF) {
			return h, err
		}
		if errors.Is(err, io.EOF) || len(line) > maxHeader {
			return h, errors.New("not a checkpoint of fwstruct train (no header line)")
		}
	}
	if err := json.Unmarshal(bytes.TrimSpace(line), &h); err != nil {
		return h, fmt.Errorf("not a checkpoint of fwstruct train: %w", jsonError(err))
	}
	if h.Format == checkpointFormatV1 {
		return h, fmt.Errorf("format %s of an older fwstruct, which recorded too little to check it against the data and for corruption: start the run again", quote(h.Format))
	}
	if h.Format != checkpointFormat {
		return h, fmt.Errorf("format %s, want %s (a checkpoint written by fwstruct train --checkpoint)", quote(h.Format), quote(checkpointFormat))
	}
	if crc, err := headerCRC(h); err != nil || crc != h.CRC {
		return h, errors.New("corrupt checkpoint: the checksum of the header line does not match (the file was altered or damaged)")
	}
	return h, nil
}

// checkpointFlags returns what a checkpoint records of the flags of train:
// every data flag resolved (data) and every other flag given, with the
// output paths absolute; --resume itself is left out.
func checkpointFlags(fs *flag.FlagSet, data map[string]string) (map[string]string, error) {
	out := map[string]string{}
	var err error
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "resume":
		case "trace", "model", "checkpoint":
			p := f.Value.String()
			if p != "" {
				var aerr error
				p, aerr = filepath.Abs(p)
				err = errors.Join(err, aerr)
			}
			out[f.Name] = p
		default:
			out[f.Name] = f.Value.String()
		}
	})
	for k, v := range data {
		out[k] = v
	}
	return out, err
}

// resumeFlags applies the flags a checkpoint recorded to fs, whose command
// line has been parsed: flags given now keep their value, except that the
// data and solver flags, which fix the problem and the trajectory, must
// not differ from the recorded ones.
func resumeFlags(fs *flag.FlagSet, recorded map[string]string) error {
	fixed := dataFlagNames()
	for k, v := range solverFlagNames() {
		fixed[k] = fixed[k] || v
	}
	given := map[string]bool{}
	var errs []error
	fs.Visit(func(f *flag.Flag) {
		given[f.Name] = true
		if !fixed[f.Name] {
			return
		}
		rec, ok := recorded[f.Name]
		if !ok {
			rec = recordedDefault(f, recorded)
		}
		if !sameFlagValue(fs, f.Name, f.Value.String(), rec) {
			errs = append(errs, fmt.Errorf("--%s %s differs from the checkpoint's %s", f.Name, quote(f.Value.String()), quote(rec)))
		}
	})
	if len(errs) > 0 {
		return fmt.Errorf("%w: a resumed run keeps the data and solver flags of the run it continues", errors.Join(errs...))
	}
	names := make([]string, 0, len(recorded))
	for k := range recorded {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if given[k] {
			continue
		}
		if fs.Lookup(k) == nil {
			return fmt.Errorf("the checkpoint records flag --%s, which this fwstruct does not have", k)
		}
		if err := fs.Set(k, recorded[k]); err != nil {
			return fmt.Errorf("the checkpoint's --%s: %w", k, err)
		}
	}
	return nil
}

// recordedDefault returns the value flag f took in the run that recorded
// the flags (those given to it): its default, or for --sampling, --step and
// --cache the one its --preset and --solver gave it.
func recordedDefault(f *flag.Flag, recorded map[string]string) string {
	if f.Name != "sampling" && f.Name != "step" && f.Name != "cache" {
		return f.DefValue
	}
	scratch := flag.NewFlagSet("", flag.ContinueOnError)
	scratch.SetOutput(io.Discard)
	var sf solverFlags
	sf.register(scratch)
	for k, v := range recorded {
		if scratch.Lookup(k) != nil && scratch.Set(k, v) != nil {
			return f.DefValue
		}
	}
	preset, err := sf.presetDefaults(sf.preset)
	if err != nil {
		return f.DefValue
	}
	switch f.Name {
	case "sampling":
		return preset.Sampling.String()
	case "step":
		return preset.Step.String()
	}
	return strconv.FormatBool(preset.Cache.Enabled)
}

// sameFlagValue reports whether two values of flag name mean the same:
// compared as the flag parses them, paths as absolute paths, and "auto" as
// any dataset.
func sameFlagValue(fs *flag.FlagSet, name, a, b string) bool {
	switch name {
	case "data":
		if a == "auto" || slices.Contains(datasets.Names, a) {
			return a == "auto" || a == b
		}
		return sameFlagValue(fs, "data-path", a, b)
	case "data-path", "test-data":
		if a == "" || b == "" {
			return a == b
		}
		pa, err1 := filepath.Abs(a)
		pb, err2 := filepath.Abs(b)
		return err1 == nil && err2 == nil && pa == pb
	}
	norm := func(v string) string {
		scratch := flag.NewFlagSet("", flag.ContinueOnError)
		scratch.SetOutput(io.Discard)
		new(dataFlags).register(scratch, "")
		new(solverFlags).register(scratch)
		if f := scratch.Lookup(name); f != nil && f.Value.Set(v) == nil {
			return f.Value.String()
		}
		return v
	}
	return norm(a) == norm(b)
}

// flagValues returns the value of every flag of fs in names.
func flagValues(fs *flag.FlagSet, names map[string]bool) map[string]string {
	out := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if names[f.Name] {
			out[f.Name] = f.Value.String()
		}
	})
	return out
}

// checkpointer writes the checkpoints of a run: every so many passes or so
// much time, and at the end.
type checkpointer struct {
	path   string
	header checkpointHeader
	passes float64       // every this many passes (0: by time)
	every  time.Duration // every this long (0: by passes)

	lastPasses float64
	lastTime   time.Time
}

// parseEvery parses --checkpoint-every: a duration (30s, 5m) or a number
// of passes.
func parseEvery(v string) (passes float64, every time.Duration, err error) {
	if d, derr := time.ParseDuration(v); derr == nil && d > 0 {
		return 0, d, nil
	}
	if p, perr := strconv.ParseFloat(strings.TrimSpace(v), 64); perr == nil && p > 0 && p < 1e15 {
		return p, 0, nil
	}
	return 0, 0, fmt.Errorf("--checkpoint-every: want a positive duration (30s, 5m) or number of passes, got %s", quote(v))
}

// start notes the state a run starts from.
func (c *checkpointer) start(s solverrun.Solver) {
	c.lastPasses, c.lastTime = s.Passes(), time.Now()
}

// mark returns the passes at which the next checkpoint falls due, when
// they are counted in passes.
func (c *checkpointer) mark() (float64, bool) {
	if c == nil || c.passes <= 0 {
		return 0, false
	}
	return c.lastPasses + c.passes, true
}

// due reports whether a periodic checkpoint is due.
func (c *checkpointer) due(s solverrun.Solver) bool {
	if c == nil {
		return false
	}
	if c.passes > 0 {
		return s.Passes() >= c.lastPasses+c.passes
	}
	return time.Since(c.lastTime) >= c.every
}

// checkpointError is a failure to write a checkpoint.
type checkpointError struct{ err error }

func (e *checkpointError) Error() string { return "write checkpoint: " + e.err.Error() }
func (e *checkpointError) Unwrap() error { return e.err }

// save writes a checkpoint of s.
func (c *checkpointer) save(s solverrun.Solver) error {
	if err := writeCheckpoint(c.path, c.header, s); err != nil {
		return &checkpointError{err}
	}
	c.start(s)
	return nil
}

// openCheckpoint opens a checkpoint file and reads its header; the
// returned reader is at the solver's state.
func openCheckpoint(path string) (checkpointHeader, *bufio.Reader, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return checkpointHeader{}, nil, nil, fmt.Errorf("--resume: %w", err)
	}
	r := bufio.NewReader(f)
	h, err := readCheckpointHeader(r)
	if err != nil {
		f.Close()
		return h, nil, nil, fmt.Errorf("--resume %s: %w", path, err)
	}
	return h, r, f, nil
}
