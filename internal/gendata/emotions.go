package gendata

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// EmotionsLabels are the six labels of the MULAN emotions data set (Trohidis
// et al. 2008), spelled as in its XML file.
var EmotionsLabels = []string{"amazed-suprised", "happy-pleased", "relaxing-calm", "quiet-still", "sad-lonely", "angry-aggresive"}

// Emotions writes an emotions-like MULAN data set into dir: name-train.arff
// (391 songs), name-test.arff (202 songs) and name.xml, and returns the
// path of the training file. Like the emotions set of MULAN it has 72
// unscaled audio features and the 6 labels of EmotionsLabels, about 1.9
// relevant a song:
//
//   - 8 rhythmic features: two tempi in beats per minute (up to 240), which
//     dominate the inputs' norms (median |x|^2 about 33,000), and six
//     amplitudes in [0, 1];
//   - 64 timbre features (means and deviations of spectral descriptors) of
//     unit to sub-unit scale, each with its own offset.
//
// Every song has a hidden arousal and valence; the labels are noisy
// thresholds of linear combinations of the two (amazed and angry songs are
// aroused, relaxing and quiet ones calm, happy and sad ones of high and low
// valence), so that the labels depend on the features and are correlated.
// Arousal shows in the tempi and in part of the timbre features, valence in
// timbre features only, whose scales are a hundred times smaller than the
// tempi's: a model learns them well on standardized features and poorly on
// the raw ones. The output depends on seed alone.
func Emotions(dir, name string, seed uint64) (string, error) {
	rng := rand.New(rand.NewPCG(seed, 72))
	// Each timbre feature: an offset, a scale, and its loadings on arousal,
	// valence and a nuisance factor of the song.
	type timbre struct{ offset, scale, arousal, valence, nuisance float64 }
	var tim [64]timbre
	for k := range tim {
		t := &tim[k]
		t.offset = rng.Float64() * float64(1+k%3)
		t.scale = 0.01 + 0.2*rng.Float64()
		switch k % 4 {
		case 0:
			t.arousal = 0.8 * rng.NormFloat64()
		case 1, 2:
			t.valence = 0.8 * rng.NormFloat64()
		}
		t.nuisance = 0.5 * rng.NormFloat64()
	}
	song := func() ([]float64, []int) {
		a, v, u := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		x := make([]float64, 72)
		clip := func(bpm float64) float64 { return math.Max(40, math.Min(240, bpm)) }
		x[0] = clip(105 + 10*a + 30*rng.NormFloat64()) // low-peak tempo
		x[1] = clip(140 + 10*a + 35*rng.NormFloat64()) // high-peak tempo
		for k := 2; k < 8; k++ {
			x[k] = math.Max(0, math.Min(1, 0.3+0.1*a+0.1*rng.NormFloat64()))
		}
		for k, t := range tim {
			x[8+k] = t.offset + t.scale*(t.arousal*a+t.valence*v+t.nuisance*u+0.5*rng.NormFloat64())
		}
		noise := func() float64 { return 0.5 * rng.NormFloat64() }
		score := []float64{
			a + 0.3*v + noise() - 0.6,  // amazed-surprised
			v + 0.3*a + noise() - 0.3,  // happy-pleased
			-a + 0.2*v + noise() - 0.2, // relaxing-calm
			-a - 0.2*v + noise() - 0.7, // quiet-still
			-v - 0.3*a + noise() - 0.5, // sad-lonely
			a - 0.5*v + noise() - 0.8,  // angry-aggressive
		}
		y := make([]int, len(score))
		for j, s := range score {
			if s > 0 {
				y[j] = 1
			}
		}
		return x, y
	}
	arff := func(n int) string {
		var b strings.Builder
		b.WriteString("@relation 'emotions-like: -C -6'\n\n")
		for k := 0; k < 72; k++ {
			fmt.Fprintf(&b, "@attribute %s numeric\n", emotionsFeature(k))
		}
		for _, l := range EmotionsLabels {
			fmt.Fprintf(&b, "@attribute %s {0,1}\n", l)
		}
		b.WriteString("\n@data\n")
		for m := 0; m < n; m++ {
			x, y := song()
			for _, v := range x {
				fmt.Fprintf(&b, "%.6g,", v)
			}
			for j, l := range y {
				if j > 0 {
					b.WriteByte(',')
				}
				fmt.Fprint(&b, l)
			}
			b.WriteByte('\n')
		}
		return b.String()
	}
	var xml strings.Builder
	xml.WriteString("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<labels xmlns=\"http://mulan.sourceforge.net/labels\">\n")
	for _, l := range EmotionsLabels {
		fmt.Fprintf(&xml, "<label name=\"%s\"></label>\n", l)
	}
	xml.WriteString("</labels>\n")
	train := filepath.Join(dir, name+"-train.arff")
	files := []struct{ path, text string }{
		{train, arff(391)},
		{filepath.Join(dir, name+"-test.arff"), arff(202)},
		{filepath.Join(dir, name+".xml"), xml.String()},
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, []byte(f.text), 0o644); err != nil {
			return "", fmt.Errorf("gendata: emotions: %w", err)
		}
	}
	return train, nil
}

// emotionsFeature names feature k of the emotions-like data.
func emotionsFeature(k int) string {
	rhythm := []string{"BH_LowPeakBPM", "BH_HighPeakBPM", "BH_LowPeakAmp", "BH_HighPeakAmp", "BH_HighLowRatio", "BHSUM1", "BHSUM2", "BHSUM3"}
	if k < len(rhythm) {
		return rhythm[k]
	}
	return fmt.Sprintf("Timbre_%02d", k-len(rhythm))
}
