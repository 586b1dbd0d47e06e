package oracles

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Fingerprint identifies the data of a training problem, so that a
// checkpoint or a model refuses to go on with other data. Its parts say
// what differs: the size n, the dimension d, the ground-truth labelings,
// and the data the solver reads (the features, through psi and the loss).
type Fingerprint struct {
	N, D int
	// Labels hashes n, d and the ground-truth labelings; for the problems
	// of FingerprintOf it is the whole fingerprint of older checkpoints and
	// models, which hashed nothing else.
	Labels uint64
	// Data hashes what the solver reads of the examples besides their
	// labels: for FingerprintOf, the loss and psi_i(y) at the labeling the
	// max oracle returns at w = 0 (the most violating one: for Hamming-type
	// losses every position differs from the truth, so psi holds every
	// feature of the example).
	Data uint64
}

// FNV-1a constants.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// FingerprintOf returns the fingerprint of p, at the cost of one oracle
// call and one psi per example: a digest of every example computed on
// workers goroutines (< 1: one per CPU), the digests mixed in example
// order, so that it does not depend on their number. The oracle of an Approximate problem is its exact one when
// there is one (an approximate wrapper may count its calls). Like resuming
// a run, it relies on a deterministic oracle. A panic of the problem is
// raised again on the caller's goroutine (the lowest example's).
func FingerprintOf(p Problem, workers int) Fingerprint {
	f := Fingerprint{N: p.Len(), D: p.Dim(), Labels: uint64(p.Len())*1000003 ^ uint64(p.Dim()), Data: fnvOffset}
	for i := 0; i < p.Len(); i++ {
		f.Labels = f.Labels*fnvPrime ^ HashLabeling(p.Truth(i))
	}
	q := p
	if e := ExactProblem(p); e != nil {
		q = e
	}
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, p.Len()))
	parts := make([]fingerprintPart, min(p.Len(), fingerprintChunk*workers))
	oracle := OracleFunc(q)
	w := make([]float64, p.Dim())
	for lo := 0; lo < p.Len(); lo += len(parts) {
		chunk := parts[:min(len(parts), p.Len()-lo)]
		var next atomic.Int64
		var wg sync.WaitGroup
		wg.Add(workers)
		for range workers {
			go func() {
				defer wg.Done()
				for j := int(next.Add(1) - 1); j < len(chunk); j = int(next.Add(1) - 1) {
					chunk[j].compute(q, oracle, lo+j, w)
				}
			}()
		}
		wg.Wait()
		for j := range chunk {
			c := &chunk[j]
			if c.panicked {
				panic(c.panicValue)
			}
			f.Data = MixHash(f.Data, c.digest)
		}
	}
	return f
}

// fingerprintChunk is the number of examples per worker whose oracle
// answers FingerprintOf keeps at a time before mixing them in.
const fingerprintChunk = 32

// fingerprintPart is what FingerprintOf computes for one example: the
// digest of the oracle's labeling at w, its loss and psi (or of the
// oracle's failure), and the scratch to compute it.
type fingerprintPart struct {
	y          []int32
	psi        SparseVec
	digest     uint64
	panicked   bool
	panicValue any
}

// compute fills c for example i: the digest of the oracle's labeling at w,
// its loss and psi. A fallible oracle's failure is part of the data.
func (c *fingerprintPart) compute(q Problem, oracle func(int, []float64, []int32) ([]int32, float64, error), i int, w []float64) {
	c.panicked, c.panicValue = false, nil
	defer func() {
		if r := recover(); r != nil {
			c.panicked, c.panicValue = true, r
		}
	}()
	var err error
	if c.y, _, err = oracle(i, w, c.y); err != nil {
		c.digest = MixHash(fnvOffset, uint64(i)+1)
		return
	}
	q.Psi(i, c.y, &c.psi)
	h := MixHash(fnvOffset, HashLabeling(c.y))
	h = MixHash(h, math.Float64bits(q.Loss(i, c.y)))
	c.digest = HashSparse(h, &c.psi)
}

// MixHash mixes the 64-bit value v into the running hash h: one multiply
// and one shift a word (a multiply-xorshift mixer; not cryptographic, but
// every bit of v reaches every bit of the result within two words).
func MixHash(h, v uint64) uint64 {
	h = (h ^ v) * mixPrime
	return h ^ h>>32
}

// mixPrime is the multiplier of MixHash (2^64 / golden ratio, odd).
const mixPrime = 0x9e3779b97f4a7c15

// HashSparse mixes the entries of s, in their order, into the running hash
// h.
func HashSparse(h uint64, s *SparseVec) uint64 {
	h = MixHash(h, uint64(len(s.Idx)))
	for k, j := range s.Idx {
		h = MixHash(h, uint64(uint32(j)))
		h = MixHash(h, math.Float64bits(s.Val[k]))
	}
	return h
}

// Check returns nil when got, the fingerprint of the data at hand, is f,
// else an error naming what differs (n, d, labels or data), first
// difference first.
func (f Fingerprint) Check(got Fingerprint) error {
	switch {
	case f.N != got.N:
		return fmt.Errorf("%d examples, not %d", got.N, f.N)
	case f.D != got.D:
		return fmt.Errorf("dimension d=%d, not %d", got.D, f.D)
	case f.Labels != got.Labels:
		return errors.New("other ground-truth labels")
	case f.Data != got.Data:
		return errors.New("the same size and labels but other features or losses")
	}
	return nil
}

// String formats f as "n=N d=D labels=HEX data=HEX" (ParseFingerprint
// reads it back).
func (f Fingerprint) String() string {
	return fmt.Sprintf("n=%d d=%d labels=%x data=%x", f.N, f.D, f.Labels, f.Data)
}

// ParseFingerprint reads a fingerprint written by String. A bare hex
// number, the fingerprint of older models, is read as Labels alone: ok is
// then false, and only Labels can be compared.
func ParseFingerprint(s string) (f Fingerprint, ok bool, err error) {
	if !strings.Contains(s, "=") {
		f.Labels, err = strconv.ParseUint(s, 16, 64)
		if err != nil {
			return f, false, fmt.Errorf("fingerprint %q: %w", s, err)
		}
		return f, false, nil
	}
	if _, err := fmt.Sscanf(s, "n=%d d=%d labels=%x data=%x", &f.N, &f.D, &f.Labels, &f.Data); err != nil {
		return f, false, fmt.Errorf("fingerprint %q: want n=N d=D labels=HEX data=HEX", s)
	}
	return f, true, nil
}
