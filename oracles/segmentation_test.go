package oracles_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	. "github.com/fwstruct/fwstruct/oracles"
	"github.com/fwstruct/fwstruct/oracles/oraclestest"
)

func smallSegmentation(seed uint64) *Segmentation {
	return oraclestest.Segmentation(oraclestest.SegmentationConfig{
		N: 14, MinNodes: 1, MaxNodes: 12, Unary: 4, Pairwise: 3, Degree: 3.5, Seed: seed,
	})
}

// boundedWeights draws weights and clips the pairwise ones to <= 0.
func boundedWeights(rng *rand.Rand, s *Segmentation, scale float64) []float64 {
	w := oraclestest.Weights(rng, s.Dim(), scale)
	for j := s.PairwiseOffset(); j < s.Dim(); j++ {
		w[j] = -math.Abs(w[j])
	}
	return w
}

func TestSegmentationConformance(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		oraclestest.Conformance(t, smallSegmentation(seed), oraclestest.CheckOptions{Seed: seed, Weights: 6})
	}
	// Larger weights make the pairwise terms dominate.
	oraclestest.Conformance(t, smallSegmentation(4), oraclestest.CheckOptions{Seed: 4, Scale: 5})
}

// segReferencePhi computes phi(x_i, y) by its definition from the features.
func segReferencePhi(s *Segmentation, im SegImage, y []int32) []float64 {
	U, P := s.UnaryDim(), s.PairwiseDim()
	phi := make([]float64, s.Dim())
	for p := range y {
		sg := -1.0
		if y[p] == 1 {
			sg = 1
		}
		for k := 0; k < U; k++ {
			phi[k] += sg * float64(im.Unary[p*U+k])
		}
	}
	for e, pq := range im.Edges {
		if y[pq[0]] != y[pq[1]] {
			for k := 0; k < P; k++ {
				phi[U+k] += float64(im.Pairwise[e*P+k])
			}
		}
	}
	return phi
}

func TestSegmentationPsiAndScoreMatchDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	im := SegImage{
		Unary:    []float32{0.5, 0, 2, 1, 0.25, 0, 3, 1, 1},
		Edges:    [][2]int32{{0, 1}, {2, 1}},
		Pairwise: []float32{1, 0.5, 0, 2},
		Truth:    []int32{1, 0, 0},
	}
	s, err := NewSegmentation(3, 2, []SegImage{im})
	if err != nil {
		t.Fatal(err)
	}
	var psi SparseVec
	for trial := 0; trial < 20; trial++ {
		w := oraclestest.Weights(rng, s.Dim(), 1)
		s.ForEachLabeling(0, func(y []int32) {
			want := segReferencePhi(s, im, im.Truth)
			phiY := segReferencePhi(s, im, y)
			for j := range want {
				want[j] -= phiY[j]
			}
			s.Psi(0, y, &psi)
			got := psi.Dense(s.Dim())
			for j := range want {
				if math.Abs(got[j]-want[j]) > 1e-12 {
					t.Fatalf("y=%v: psi[%d] = %v, want %v", y, j, got[j], want[j])
				}
			}
			var score float64
			for j, v := range phiY {
				score += w[j] * v
			}
			if got := s.Score(0, y, w); math.Abs(got-score) > 1e-12 {
				t.Fatalf("y=%v: Score %v, <w, phi> = %v", y, got, score)
			}
		})
	}
}

func TestSegmentationLossWeights(t *testing.T) {
	for _, tc := range []struct {
		name  string
		truth []int32
		area  []int32
		want  []float64
	}{
		{"balanced", []int32{1, 0, 0}, []int32{2, 1, 3}, []float64{0.5, 0.5 / 4, 1.5 / 4}},
		{"no-area", []int32{1, 1, 0, 0}, nil, []float64{0.25, 0.25, 0.25, 0.25}},
		{"ground-only", []int32{0, 0}, []int32{1, 3}, []float64{0.25, 0.75}},
		{"figure-only", []int32{1}, nil, []float64{1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := len(tc.truth)
			s, err := NewSegmentation(1, 0, []SegImage{{Unary: make([]float32, n), Truth: tc.truth, Area: tc.area}})
			if err != nil {
				t.Fatal(err)
			}
			got := s.LossWeights(0)
			for p := range tc.want {
				if math.Abs(got[p]-tc.want[p]) > 1e-15 {
					t.Fatalf("weights %v, want %v", got, tc.want)
				}
			}
			flipped := make([]int32, n)
			for p, v := range tc.truth {
				flipped[p] = 1 - v
			}
			if l := s.Loss(0, flipped); math.Abs(l-1) > 1e-12 {
				t.Errorf("loss of the flipped labeling %v, want 1", l)
			}
			if l := s.Loss(0, tc.truth); l != 0 {
				t.Errorf("loss of the truth %v", l)
			}
			if l := s.Loss(0, flipped[:n-1]); !math.IsInf(l, 1) {
				t.Errorf("loss of a short labeling %v, want +Inf", l)
			}
		})
	}
}

