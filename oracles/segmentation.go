package oracles

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/fwstruct/fwstruct/inference/maxflow"
)

// SegImage is one image of a Segmentation problem: a graph of regions
// (superpixels) with features on its nodes and non-negative features on its
// edges, the true figure/ground label of every region, and pixel counts for
// the loss and the metrics.
type SegImage struct {
	// Unary holds the features x_p of the regions, row-major: region p owns
	// Unary[p*UnaryDim : (p+1)*UnaryDim].
	Unary []float32
	// Edges lists the adjacent pairs {p, q} (p != q, each pair once).
	Edges [][2]int32
	// Pairwise holds the features x_pq of the edges, row-major, in the
	// order of Edges; they must be non-negative (submodularity, see
	// Segmentation).
	Pairwise []float32
	// Truth is the true label of every region: 1 figure, 0 ground.
	Truth []int32
	// Area is the number of pixels of every region (> 0); nil means 1 for
	// every region.
	Area []int32
	// Foreground is the number of figure pixels of every region, in
	// [0, Area[p]], used by the pixel metrics; nil means Area[p] for the
	// regions labelled 1 and 0 for the others.
	Foreground []int32
}

// Segmentation is the binary segmentation model of the HorseSeg experiments
// (Osokin et al. 2016, App. I.3): every region p of image i gets a label
// y_p in {0 (ground), 1 (figure)} and the score is
//
//	<w, phi(x, y)> = sum_p <w_U, x_p> ([y_p = 1] - [y_p = 0])
//	               + sum_{pq in E} <w_P, x_pq> [y_p != y_q],
//
// with w = (w_U, w_P) laid out as UnaryDim unary then PairwiseDim pairwise
// coordinates (see PairwiseOffset).
//
// The loss is the Hamming distance weighted by area and normalized per
// class: L(y) = sum_p omega_p [y_p != t_p] with omega_p = a_p / (2 A_{t_p}),
// where a_p is the area of region p and A_c the total area of the regions
// whose true label is c; when the truth holds a single class c, omega_p =
// a_p / A_c. So each class present weighs one half, the loss lies in
// [0, 1], and it is the balanced pixel error of the labeling measured
// against the region-level truth: a horse covering a fifth of the image
// counts as much as its background, and a region counts by its pixels,
// which aligns the loss with the pixel accuracy and the intersection over
// union reported by Metrics. (Osokin et al. describe the weights as
// "proportional to the ground-truth area of each class".)
//
// Loss-augmented decoding and prediction minimize a binary energy with
// pairwise terms -<w_P, x_pq> [y_p != y_q] by a minimum cut
// (Boykov & Kolmogorov 2004; package inference/maxflow). It is exact when
// every <w_P, x_pq> <= 0 (a submodular energy), which holds whenever w_P <= 0
// since the pairwise features are non-negative: WeightBounds asks for that
// bound (Osokin et al. 2016, App. H). For weights that break submodularity
// MaxOracleErr returns an error naming the example and the edge, MaxOracle
// returns the ground truth with h = NaN, and Predict treats the offending
// edges as if their weight were zero (documented fallback, never used under
// the bounds). All three are allocation-free in steady state and safe for
// concurrent use.
type Segmentation struct {
	unaryDim, pairwiseDim int

	images   []segImage
	maxNodes int
	maxEdges int

	upper []float64 // WeightBounds
	work  sync.Pool // *segWork
}

// segImage is a validated image: the caller's slices plus what the oracle
// precomputes once, independent of w.
type segImage struct {
	SegImage
	omega []float64         // loss weight of every region
	topo  *maxflow.Topology // arc lists of the cut graph
}

type segWork struct {
	u        []float64 // unary scores <w_U, x_p>
	c        []float64 // cut capacities -<w_P, x_pq>
	src, snk []float64 // terminal capacities of the cut
	g        *maxflow.Graph
	dense    []float64 // Psi's accumulator, zero between uses
}

