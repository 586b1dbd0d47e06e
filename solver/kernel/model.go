package kernel

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/floats"

	"github.com/fwstruct/fwstruct/oracles"
)

// Model is a trained kernel machine for multiclass problems, self-contained:
// the kernel expansion of w over its support vectors, whose inputs it keeps,
//
//	score(x, c) = sum_j Coef[j][c] k(SV[j], x),   prediction argmax_c score(x, c),
//
// with Coef[j][c] = beta_j(c)/(lambda n) (see the package documentation).
// It is plain data: encoding/json writes and reads it (WriteJSON,
// ReadModel).
type Model struct {
	Kernel   Kernel              `json:"kernel"`
	Classes  int                 `json:"classes"`
	Features int                 `json:"features"`
	Lambda   float64             `json:"lambda"`
	SV       []oracles.SparseVec `json:"support_vectors"`
	Coef     [][]float64         `json:"coefficients"`

	once  sync.Once
	dense *inputs // the support vectors, densely (built on first use)
}

// Model returns the model of the current iterate.
func (s *Solver) Model() *Model {
	e := s.current()
	return s.model(&e)
}

// AverageModel returns the model of the weighted-average iterate, or nil
// without averaging.
func (s *Solver) AverageModel() *Model {
	if s.avg == nil {
		return nil
	}
	e := s.average()
	return s.model(&e)
}

func (s *Solver) model(e *expansion) *Model {
	m := &Model{Kernel: s.cfg.Kernel, Classes: s.k, Features: s.in.f, Lambda: s.lambda}
	sigma := 1 / (s.lambda * float64(s.n))
	for _, j := range e.sv {
		coef := make([]float64, s.k)
		addTerm(coef, e.alpha[int(j)*s.k:int(j+1)*s.k], s.in.y[j], sigma)
		m.Coef = append(m.Coef, coef)
		x := s.p.Input(int(j))
		m.SV = append(m.SV, x.Clone())
	}
	return m
}

// Validate checks the model: a valid kernel, coefficients for every class
// of every support vector, finite values, feature indices in range and
// increasing (each once).
func (m *Model) Validate() error {
	if err := m.Kernel.Validate(); err != nil {
		return err
	}
	if m.Classes < 1 || m.Features < 1 {
		return fmt.Errorf("kernel: model with %d classes and %d features", m.Classes, m.Features)
	}
	if len(m.SV) != len(m.Coef) {
		return fmt.Errorf("kernel: model with %d support vectors but %d coefficient rows", len(m.SV), len(m.Coef))
	}
	for j := range m.SV {
		if len(m.Coef[j]) != m.Classes {
			return fmt.Errorf("kernel: support vector %d has %d coefficients for %d classes", j, len(m.Coef[j]), m.Classes)
		}
		for _, v := range m.Coef[j] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("kernel: support vector %d has coefficient %v", j, v)
			}
		}
		x := m.SV[j]
		if len(x.Idx) != len(x.Val) || !x.IsFinite() {
			return fmt.Errorf("kernel: support vector %d is malformed", j)
		}
		for k, f := range x.Idx {
			if f < 0 || int(f) >= m.Features {
				return fmt.Errorf("kernel: support vector %d has feature %d outside [0, %d)", j, f, m.Features)
			}
			if k > 0 && f <= x.Idx[k-1] {
				return fmt.Errorf("kernel: support vector %d: feature %d after %d (indices must increase, each once)", j, f, x.Idx[k-1])
			}
		}
	}
	return nil
}

func (m *Model) prepare() {
	m.once.Do(func() {
		in := &inputs{f: m.Features, x: make([]float64, len(m.SV)*m.Features), sq: make([]float64, len(m.SV)), ids: iota32(len(m.SV))}
		for j := range m.SV {
			m.SV[j].AddTo(in.row(j), 1)
			in.sq[j] = floats.Dot(in.row(j), in.row(j))
		}
		m.dense = in
	})
}

// Scores writes score(x, c) for every class into dst (grown as needed) and
// returns it. x must have feature indices below Features.
func (m *Model) Scores(x oracles.SparseVec, dst []float64) []float64 {
	m.prepare()
	xd := make([]float64, m.Features)
	x.AddTo(xd, 1)
	return m.denseScores(xd, floats.Dot(xd, xd), dst)
}

func (m *Model) denseScores(x []float64, sq float64, dst []float64) []float64 {
	if cap(dst) < m.Classes {
		dst = make([]float64, m.Classes)
	}
	dst = dst[:m.Classes]
	clear(dst)
	for j := range m.SV {
		kv := m.Kernel.eval(floats.Dot(m.dense.row(j), x), m.dense.sq[j], sq)
		floats.AddScaled(dst, kv, m.Coef[j])
	}
	return dst
}

// Predict returns the class of largest score (the first on ties).
func (m *Model) Predict(x oracles.SparseVec) int32 {
	return int32(predict(m.Scores(x, nil)))
}

// MeanLoss returns the mean 0-1 loss of the model on p (the kernel values
// as kernel blocks, in parallel; the scores are Scores').
func (m *Model) MeanLoss(p *oracles.Multiclass) (float64, error) {
	if p.NumFeatures() != m.Features || p.NumClasses() != m.Classes {
		return math.NaN(), fmt.Errorf("kernel: model of %d features and %d classes, data of %d and %d", m.Features, m.Classes, p.NumFeatures(), p.NumClasses())
	}
	m.prepare()
	in := newInputs(p)
	wrong := make([]bool, in.len())
	scratch := make([]blockScratch, runtime.GOMAXPROCS(0))
	m.Kernel.sweep(m.dense, m.dense.all(), in, in.all(), scratch, func(w, i int, kv []float64) {
		sc := scratch[w].scoresOf(m.Classes)
		clear(sc)
		for j, v := range kv {
			floats.AddScaled(sc, v, m.Coef[j])
		}
		wrong[i] = int32(predict(sc)) != in.y[i]
	})
	errs := 0
	for _, b := range wrong {
		if b {
			errs++
		}
	}
	return float64(errs) / float64(len(wrong)), nil
}

// WriteJSON writes the model as JSON.
func (m *Model) WriteJSON(w io.Writer) error {
	return json.NewEncoder(w).Encode(m)
}

// ReadModel reads a model written by WriteJSON and validates it.
func ReadModel(r io.Reader) (*Model, error) {
	var m Model
	if err := json.NewDecoder(r).Decode(&m); err != nil {
		return nil, fmt.Errorf("kernel: not a model: %w", err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// MarshalText writes the kind's name, so that model files read "rbf".
func (k Kind) MarshalText() ([]byte, error) {
	if k < Linear || k > Poly {
		return nil, fmt.Errorf("kernel: unknown kind %d", int(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	if err != nil {
		return errors.New("kernel: " + err.Error())
	}
	*k = v
	return nil
}
