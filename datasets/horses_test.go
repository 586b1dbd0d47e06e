package datasets

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fwstruct/fwstruct/imaging/features"
	"github.com/fwstruct/fwstruct/imaging/slic"
	"github.com/fwstruct/fwstruct/internal/gendata"
	"github.com/fwstruct/fwstruct/oracles"
)

func writeJPEG(t testing.TB, path string, img image.Image) {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeHorses writes n generated images and masks under dir/horses and
// returns that folder.
func fakeHorses(t testing.TB, dir string, n int) string {
	t.Helper()
	root := filepath.Join(dir, "horses")
	for _, sub := range []string{HorsesImageDir, HorsesMaskDir} {
		if err := os.MkdirAll(filepath.Join(root, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for k := 1; k <= n; k++ {
		img, mask := gendata.Horse(64+4*(k%3), 48, uint64(k))
		name := fmt.Sprintf("horse%03d.jpg", k)
		writeJPEG(t, filepath.Join(root, HorsesImageDir, name), img)
		writeJPEG(t, filepath.Join(root, HorsesMaskDir, name), mask)
	}
	return root
}

// smallOptions are fast options for generated images.
func smallOptions(path, cache string) HorsesOptions {
	return HorsesOptions{
		Path: path, Train: 5, CacheDir: cache,
		SLIC:            slic.Params{Superpixels: 24},
		Features:        features.Config{Words: 6, GreyBins: 8},
		CodebookSamples: 40,
	}
}

// sameProblem fails unless two segmentation problems hold the same data.
func sameProblem(t *testing.T, a, b *oracles.Segmentation) {
	t.Helper()
	if a.Len() != b.Len() || a.Dim() != b.Dim() {
		t.Fatalf("%d/%d images, dimensions %d/%d", a.Len(), b.Len(), a.Dim(), b.Dim())
	}
	for i := 0; i < a.Len(); i++ {
		x, y := a.Image(i), b.Image(i)
		if !slices.Equal(x.Unary, y.Unary) || !slices.Equal(x.Pairwise, y.Pairwise) || !slices.Equal(x.Edges, y.Edges) ||
			!slices.Equal(x.Truth, y.Truth) || !slices.Equal(x.Area, y.Area) || !slices.Equal(x.Foreground, y.Foreground) {
			t.Fatalf("image %d differs", i)
		}
	}
}

func TestLoadHorsesGenerated(t *testing.T) {
	dir := fakeHorses(t, t.TempDir(), 9)
	cache := t.TempDir()
	opt := smallOptions(filepath.Dir(dir), cache) // a data root holding horses/
	h, err := LoadHorses(opt)
	if err != nil {
		t.Fatal(err)
	}
	cfg := opt.Features.WithDefaults()
	if h.Train.Len() != 5 || h.Test.Len() != 4 || len(h.TrainImages) != 5 || len(h.TestImages) != 4 {
		t.Fatalf("%d/%d examples, %d/%d images", h.Train.Len(), h.Test.Len(), len(h.TrainImages), len(h.TestImages))
	}
	if h.Train.Dim() != cfg.UnaryDim()+cfg.PairwiseDim() || h.Train.PairwiseDim() != 100 {
		t.Fatalf("dimension %d (pairwise %d)", h.Train.Dim(), h.Train.PairwiseDim())
	}
	for k, info := range slices.Concat(h.TrainImages, h.TestImages) {
		p, i := h.Train, k
		if k >= 5 {
			p, i = h.Test, k-5
		}
		if want := fmt.Sprintf("horse%03d.jpg", k+1); info.Name != want || info.Number != k+1 {
			t.Fatalf("image %d is %s (%d), want %s: not in number order", k, info.Name, info.Number, want)
		}
		img, mask, err := info.ReadImage()
		if err != nil {
			t.Fatal(err)
		}
		if img.Bounds().Dx() != info.Width || mask.Bounds().Dy() != info.Height {
			t.Fatalf("%s: %v image for a %d x %d record", info.Name, img.Bounds(), info.Width, info.Height)
		}
		// The truth is the majority of the mask pixels of each superpixel,
		// and the stored counts are those of the mask.
		sp := info.Superpixels()
		area := make([]int32, info.Regions)
		fg := make([]int32, info.Regions)
		for j, l := range sp {
			area[l]++
			if mask.Pix[j] == 255 {
				fg[l]++
			}
		}
		im := p.Image(i)
		if !slices.Equal(area, im.Area) || !slices.Equal(fg, im.Foreground) {
			t.Fatalf("%s: pixel counts differ from the mask", info.Name)
		}
		for l, tr := range im.Truth {
			if (tr == 1) != (2*fg[l] > area[l]) {
				t.Fatalf("%s: superpixel %d labelled %d with %d of %d figure pixels", info.Name, l, tr, fg[l], area[l])
			}
		}
		// PixelMask of the truth agrees with the mask on the majority.
		m, err := info.PixelMask(im.Truth)
		if err != nil {
			t.Fatal(err)
		}
		agree := 0
		for j := range m.Pix {
			if m.Pix[j] == mask.Pix[j] {
				agree++
			}
		}
		if frac := float64(agree) / float64(len(m.Pix)); frac < 0.9 {
			t.Errorf("%s: the superpixel truth agrees with the mask on %.2f of the pixels", info.Name, frac)
		}
		if _, err := info.PixelMask(im.Truth[1:]); err == nil {
			t.Error("PixelMask accepted a short labeling")
		}
	}
	// The task is learnable: the metrics of the truth are good and those
	// of the all-ground labeling are not.
	truths := make([][]int32, h.Test.Len())
	ground := make([][]int32, h.Test.Len())
	for i := range truths {
		truths[i] = h.Test.Truth(i)
		ground[i] = make([]int32, len(truths[i]))
	}
	if acc := h.Test.Metrics(truths)[0].Value; acc < 0.9 {
		t.Errorf("pixel accuracy of the superpixel truth %.3f", acc)
	}
	if iou := h.Test.Metrics(ground)[1].Value; iou != 0 {
		t.Errorf("foreground IoU of the all-ground labeling %v", iou)
	}

	// Cached: a second load reads the same problems from the cache file.
	files, _ := filepath.Glob(filepath.Join(cache, "horses-*.bin"))
	if len(files) != 1 {
		t.Fatalf("cache files %v", files)
	}
	again, err := LoadHorses(opt)
	if err != nil {
		t.Fatal(err)
	}
	sameProblem(t, h.Train, again.Train)
	sameProblem(t, h.Test, again.Test)
	if !slices.Equal(again.TestImages[2].Superpixels(), h.TestImages[2].Superpixels()) {
		t.Fatal("superpixels differ after the cache")
	}
	// Deterministic: the same without the cache, whatever the number of
	// workers.
	opt.NoCache = true
	for _, workers := range []int{1, 3} {
		opt.Workers = workers
		fresh, err := LoadHorses(opt)
		if err != nil {
			t.Fatal(err)
		}
		sameProblem(t, h.Train, fresh.Train)
		sameProblem(t, h.Test, fresh.Test)
	}
	opt.Workers = 0

	// A corrupt cache file is ignored and rewritten.
	if err := os.WriteFile(files[0], []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	opt.NoCache = false
	if again, err = LoadHorses(opt); err != nil {
		t.Fatal(err)
	}
	sameProblem(t, h.Test, again.Test)
	if fi, err := os.Stat(files[0]); err != nil || fi.Size() < 100 {
		t.Fatalf("cache not rewritten: %v, %v", fi, err)
	}
	// Another split and another parameter make other cache entries.
	opt.Train = 3
	if other, err := LoadHorses(opt); err != nil || other.Train.Len() != 3 || other.Test.Len() != 6 {
		t.Fatalf("3 training images: %v", err)
	}
	opt.SLIC.Superpixels = 12
	if _, err := LoadHorses(opt); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(cache, "horses-*.bin")); len(files) != 3 {
		t.Fatalf("cache files %v, want 3", files)
	}
}

func TestLoadHorsesCacheFollowsTheFiles(t *testing.T) {
	dir := fakeHorses(t, t.TempDir(), 7)
	opt := smallOptions(dir, t.TempDir())
	h, err := LoadHorses(opt)
	if err != nil {
		t.Fatal(err)
	}
	// Changing one test image changes the key: the new image is read.
	img, mask := gendata.Horse(64, 48, 99)
	writeJPEG(t, filepath.Join(dir, HorsesImageDir, "horse007.jpg"), img)
	writeJPEG(t, filepath.Join(dir, HorsesMaskDir, "horse007.jpg"), mask)
	again, err := LoadHorses(opt)
	if err != nil {
		t.Fatal(err)
	}
	last := again.Test.Len() - 1
	if slices.Equal(again.Test.Image(last).Foreground, h.Test.Image(last).Foreground) && slices.Equal(again.Test.Image(last).Unary, h.Test.Image(last).Unary) {
		t.Fatal("a changed image was read from the stale cache")
	}
	sameProblem(t, h.Train, again.Train)
}

func TestLoadHorsesErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		breakIt func(t *testing.T, dir string)
		opt     func(*HorsesOptions)
		want    string
	}{
		{"missing-mask", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, HorsesMaskDir, "horse004.jpg"))
		}, nil, filepath.Join(HorsesMaskDir, "horse004.jpg")},
		{"corrupt-image", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, HorsesImageDir, "horse003.jpg"), []byte("not a jpeg"), 0o644)
		}, nil, filepath.Join(HorsesImageDir, "horse003.jpg")},
		{"truncated-mask", func(t *testing.T, dir string) {
			p := filepath.Join(dir, HorsesMaskDir, "horse002.jpg")
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:len(data)/3], 0o644)
		}, nil, filepath.Join(HorsesMaskDir, "horse002.jpg")},
		{"mask-size", func(t *testing.T, dir string) {
			_, mask := gendata.Horse(30, 20, 5)
			writeJPEG(t, filepath.Join(dir, HorsesMaskDir, "horse005.jpg"), mask)
		}, nil, "mask of size"},
		{"train-size", nil, func(o *HorsesOptions) { o.Train = 6 }, "training images"},
		{"bad-features", nil, func(o *HorsesOptions) { o.Features.GreyBins = 1000 }, "invalid sizes"},
		{"not-a-dataset", nil, func(o *HorsesOptions) { o.Path = t.TempDir() }, "holds neither"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fakeHorses(t, t.TempDir(), 6)
			if tc.breakIt != nil {
				tc.breakIt(t, dir)
			}
			opt := smallOptions(dir, t.TempDir())
			if tc.opt != nil {
				tc.opt(&opt)
			}
			_, err := LoadHorses(opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestLoadHorsesByName(t *testing.T) {
	root := filepath.Dir(fakeHorses(t, t.TempDir(), 6))
	t.Setenv(EnvVar, root)
	opt := Options{Horses: smallOptions("", t.TempDir())}
	train, test, err := Load("horses", opt)
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 5 || test.Len() != 1 {
		t.Fatalf("%d/%d examples", train.Len(), test.Len())
	}
	if _, ok := train.(oracles.Bounded); !ok {
		t.Error("the horses problem does not state its bounds")
	}
	opt.Path = filepath.Join(root, "horses")
	opt.Horses.Train = 4
	if train, _, err = Load("horses", opt); err != nil || train.Len() != 4 {
		t.Fatalf("explicit path: %v", err)
	}
}

func TestNumberIn(t *testing.T) {
	for _, tc := range []struct {
		name string
		want int
	}{
		{"horse001.jpg", 1}, {"horse328.jpg", 328}, {"img12b.jpeg", 12}, {"plain.jpg", -1}, {"7.jpg", 7},
	} {
		if got := numberIn(tc.name); got != tc.want {
			t.Errorf("numberIn(%q) = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// BenchmarkPreprocessHorsesGenerated times the whole pipeline (no cache)
// on generated images; the real-data figure is logged by TestRealHorses.
func BenchmarkPreprocessHorsesGenerated(b *testing.B) {
	dir := fakeHorses(b, b.TempDir(), 12)
	opt := smallOptions(dir, "")
	opt.NoCache = true
	opt.Train = 8
	for k := 0; k < b.N; k++ {
		if _, err := LoadHorses(opt); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLocateHorsesNotFound(t *testing.T) {
	empty := t.TempDir()
	t.Setenv(EnvVar, empty)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	_, err := LocateHorses("")
	if err == nil || !strings.Contains(err.Error(), "not found") || !strings.Contains(err.Error(), empty) {
		t.Fatalf("error %v, want one listing %s", err, empty)
	}
	root := filepath.Dir(fakeHorses(t, t.TempDir(), 2))
	t.Setenv(EnvVar, root)
	if dir, err := LocateHorses(""); err != nil || dir != filepath.Join(root, "horses") {
		t.Fatalf("LocateHorses = %q, %v", dir, err)
	}
}