// NewSegmentation builds a segmentation problem from images with unaryDim
// features per region and pairwiseDim features per edge. It keeps the
// images' slices without copying them (the caller must not modify them
// afterwards), fills in nil Area and Foreground, and computes once what
// the oracle needs of an image whatever w: the loss weights and the arc
// lists of its cut graph (a maxflow.Topology, 32 bytes an edge and 4 bytes
// a region, so that a call only writes the capacities). It returns an error
// naming the image and the offending entry for inconsistent sizes, labels
// other than 0 and 1, bad or repeated edges, non-finite features, negative
// pairwise features and bad areas.
func NewSegmentation(unaryDim, pairwiseDim int, images []SegImage) (*Segmentation, error) {
	if unaryDim < 1 || pairwiseDim < 0 {
		return nil, fmt.Errorf("segmentation: need at least one unary feature and no negative count, got %d unary and %d pairwise", unaryDim, pairwiseDim)
	}
	s := &Segmentation{unaryDim: unaryDim, pairwiseDim: pairwiseDim, images: make([]segImage, len(images))}
	for i := range images {
		im, err := s.validate(images[i])
		if err != nil {
			return nil, fmt.Errorf("segmentation: image %d: %w", i, err)
		}
		s.images[i] = im
		s.maxNodes = max(s.maxNodes, len(im.Truth))
		s.maxEdges = max(s.maxEdges, len(im.Edges))
	}
	s.upper = make([]float64, s.Dim())
	for j := range s.upper {
		s.upper[j] = math.Inf(1)
		if j >= unaryDim {
			s.upper[j] = 0
		}
	}
	s.work.New = func() any {
		return &segWork{
			u:   make([]float64, s.maxNodes),
			c:   make([]float64, s.maxEdges),
			src: make([]float64, s.maxNodes),
			snk: make([]float64, s.maxNodes),
			g:   maxflow.New(s.maxNodes, s.maxEdges),
		}
	}
	return s, nil
}

// validate checks one image and computes its loss weights.
func (s *Segmentation) validate(im SegImage) (segImage, error) {
	n := len(im.Truth)
	if n == 0 {
		return segImage{}, errors.New("no regions")
	}
	if len(im.Unary) != n*s.unaryDim {
		return segImage{}, fmt.Errorf("%d unary features for %d regions of %d features", len(im.Unary), n, s.unaryDim)
	}
	if len(im.Pairwise) != len(im.Edges)*s.pairwiseDim {
		return segImage{}, fmt.Errorf("%d pairwise features for %d edges of %d features", len(im.Pairwise), len(im.Edges), s.pairwiseDim)
	}
	if im.Area != nil && len(im.Area) != n || im.Foreground != nil && len(im.Foreground) != n {
		return segImage{}, fmt.Errorf("%d areas and %d foreground counts for %d regions", len(im.Area), len(im.Foreground), n)
	}
	for p, t := range im.Truth {
		if t != 0 && t != 1 {
			return segImage{}, fmt.Errorf("region %d: label %d, want 0 or 1", p, t)
		}
	}
	for k, v := range im.Unary {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return segImage{}, fmt.Errorf("region %d: unary feature %d is %v", k/s.unaryDim, k%s.unaryDim, v)
		}
	}
	keys := make([]uint64, len(im.Edges))
	for e, pq := range im.Edges {
		p, q := pq[0], pq[1]
		if p < 0 || q < 0 || int(p) >= n || int(q) >= n || p == q {
			return segImage{}, fmt.Errorf("edge %d joins regions %d and %d of %d", e, p, q, n)
		}
		keys[e] = uint64(min(p, q))<<32 | uint64(max(p, q))
	}
	slices.Sort(keys)
	for k := 1; k < len(keys); k++ {
		if keys[k] == keys[k-1] {
			return segImage{}, fmt.Errorf("the edges list the pair %d-%d twice", keys[k]>>32, keys[k]&0xffffffff)
		}
	}
	for k, v := range im.Pairwise {
		if !(v >= 0) || math.IsInf(float64(v), 0) {
			return segImage{}, fmt.Errorf("edge %d: pairwise feature %d is %v, want finite and >= 0 (submodularity needs non-negative pairwise features)", k/s.pairwiseDim, k%s.pairwiseDim, v)
		}
	}
	if im.Area == nil {
		im.Area = make([]int32, n)
		for p := range im.Area {
			im.Area[p] = 1
		}
	}
	if im.Foreground == nil {
		im.Foreground = make([]int32, n)
		for p, t := range im.Truth {
			im.Foreground[p] = im.Area[p] * t
		}
	}
	var classArea [2]float64
	for p, a := range im.Area {
		if a < 1 {
			return segImage{}, fmt.Errorf("region %d: area %d < 1", p, a)
		}
		if f := im.Foreground[p]; f < 0 || f > a {
			return segImage{}, fmt.Errorf("region %d: %d foreground pixels out of %d", p, f, a)
		}
		classArea[im.Truth[p]] += float64(a)
	}
	classes := 0.0
	for _, a := range classArea {
		if a > 0 {
			classes++
		}
	}
	out := segImage{SegImage: im, omega: make([]float64, n)}
	for p, t := range im.Truth {
		out.omega[p] = float64(im.Area[p]) / (classes * classArea[t])
	}
	var err error
	if out.topo, err = maxflow.NewTopology(n, im.Edges); err != nil {
		return segImage{}, err
	}
	return out, nil
}