func TestSegmentationRejectsSubmodularityBreakingWeights(t *testing.T) {
	s := smallSegmentation(7)
	i := s.Len() - 1
	for s.Regions(i) < 3 || len(s.Edges(i)) == 0 {
		i--
	}
	rng := rand.New(rand.NewPCG(8, 9))
	w := boundedWeights(rng, s, 1)
	w[s.PairwiseOffset()+1] = 50 // makes <w_P, x_pq> > 0 on the edges where feature 1 is > 0
	y, h, err := s.MaxOracleErr(i, w, nil)
	if err == nil {
		t.Fatal("no error for a positive pairwise weight")
	}
	for _, want := range []string{"image " + itoa(i), "edge ", "regions ", "not submodular"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if !math.IsNaN(h) || len(y) != s.Regions(i) {
		t.Errorf("MaxOracleErr returned h = %v and %d labels", h, len(y))
	}
	if _, h := s.MaxOracle(i, w, nil); !math.IsNaN(h) {
		t.Errorf("MaxOracle returned h = %v, want NaN", h)
	}
	if _, _, err := OracleFunc(s)(i, w, nil); err == nil {
		t.Error("OracleFunc does not report the error")
	}
	// Predict's documented fallback: with every pairwise weight positive,
	// every edge is treated as weightless, as with w_P = 0.
	for j := s.PairwiseOffset(); j < s.Dim(); j++ {
		w[j] = math.Abs(w[j]) + 1
	}
	got := append([]int32(nil), s.Predict(i, w, nil)...)
	for j := s.PairwiseOffset(); j < s.Dim(); j++ {
		w[j] = 0
	}
	if want := s.Predict(i, w, nil); !SameLabeling(got, want) {
		t.Errorf("Predict with positive pairwise weights %v, with zero ones %v", got, want)
	}
	w[0] = math.NaN()
	if _, _, err := s.MaxOracleErr(i, w, nil); err == nil {
		t.Error("no error for a NaN weight")
	}
	if y := s.Predict(i, w, nil); len(y) != s.Regions(i) {
		t.Errorf("Predict with a NaN weight returned %d labels", len(y))
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// TestSegmentationOracleIsLocallyOptimalOnLargeGraphs checks, on graphs too
// large for brute force, that no single region flip improves the oracle's
// answer and that its score is at least that of the truth and of random
// labelings.
func TestSegmentationOracleIsLocallyOptimalOnLargeGraphs(t *testing.T) {
	s := oraclestest.Segmentation(oraclestest.SegmentationConfig{
		N: 6, MinNodes: 120, MaxNodes: 180, Unary: 20, Pairwise: 6, Degree: 5.5, Seed: 10,
	})
	rng := rand.New(rand.NewPCG(11, 12))
	var psi SparseVec
	for i := 0; i < s.Len(); i++ {
		w := boundedWeights(rng, s, 0.5)
		y, h := s.MaxOracle(i, w, nil)
		y = append([]int32(nil), y...)
		if hy := H(s, i, y, w, &psi); math.Abs(hy-h) > 1e-9 {
			t.Fatalf("image %d: oracle score %v, H of its labeling %v", i, h, hy)
		}
		if h < 0 {
			t.Fatalf("image %d: oracle score %v below the truth's 0", i, h)
		}
		for p := range y {
			y[p] = 1 - y[p]
			if hf := H(s, i, y, w, &psi); hf > h+1e-9 {
				t.Fatalf("image %d: flipping region %d improves H from %v to %v", i, p, h, hf)
			}
			y[p] = 1 - y[p]
		}
		z := make([]int32, len(y))
		for trial := 0; trial < 20; trial++ {
			for p := range z {
				z[p] = int32(rng.IntN(2))
			}
			if hz := H(s, i, z, w, &psi); hz > h+1e-9 {
				t.Fatalf("image %d: a random labeling scores %v > %v", i, hz, h)
			}
		}
	}
}

func TestSegmentationMetrics(t *testing.T) {
	// Image 0: regions of 10 and 30 pixels with 8 and 3 figure pixels;
	// image 1: one region of 5 pixels, all ground.
	s, err := NewSegmentation(1, 0, []SegImage{
		{Unary: []float32{0, 0}, Truth: []int32{1, 0}, Area: []int32{10, 30}, Foreground: []int32{8, 3}},
		{Unary: []float32{0}, Truth: []int32{0}, Area: []int32{5}, Foreground: []int32{0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	get := func(ms []Metric, name string) float64 {
		for _, m := range ms {
			if m.Name == name {
				return m.Value
			}
		}
		t.Fatalf("no metric %s in %v", name, ms)
		return 0
	}
	for _, tc := range []struct {
		name           string
		pred           [][]int32
		acc, iou, miou float64
	}{
		// Truth labels: correct 8 + 27 + 5 of 45 pixels; intersection 8,
		// union 11 + 2 = 13 in image 0; image 1 has an empty union (IoU 1).
		{"truth", [][]int32{{1, 0}, {0}}, 40.0 / 45, 8.0 / 13, (8.0/13 + 1) / 2},
		{"all-figure", [][]int32{{1, 1}, {1}}, 11.0 / 45, 11.0 / 45, (11.0/40 + 0) / 2},
		{"all-ground", [][]int32{{0, 0}, {0}}, 34.0 / 45, 0, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := s.Metrics(tc.pred)
			for _, c := range []struct {
				name      string
				got, want float64
			}{
				{MetricPixelAccuracy, get(ms, MetricPixelAccuracy), tc.acc},
				{MetricForegroundIoU, get(ms, MetricForegroundIoU), tc.iou},
				{MetricMeanImageIoU, get(ms, MetricMeanImageIoU), tc.miou},
			} {
				if math.Abs(c.got-c.want) > 1e-12 {
					t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
				}
			}
		})
	}
	for _, bad := range [][][]int32{nil, {{1, 0}}, {{1}, {0}}, {{1, 2}, {0}}} {
		for _, m := range s.Metrics(bad) {
			if !math.IsNaN(m.Value) {
				t.Errorf("Metrics(%v): %s = %v, want NaN", bad, m.Name, m.Value)
			}
		}
	}
}

func TestNewSegmentationRejectsBadInput(t *testing.T) {
	good := func() SegImage {
		return SegImage{
			Unary: []float32{1, 2, 3, 4}, Edges: [][2]int32{{0, 1}}, Pairwise: []float32{0.5},
			Truth: []int32{0, 1}, Area: []int32{3, 4}, Foreground: []int32{1, 4},
		}
	}
	if _, err := NewSegmentation(2, 1, []SegImage{good()}); err != nil {
		t.Fatalf("valid image rejected: %v", err)
	}
	for _, tc := range []struct {
		name   string
		change func(*SegImage)
		want   string
	}{
		{"no-regions", func(im *SegImage) { im.Truth = nil }, "no regions"},
		{"unary-size", func(im *SegImage) { im.Unary = im.Unary[:3] }, "unary features"},
		{"pairwise-size", func(im *SegImage) { im.Pairwise = nil }, "pairwise features"},
		{"label", func(im *SegImage) { im.Truth[1] = 2 }, "label 2"},
		{"nan-unary", func(im *SegImage) { im.Unary[2] = float32(math.NaN()) }, "unary feature"},
		{"negative-pairwise", func(im *SegImage) { im.Pairwise[0] = -1 }, "non-negative"},
		{"self-edge", func(im *SegImage) { im.Edges[0] = [2]int32{1, 1} }, "joins regions"},
		{"edge-range", func(im *SegImage) { im.Edges[0] = [2]int32{0, 2} }, "joins regions"},
		{"repeated-edge", func(im *SegImage) {
			im.Edges = append(im.Edges, [2]int32{1, 0})
			im.Pairwise = append(im.Pairwise, 1)
		}, "twice"},
		{"area", func(im *SegImage) { im.Area[0] = 0 }, "area"},
		{"area-size", func(im *SegImage) { im.Area = im.Area[:1] }, "areas"},
		{"foreground", func(im *SegImage) { im.Foreground[0] = 4 }, "foreground pixels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			im := good()
			tc.change(&im)
			_, err := NewSegmentation(2, 1, []SegImage{good(), im})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "image 1") {
				t.Fatalf("error %v, want one naming image 1 and mentioning %q", err, tc.want)
			}
		})
	}
	if _, err := NewSegmentation(0, 1, nil); err == nil {
		t.Error("zero unary features accepted")
	}
}

// benchSegmentation is a problem the size of HorseSeg images: 140-160
// regions of 337 unary features, about 5.6 neighbours each, 100 pairwise
// features per edge.
func benchSegmentation() *Segmentation {
	return oraclestest.Segmentation(oraclestest.SegmentationConfig{
		N: 20, MinNodes: 140, MaxNodes: 160, Unary: 337, Pairwise: 100, Degree: 5.6, Seed: 13,
	})
}

// BenchmarkSegmentationMaxOracle times one loss-augmented oracle call
// (scores and max-flow) on a 150-region image (target: <= 300 us).
func BenchmarkSegmentationMaxOracle(b *testing.B) {
	s := benchSegmentation()
	w := boundedWeights(rand.New(rand.NewPCG(1, 2)), s, 0.05)
	y := make([]int32, 0, 256)
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		y, _ = s.MaxOracle(k%s.Len(), w, y)
	}
}

// BenchmarkSegmentationScore times the scoring part of an oracle call
// alone (unary and pairwise scores of every region and edge); the rest of
// BenchmarkSegmentationMaxOracle is the graph construction and max-flow.
func BenchmarkSegmentationScore(b *testing.B) {
	s := benchSegmentation()
	w := boundedWeights(rand.New(rand.NewPCG(1, 2)), s, 0.05)
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		i := k % s.Len()
		s.Score(i, s.Truth(i), w)
	}
}

// BenchmarkSegmentationPsi times building psi_i(y) for an oracle answer.
func BenchmarkSegmentationPsi(b *testing.B) {
	s := benchSegmentation()
	w := boundedWeights(rand.New(rand.NewPCG(1, 2)), s, 0.05)
	ys := make([][]int32, s.Len())
	for i := range ys {
		ys[i], _ = s.MaxOracle(i, w, nil)
	}
	var psi SparseVec
	b.ReportAllocs()
	b.ResetTimer()
	for k := 0; k < b.N; k++ {
		i := k % s.Len()
		s.Psi(i, ys[i], &psi)
	}
}

// A three-region strip: the middle region's own features weakly vote for
// the ground but a strong pairwise weight (<= 0, as WeightBounds asks)
// makes it follow its two figure neighbours.
func ExampleSegmentation() {
	img := SegImage{
		Unary:    []float32{1, 0, 0, 1, 1, 0}, // features (figure cue, ground cue)
		Edges:    [][2]int32{{0, 1}, {1, 2}},
		Pairwise: []float32{1, 1}, // one pairwise feature: a constant
		Truth:    []int32{1, 1, 1},
	}
	s, err := NewSegmentation(2, 1, []SegImage{img})
	if err != nil {
		panic(err)
	}
	w := []float64{1, -0.5, 0} // unary weights, then the pairwise weight
	fmt.Println("no smoothing:", s.Predict(0, w, nil))
	w[2] = -2
	fmt.Println("Potts smoothing:", s.Predict(0, w, nil))
	y, h, err := s.MaxOracleErr(0, w, nil)
	fmt.Printf("loss-augmented: %v, H = %.2f, err = %v\n", y, h, err)
	w[2] = 1 // breaks submodularity
	_, _, err = s.MaxOracleErr(0, w, nil)
	fmt.Println(err != nil)
	// Output:
	// no smoothing: [1 0 1]
	// Potts smoothing: [1 1 1]
	// loss-augmented: [1 1 1], H = 0.00, err = <nil>
	// true
}
