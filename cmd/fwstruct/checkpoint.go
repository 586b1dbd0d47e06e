package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fwstruct/fwstruct/internal/jsonerr"
	"github.com/fwstruct/fwstruct/model"
	"github.com/fwstruct/fwstruct/solver/run"
)

// checkpointFormat names the checkpoint files of fwstruct train: one line
// of JSON, the header (checkpointHeader), then the solver's state as its
// Save writes it (framed and checksummed, the method's name inside the
// checksum). The header ends with the CRC-32C of the bytes before it, as
// written: `{...,"crc":"1a2b3c4d"}`. Formats 1 and 2, which recorded flag
// strings, are refused.
const checkpointFormat = "fwstruct-checkpoint/3"

// maxHeader bounds the header line of a checkpoint.
const maxHeader = 1 << 20

// checkpointHeader is the first line of a checkpoint file: the run (its
// method and execution as the solver's state holds them, its data) and
// what the resumed run goes on with unless the command line says
// otherwise: the stopping criteria and what the trace records.
type checkpointHeader struct {
	Format string `json:"format"`
	model.Record
	Stop      stopRecord `json:"stop"`
	TrainLoss bool       `json:"train_loss,omitempty"`
	TestLoss  bool       `json:"test_loss"`
	// Passes is the effective passes made when the checkpoint was written.
	Passes float64 `json:"passes"`

	method    run.Method    // decoded, after reading
	execution run.Execution // decoded, after reading
}

// stopRecord is run.Stop in a checkpoint.
type stopRecord struct {
	Passes     float64 `json:"passes,omitempty"`
	Gap        float64 `json:"gap,omitempty"`
	EarlyCheck float64 `json:"early_check,omitempty"`
	Time       string  `json:"time,omitempty"`
}

func recordStop(s run.Stop) stopRecord {
	r := stopRecord{Passes: s.Passes, Gap: s.Gap, EarlyCheck: s.EarlyCheck}
	if s.Duration > 0 {
		r.Time = s.Duration.String()
	}
	return r
}

func (r stopRecord) stop() (run.Stop, error) {
	s := run.Stop{Passes: r.Passes, Gap: r.Gap, EarlyCheck: r.EarlyCheck}
	if r.Time != "" {
		var err error
		if s.Duration, err = time.ParseDuration(r.Time); err != nil {
			return s, fmt.Errorf("stop time: %w", err)
		}
	}
	return s, nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// writeCheckpoint writes h (its method and execution those of s) and the
// state of s to path atomically.
func writeCheckpoint(path string, h checkpointHeader, s run.Solver) error {
	rec, err := model.NewRecord(s.Method(), s.Execution(), h.Data, h.Accuracy())
	if err != nil {
		return err
	}
	h.Record, h.Passes = rec, s.Passes()
	line, err := encodeHeader(h)
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

// encodeHeader returns the header line of h (without its newline): its
// JSON, ending with the checksum of the bytes before it.
func encodeHeader(h checkpointHeader) ([]byte, error) {
	h.Format = checkpointFormat
	b, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(b[:len(b)-1:len(b)-1], `,"crc":"%08x"}`, crc32.Checksum(b, castagnoli)), nil
}

// reCRC is the end of a header line: its checksum.
var reCRC = regexp.MustCompile(`,"crc":"([0-9a-f]{8})"}$`)

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
	line = bytes.TrimSuffix(line, []byte("\n"))
	var head struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return h, fmt.Errorf("not a checkpoint of fwstruct train: %w", jsonerr.Restate(err))
	}
	switch head.Format {
	case checkpointFormat:
	case "fwstruct-checkpoint/1", "fwstruct-checkpoint/2":
		return h, fmt.Errorf("a checkpoint of format %s, %w", quote(head.Format), model.ErrOlder)
	default:
		return h, fmt.Errorf("format %s, want %s (a checkpoint written by fwstruct train --checkpoint)", quote(head.Format), quote(checkpointFormat))
	}
	m := reCRC.FindSubmatchIndex(line)
	if m == nil {
		return h, errors.New("corrupt checkpoint: the header line does not end with its checksum")
	}
	body := append(line[:m[0]:m[0]], '}')
	if want, _ := strconv.ParseUint(string(line[m[2]:m[3]]), 16, 32); crc32.Checksum(body, castagnoli) != uint32(want) {
		return h, errors.New("corrupt checkpoint: the checksum of the header line does not match (the file was altered or damaged)")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return h, fmt.Errorf("corrupt checkpoint header: %w", jsonerr.Restate(err))
	}
	var err error
	if h.method, h.execution, err = h.Decode(); err != nil {
		return h, fmt.Errorf("checkpoint header: %w", err)
	}
	if _, err := h.Stop.stop(); err != nil {
		return h, fmt.Errorf("checkpoint header: %w", err)
	}
	return h, nil
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
	if p, perr := parseFloat(strings.TrimSpace(v)); perr == nil && p > 0 && p < 1e15 {
		return p, 0, nil
	}
	return 0, 0, fmt.Errorf("--checkpoint-every: want a positive duration (30s, 5m) or number of passes, got %s", quote(v))
}

// start notes the state a run starts from.
func (c *checkpointer) start(s run.Solver) {
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
func (c *checkpointer) due(s run.Solver) bool {
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
func (c *checkpointer) save(s run.Solver) error {
	if err := writeCheckpoint(c.path, c.header, s); err != nil {
		return &checkpointError{err}
	}
	c.start(s)
	return nil
}