// Len returns the number of images.
func (s *Segmentation) Len() int { return len(s.images) }

// Dim returns UnaryDim + PairwiseDim.
func (s *Segmentation) Dim() int { return s.unaryDim + s.pairwiseDim }

// UnaryDim returns the number of features of a region.
func (s *Segmentation) UnaryDim() int { return s.unaryDim }

// PairwiseDim returns the number of features of an edge.
func (s *Segmentation) PairwiseDim() int { return s.pairwiseDim }

// PairwiseOffset returns the coordinate of the first pairwise weight: w_U is
// w[:PairwiseOffset()] and w_P is w[PairwiseOffset():].
func (s *Segmentation) PairwiseOffset() int { return s.unaryDim }

// Image returns image i as given to NewSegmentation, with Area and
// Foreground filled in (do not modify).
func (s *Segmentation) Image(i int) SegImage { return s.images[i].SegImage }

// Regions returns the number of regions of image i.
func (s *Segmentation) Regions(i int) int { return len(s.images[i].Truth) }

// Edges returns the edges of image i (do not modify).
func (s *Segmentation) Edges(i int) [][2]int32 { return s.images[i].Edges }

// Truth returns the true labels of the regions of image i (do not modify).
func (s *Segmentation) Truth(i int) []int32 { return s.images[i].Truth }

// LossWeights returns the loss weight omega_p of every region of image i
// (do not modify).
func (s *Segmentation) LossWeights(i int) []float64 { return s.images[i].omega }

// WeightBounds returns no lower bound and the upper bound 0 on the pairwise
// coordinates (+Inf on the unary ones): with non-negative pairwise features,
// w_P <= 0 keeps every cut energy submodular (Osokin et al. 2016, App. I.3).
func (s *Segmentation) WeightBounds() (lower, upper []float64) { return nil, s.upper }

// Loss returns the class-normalized, area-weighted Hamming loss
// sum_p omega_p [y_p != t_p] (see Segmentation); +Inf when y has the wrong
// length.
func (s *Segmentation) Loss(i int, y []int32) float64 {
	truth := s.Truth(i)
	if len(y) != len(truth) {
		return math.Inf(1)
	}
	omega := s.LossWeights(i)
	var l float64
	for p, t := range truth {
		if y[p] != t {
			l += omega[p]
		}
	}
	return l
}

// sign returns +1 for the figure label and -1 for the ground label.
func sign(y int32) float64 {
	if y == 1 {
		return 1
	}
	return -1
}

