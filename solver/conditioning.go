package solver

import (
	"errors"
	"fmt"
	"math"

	"github.com/fwstruct/fwstruct/oracles"
)

// IllConditioned is the value of Conditioning.Kappa above which the
// features are too large for lambda: the shipped datasets at the lambdas
// the papers use have Kappa between 5 and 3e3 (Yeast at 0.01: 5.4, USPS
// at 0.01: 5.9, horses at 1e-3: 42, OCR-small at 0.01: 132 and at 1e-3:
// 1.3e3, CoNLL-2000 at 1/n: 2.8e3; TestConditioningOfShippedData), data
// like the unscaled MULAN emotions set (audio features up to ~240,
// internal/gendata.Emotions) 4.9e4 at 0.01, and 118 once standardized.
const IllConditioned = 1e4

// conditioningSample is the number of examples MeasureConditioning reads.
const conditioningSample = 64

// Conditioning compares the scale of a problem's features with lambda and
// its losses, the ratio that governs BCFW's step sizes and its convergence
// bound (Lacoste-Julien et al. 2013, Theorem 3 and Lemma A.2).
//
// From the starting point (every block's dual mass on its ground truth, w
// = 0), the first step on block i moves towards the oracle's labeling
// s = argmax_y L_i(y), with w_s = psi_i(s)/(lambda n) and ell_s =
// L_i(s)/n; the line search of Alg. 4 gives the step
//
//	gamma_i = lambda n L_i(s) / |psi_i(s)|^2 = 1/kappa_i,
//
// and the dual's curvature on block i is at most 4 R_i^2/(lambda n^2), R_i
// = max_y |psi_i(y)|, so that the product curvature C_f = sum_i C_f^(i)
// is at most 4 mean_i R_i^2 / (lambda n) against an initial error h_0 of
// at most the mean loss: Theorem 3's bound, 2 (C_f + h_0)/(K + 2) after K
// passes, then needs about 8 Kappa/eps passes to bring the suboptimality
// below eps times the losses, with
//
//	Kappa = mean |psi_i(s_i)|^2 / (lambda n mean L_i(s_i)),
//
// the means taken over a sample of examples. When Kappa is orders of
// magnitude above the values of well-scaled data (IllConditioned), steps
// start at about 1/Kappa and training makes no visible progress: features
// of very different scales (e.g. unscaled audio features next to a bias of
// 1) are the usual cause, and standardizing them the usual cure (or a
// larger lambda).
type Conditioning struct {
	// Lambda is the regularization measured at, and N the number of
	// examples of the problem.
	Lambda float64
	N      int
	// Sampled is the number of examples read: evenly spaced, at most 64.
	Sampled int
	// PsiSq and Loss are the means of |psi_i(s_i)|^2 and L_i(s_i) over
	// the sampled examples, s_i being the max oracle's labeling at w = 0.
	PsiSq, Loss float64
	// Kappa is PsiSq / (Lambda N Loss); NaN when Loss is 0 (the oracle
	// finds no labeling with a loss: nothing to learn).
	Kappa float64
}

// MeasureConditioning measures the Conditioning of p at lambda from a
// sample of at most 64 evenly spaced examples: one max-oracle call at w =
// 0 (clipped to the problem's bounds) and one psi each.
func MeasureConditioning(p oracles.Problem, lambda float64) (Conditioning, error) {
	c := Conditioning{Lambda: lambda, N: p.Len(), Kappa: math.NaN()}
	if !(lambda > 0) || math.IsInf(lambda, 1) {
		return c, fmt.Errorf("solver: conditioning: lambda must be positive and finite, got %v", lambda)
	}
	if c.N == 0 {
		return c, errors.New("solver: conditioning: the problem has no example")
	}
	w := make([]float64, p.Dim())
	if b, ok := p.(oracles.Bounded); ok {
		lo, hi := b.WeightBounds()
		(&Box{Lower: lo, Upper: hi}).clipAll(w, w)
	}
	oracle := oracles.OracleFunc(p)
	var psi oracles.SparseVec
	var y []int32
	for k := 0; k < min(c.N, conditioningSample); k++ {
		i := k * c.N / min(c.N, conditioningSample)
		var err error
		if y, _, err = oracle(i, w, y); err != nil {
			return c, fmt.Errorf("solver: conditioning: %w", err)
		}
		p.Psi(i, y, &psi)
		var sq float64
		for _, v := range psi.Val[:len(psi.Idx)] {
			sq += v * v
		}
		c.PsiSq += sq
		c.Loss += p.Loss(i, y)
		c.Sampled++
	}
	c.PsiSq /= float64(c.Sampled)
	c.Loss /= float64(c.Sampled)
	if c.Loss > 0 {
		c.Kappa = c.PsiSq / (lambda * float64(c.N) * c.Loss)
	}
	return c, nil
}

// Ill reports whether Kappa exceeds IllConditioned.
func (c Conditioning) Ill() bool { return c.Kappa > IllConditioned }

// Warning returns a one-line warning when the problem is ill-conditioned
// (Ill), ending with the remedy the caller names (e.g. "use --scale
// standardize"), and "" otherwise.
func (c Conditioning) Warning(remedy string) string {
	if !c.Ill() {
		return ""
	}
	return fmt.Sprintf("ill-conditioned training: the features are large for lambda = %g: mean |psi_i(y)|^2 = %.3g is %.2g times lambda n (mean loss) = %.3g (%d examples sampled; above %.0e, where well-scaled data stays below 3e3), so BCFW's steps start near %.1e and it makes no visible progress; %s",
		c.Lambda, c.PsiSq, c.Kappa, c.Lambda*float64(c.N)*c.Loss, c.Sampled, IllConditioned, 1/c.Kappa, remedy)
}
