package datasets

import (
	"errors"
	"fmt"

	"github.com/fwstruct/fwstruct/factorgraph"
	"github.com/fwstruct/fwstruct/oracles"
)

// Split returns the training examples fit and held (indices into Train) as
// two problems, for validation on the training split alone (package tune):
// preprocessed as Train was, except that the scaling is fitted on the fit
// examples alone (unless Options.Scaler gave one), so that nothing of the
// held examples leaks into the model trained on the others. The CoNLL
// attribute dictionary, built from the inputs alone, stays the training
// split's. Every index must be in [0, Train.Len()) and each set non-empty.
func (d *Data) Split(fit, held []int) (train, validation oracles.Problem, err error) {
	if d.split == nil {
		return nil, nil, fmt.Errorf("%s data cannot be split into folds", d.Name)
	}
	n := d.Train.Len()
	for _, set := range [][]int{fit, held} {
		if len(set) == 0 {
			return nil, nil, errors.New("split: a side without examples")
		}
		for _, i := range set {
			if i < 0 || i >= n {
				return nil, nil, fmt.Errorf("split: example %d outside [0, %d)", i, n)
			}
		}
	}
	return d.split(fit, held)
}

// splitter builds the problems of two subsets of the training examples.
type splitter func(fit, held []int) (oracles.Problem, oracles.Problem, error)

// splitBoth applies one subset builder to both sets.
func splitBoth(sub func(idx []int) (oracles.Problem, error)) splitter {
	return func(fit, held []int) (oracles.Problem, oracles.Problem, error) {
		a, err := sub(fit)
		if err != nil {
			return nil, nil, err
		}
		b, err := sub(held)
		if err != nil {
			return nil, nil, err
		}
		return a, b, nil
	}
}

// chainSplit subsets the sequences of a chain problem (OCR, synthetic).
func chainSplit(c *oracles.Chain) splitter {
	return splitBoth(func(idx []int) (oracles.Problem, error) {
		seqs := make([]oracles.Sequence, len(idx))
		for k, i := range idx {
			s := oracles.Sequence{Labels: c.Truth(i), Features: make([]oracles.SparseVec, c.SeqLen(i))}
			for t := range s.Features {
				s.Features[t] = c.Features(i, t)
			}
			seqs[k] = s
		}
		return oracles.NewChain(c.NumLabels(), c.NumFeatures(), seqs)
	})
}

// chunkingSplit subsets the sentences of a chunking problem, with its
// dictionary and tags.
func chunkingSplit(c *Chunking) splitter {
	return splitBoth(func(idx []int) (oracles.Problem, error) {
		sents := make([]Sentence, len(idx))
		for k, i := range idx {
			sents[k] = c.Sentences[i]
		}
		return NewChunking(sents, c.Dict, c.Tags)
	})
}

// segmentationSplit subsets the images of a segmentation problem.
func segmentationSplit(s *oracles.Segmentation) splitter {
	return splitBoth(func(idx []int) (oracles.Problem, error) {
		images := make([]oracles.SegImage, len(idx))
		for k, i := range idx {
			images[k] = s.Image(i)
		}
		return oracles.NewSegmentation(s.UnaryDim(), s.PairwiseDim(), images)
	})
}

// pick returns x[idx[0]], x[idx[1]], ...
func pick[T any](x []T, idx []int) []T {
	out := make([]T, len(idx))
	for k, i := range idx {
		out[k] = x[i]
	}
	return out
}

// scaleSplit fits the preprocessing's scaling on the fit inputs (or takes
// the one given) and returns scaled copies of both sets of inputs.
func scaleSplit(pre Preprocess, numFeatures int, fit, held []oracles.SparseVec) (a, b []oracles.SparseVec, err error) {
	sc, err := pre.scaler(fit, numFeatures)
	if err != nil || sc == nil {
		return cloneVecs(fit), cloneVecs(held), err
	}
	if a, err = sc.Transform(fit); err != nil {
		return nil, nil, err
	}
	b, err = sc.Transform(held)
	return a, b, err
}

// multiclassSplit subsets multiclass data from its training inputs as read
// (x, before scaling and bias) and classes y.
func multiclassSplit(x []oracles.SparseVec, y []int32, classes, numFeatures int, pre Preprocess) splitter {
	return func(fit, held []int) (oracles.Problem, oracles.Problem, error) {
		xa, xb, err := scaleSplit(pre, numFeatures, pick(x, fit), pick(x, held))
		if err != nil {
			return nil, nil, err
		}
		nf := numFeatures
		if pre.Bias {
			nf++
			for _, xs := range [][]oracles.SparseVec{xa, xb} {
				for i := range xs {
					xs[i].Append(int32(numFeatures), 1)
				}
			}
		}
		a, err := oracles.NewMulticlass(classes, nf, xa, pick(y, fit))
		if err != nil {
			return nil, nil, err
		}
		b, err := oracles.NewMulticlass(classes, nf, xb, pick(y, held))
		if err != nil {
			return nil, nil, err
		}
		return a, b, nil
	}
}

// multiLabelSplit subsets MULAN data from its training inputs as read.
func multiLabelSplit(raw *MultiLabelData, pre Preprocess) splitter {
	return func(fit, held []int) (oracles.Problem, oracles.Problem, error) {
		xa, xb, err := scaleSplit(pre, len(raw.Features), pick(raw.X, fit), pick(raw.X, held))
		if err != nil {
			return nil, nil, err
		}
		l := factorgraph.MultiLabel{Labels: len(raw.Labels), Features: len(raw.Features), Bias: pre.Bias}
		out := make([]oracles.Problem, 2)
		for k, part := range []struct {
			x   []oracles.SparseVec
			idx []int
		}{{xa, fit}, {xb, held}} {
			m, err := factorgraph.NewMultiLabel(l, part.x, pick(raw.Y, part.idx))
			if err != nil {
				return nil, nil, err
			}
			if out[k], err = factorgraph.NewExact(m, 0); err != nil {
				return nil, nil, err
			}
		}
		return out[0], out[1], nil
	}
}