// Psi sets dst to phi(x_i, t) - phi(x_i, y): 2 s(t_p) x_p for every region
// whose label differs (s(1) = 1, s(0) = -1) and
// ([t_p != t_q] - [y_p != y_q]) x_pq on the edges. The sum is accumulated
// densely (the dimension is small) and its non-zero entries are listed in
// increasing index order.
func (s *Segmentation) Psi(i int, y []int32, dst *SparseVec) {
	ws := s.work.Get().(*segWork)
	defer s.work.Put(ws)
	U, P := s.unaryDim, s.pairwiseDim
	if len(ws.dense) < U+P {
		ws.dense = make([]float64, U+P)
	}
	unary, pairwise := ws.dense[:U], ws.dense[U:U+P]
	truth := s.Truth(i)
	im := &s.images[i]
	for p, t := range truth {
		if y[p] != t {
			addScaled(unary, 2*sign(t), im.Unary[p*U:(p+1)*U])
		}
	}
	for e, pq := range s.Edges(i) {
		tc := truth[pq[0]] != truth[pq[1]]
		yc := y[pq[0]] != y[pq[1]]
		if tc == yc {
			continue
		}
		coef := 1.0
		if yc {
			coef = -1
		}
		addScaled(pairwise, coef, im.Pairwise[e*P:(e+1)*P])
	}
	dst.Reset()
	for k, v := range ws.dense[:U+P] {
		if v != 0 {
			dst.Append(int32(k), v)
			ws.dense[k] = 0
		}
	}
}

// addScaled performs dst += a*x for len(x) == len(dst).
func addScaled(dst []float64, a float64, x []float32) {
	x = x[:len(dst)]
	for k, v := range x {
		dst[k] += a * float64(v)
	}
}

// errBadEdge is the error of an edge whose weight breaks submodularity; it
// is only built on failure, keeping the oracle allocation-free.
func (s *Segmentation) errBadEdge(i, e int, v float64) error {
	pq := s.Edges(i)[e]
	return fmt.Errorf("segmentation: image %d, edge %d (regions %d-%d): pairwise weight <w_P, x_pq> = %g is not <= 0, the energy is not submodular and a graph cut cannot maximize it; bound the pairwise weights above by 0 (WeightBounds)", i, e, pq[0], pq[1], -v)
}

// MaxOracleErr solves loss-augmented decoding argmax_y L_i(y) + <w, phi(x_i, y)>
// by a minimum cut. It returns an error (and the ground truth with h = NaN)
// when some edge has <w_P, x_pq> > 0, or when w is not finite.
func (s *Segmentation) MaxOracleErr(i int, w []float64, dst []int32) ([]int32, float64, error) {
	ws := s.work.Get().(*segWork)
	defer s.work.Put(ws)
	if e := s.scores(ws, i, w); e >= 0 {
		return append(dst[:0], s.Truth(i)...), math.NaN(), s.errBadEdge(i, e, ws.c[e])
	}
	y, err := s.cut(ws, i, s.LossWeights(i), dst)
	if err != nil {
		return append(dst[:0], s.Truth(i)...), math.NaN(), fmt.Errorf("segmentation: image %d: %w", i, err)
	}
	return y, s.gain(ws, i, y), nil
}

// MaxOracle is MaxOracleErr without the error: on weights that break
// submodularity (or are not finite) it returns the ground truth and
// h = NaN, which solvers reject (see OracleFunc).
func (s *Segmentation) MaxOracle(i int, w []float64, dst []int32) ([]int32, float64) {
	y, h, _ := s.MaxOracleErr(i, w, dst)
	return y, h
}

// Predict returns argmax_y <w, phi(x_i, y)> by a minimum cut. Edges with
// <w_P, x_pq> > 0, which only weights outside WeightBounds produce, are
// treated as if that score were 0 (an approximation, documented); weights
// that are not finite give the all-ground labeling.
func (s *Segmentation) Predict(i int, w []float64, dst []int32) []int32 {
	ws := s.work.Get().(*segWork)
	defer s.work.Put(ws)
	if s.scores(ws, i, w) >= 0 {
		for e, v := range ws.c[:len(s.Edges(i))] {
			if v < 0 {
				ws.c[e] = 0
			}
		}
	}
	y, err := s.cut(ws, i, nil, dst)
	if err != nil {
		n := s.Regions(i)
		if cap(dst) < n {
			dst = make([]int32, n)
		}
		y = dst[:n]
		for p := range y {
			y[p] = 0
		}
	}
	return y
}

// Score returns <w, phi(x_i, y)>.
func (s *Segmentation) Score(i int, y []int32, w []float64) float64 {
	ws := s.work.Get().(*segWork)
	defer s.work.Put(ws)
	s.scores(ws, i, w)
	var sc float64
	for p, v := range ws.u[:len(y)] {
		sc += v * sign(y[p])
	}
	for e, pq := range s.Edges(i) {
		if y[pq[0]] != y[pq[1]] {
			sc -= ws.c[e]
		}
	}
	return sc
}

// scores fills ws.u with the unary scores <w_U, x_p> and ws.c with the cut
// capacities -<w_P, x_pq> of image i: the products of w with every row of
// the image's features, several rows at a time where the CPU has vectors
// for it (dotRows32), to the bit what dot32 gives row by row. It returns
// the first edge whose capacity is negative or NaN (the energy is not
// submodular, or w is not finite), or -1.
func (s *Segmentation) scores(ws *segWork, i int, w []float64) int {
	U, P := s.unaryDim, s.pairwiseDim
	im := &s.images[i]
	dotRows32(w[:U], im.Unary, U, ws.u[:s.Regions(i)])
	c := ws.c[:len(s.Edges(i))]
	dotRows32(w[U:U+P], im.Pairwise, P, c)
	bad := -1
	for e, v := range c {
		c[e] = -v
		if !(v <= 0) && bad < 0 {
			bad = e
		}
	}
	return bad
}

// dotRowsGo sets out[r] = dot32(w, x[r*stride : r*stride+len(w)]) for
// every r < len(out), one row at a time (dotRows32 without a vector
// kernel).
func dotRowsGo(w []float64, x []float32, stride int, out []float64) {
	for r := range out {
		out[r] = dot32(w, x[r*stride:r*stride+len(w)])
	}
}

// dot32 returns <w, x> for len(x) == len(w), four products at a time.
// With w <= 0 and x >= 0 every partial sum is <= 0, so the sign of the
// result is exact.
func dot32(w []float64, x []float32) float64 {
	x = x[:len(w)]
	var a0, a1, a2, a3 float64
	k := 0
	for ; k+3 < len(w); k += 4 {
		a0 += w[k] * float64(x[k])
		a1 += w[k+1] * float64(x[k+1])
		a2 += w[k+2] * float64(x[k+2])
		a3 += w[k+3] * float64(x[k+3])
	}
	for ; k < len(w); k++ {
		a0 += w[k] * float64(x[k])
	}
	return (a0 + a1) + (a2 + a3)
}

// cut minimizes E(y) = -sum_p (s(y_p) u_p + omega_p [y_p != t_p])
// + sum_pq c_pq [y_p != y_q] (omega nil: no loss term) by a minimum cut,
// with label 1 on the sink side, and writes the labeling into dst.
func (s *Segmentation) cut(ws *segWork, i int, omega []float64, dst []int32) ([]int32, error) {
	n := s.Regions(i)
	truth := s.Truth(i)
	// theta_p(1) and theta_p(0), the costs of the two labels.
	c1, c0 := ws.src[:n], ws.snk[:n]
	if omega == nil {
		for p, u := range ws.u[:n] {
			c1[p], c0[p] = -u, u
		}
	} else {
		// The loss omega_p lowers the cost of the label other than t_p:
		// subtracting omega_p * 0 from the other cost leaves it as it is,
		// to the bit, without a branch on t_p.
		truth, omega := truth[:n], omega[:n]
		for p, u := range ws.u[:n] {
			t := float64(truth[p])
			c1[p], c0[p] = -u-omega[p]*(1-t), u-omega[p]*t
		}
	}
	g := ws.g
	if err := g.ResetTopology(s.images[i].topo, ws.c[:len(s.Edges(i))]); err != nil {
		return nil, err
	}
	if err := g.AddTerminals(c1, c0); err != nil {
		return nil, err
	}
	g.MaxFlow()
	if cap(dst) < n {
		dst = make([]int32, n)
	}
	dst = dst[:n]
	for p := range dst {
		dst[p] = 0
		if g.Segment(p) == maxflow.Sink {
			dst[p] = 1
		}
	}
	return dst, nil
}

// gain returns H_i(y; w) = L_i(y) + <w, phi(x_i, y)> - <w, phi(x_i, t)>
// from the scores in ws, for a labeling y of 0s and 1s: the sum over the
// regions where y_p != t_p of omega_p + 2 s(y_p) u_p, and over the edges of
// ([t_p != t_q] - [y_p != y_q]) c_pq. The terms of the regions and edges
// that do not count are multiplied by 0 and added (h + 0 = h to the bit:
// the scores are finite, and h never is -0), which spares a branch on the
// labels per region and edge.
func (s *Segmentation) gain(ws *segWork, i int, y []int32) float64 {
	truth := s.Truth(i)
	omega, u, y := s.LossWeights(i)[:len(truth)], ws.u[:len(truth)], y[:len(truth)]
	var h float64
	for p, t := range truth {
		differs := float64(y[p] ^ t)
		h += differs * (omega[p] + 2*float64(2*y[p]-1)*u[p])
	}
	edges := s.Edges(i)
	c := ws.c[:len(edges)]
	for e, pq := range edges {
		p, q := pq[0], pq[1]
		h += float64((truth[p]^truth[q])-(y[p]^y[q])) * c[e]
	}
	return h
}

// ForEachLabeling enumerates the 2^n labelings of image i (for tests on
// tiny graphs).
func (s *Segmentation) ForEachLabeling(i int, fn func(y []int32)) {
	enumerate(s.Regions(i), 2, fn)
}

// Metric names of Segmentation.Metrics.
const (
	MetricPixelAccuracy = "pixel_accuracy"
	MetricForegroundIoU = "foreground_iou"
	MetricMeanImageIoU  = "mean_image_iou"
)

// Metrics returns, for region labelings pred (one per image) mapped back to
// pixels:
//
//   - pixel_accuracy: the fraction of all pixels of all images labelled
//     correctly against the pixel-level truth (Area and Foreground);
//   - foreground_iou: the intersection over union of the predicted and true
//     figure pixels, pooled over all images (sum of intersections over sum
//     of unions);
//   - mean_image_iou: the mean over images of the per-image intersection
//     over union (an image without figure pixels in truth or prediction
//     counts as 1).
//
// Every value is NaN when some pred[i] has the wrong length or a label
// other than 0 and 1, or len(pred) != Len().
func (s *Segmentation) Metrics(pred [][]int32) []Metric {
	nan := math.NaN()
	out := []Metric{{MetricPixelAccuracy, nan}, {MetricForegroundIoU, nan}, {MetricMeanImageIoU, nan}}
	if len(pred) != s.Len() || s.Len() == 0 {
		return out
	}
	var correct, total, inter, union, sumIoU float64
	for i, y := range pred {
		if len(y) != s.Regions(i) {
			return out
		}
		im := &s.images[i]
		var in, un, fgTotal float64
		for p, v := range y {
			a, f := float64(im.Area[p]), float64(im.Foreground[p])
			fgTotal += f
			total += a
			switch v {
			case 1:
				correct += f
				in += f
				un += a - f
			case 0:
				correct += a - f
			default:
				return out
			}
		}
		un += fgTotal
		inter += in
		union += un
		if un == 0 {
			sumIoU++
		} else {
			sumIoU += in / un
		}
	}
	out[0].Value = correct / total
	if union > 0 {
		out[1].Value = inter / union
	} else {
		out[1].Value = 1
	}
	out[2].Value = sumIoU / float64(len(pred))
	return out
}

var (
	_ Problem        = (*Segmentation)(nil)
	_ Labelings      = (*Segmentation)(nil)
	_ Bounded        = (*Segmentation)(nil)
	_ FallibleOracle = (*Segmentation)(nil)
	_ Evaluator      = (*Segmentation)(nil)
)
