package datasets

import (
	"errors"
	"fmt"
	"image"
	"image/draw"
	_ "image/jpeg" // the horses are JPEG files
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/fwstruct/fwstruct/imaging/features"
	"github.com/fwstruct/fwstruct/imaging/slic"
	"github.com/fwstruct/fwstruct/oracles"
)

// HorsesSmallTrain is the number of training images of the default split,
// the size of HorseSeg-small (Osokin et al. 2016, App. I.3).
const HorsesSmallTrain = 147

// Folders of the Weizmann horses under their dataset folder: grey images and
// figure/ground masks of the same names (bright = horse).
const (
	HorsesImageDir = "gray"
	HorsesMaskDir  = "figure_ground"
)

// HorsesOptions configures LoadHorses. The zero value is the HorseSeg-small
// style split: 147 training images, about 150 superpixels per image, the
// default features, cached in the user cache directory.
type HorsesOptions struct {
	// Path is the dataset folder (holding gray/ and figure_ground/) or a
	// data root holding horses/; empty means $FWSTRUCT_DATA, then the user
	// cache directory.
	Path string
	// Train is the number of training images: the images of the lowest
	// numbers; the others are the test set. Zero means HorsesSmallTrain.
	Train int
	// SLIC sets the superpixels (zero value: 150 superpixels of
	// compactness 10).
	SLIC slic.Params
	// Features sets the feature sizes (zero value: the defaults of
	// features.Config).
	Features features.Config
	// CodebookSamples is the number of texture descriptors each training
	// image contributes to the k-means codebook; zero means 200.
	CodebookSamples int
	// CacheDir is the folder of the preprocessing cache; empty means
	// <user cache dir>/fwstruct/horses-cache.
	CacheDir string
	// NoCache disables reading and writing the cache.
	NoCache bool
	// Workers is the number of images processed in parallel; zero means
	// GOMAXPROCS.
	Workers int
}

func (o HorsesOptions) withDefaults() HorsesOptions {
	if o.Train == 0 {
		o.Train = HorsesSmallTrain
	}
	if o.SLIC.Superpixels == 0 {
		o.SLIC.Superpixels = 150
	}
	if o.SLIC.Compactness == 0 {
		o.SLIC.Compactness = 10
	}
	if o.SLIC.Iterations == 0 {
		o.SLIC.Iterations = 10
	}
	o.Features = o.Features.WithDefaults()
	if o.CodebookSamples == 0 {
		o.CodebookSamples = 200
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// Horses is the Weizmann horses figure/ground task, preprocessed into
// superpixel graphs with features (Osokin et al. 2016, App. I.3, on grey
// images).
type Horses struct {
	// Train and Test are the segmentation problems of the two splits.
	Train, Test *oracles.Segmentation
	// TrainImages and TestImages describe the images of the problems'
	// examples, in the same order.
	TrainImages, TestImages []HorseImage
}

// HorseImage is one image of the dataset with its superpixels.
type HorseImage struct {
	// Name is the file name, e.g. "horse001.jpg"; Number is the number in
	// it (1).
	Name   string
	Number int
	// Image and Mask are the paths of the grey image and of its mask.
	Image, Mask   string
	Width, Height int
	// Regions is the number of superpixels.
	Regions int
	runs    []uint16 // superpixel labels in raster order as (label, length) runs
}

// Superpixels returns the superpixel of every pixel, row-major: pixel
// (x, y) lies in region Superpixels()[y*Width+x] of the problem's example.
func (h *HorseImage) Superpixels() []uint16 {
	out := make([]uint16, 0, h.Width*h.Height)
	for k := 0; k+1 < len(h.runs); k += 2 {
		for c := h.runs[k+1]; c > 0; c-- {
			out = append(out, h.runs[k])
		}
	}
	return out
}

// PixelMask maps region labels y (one per superpixel, 1 = horse) back to a
// pixel mask: 255 on the horse, 0 elsewhere.
func (h *HorseImage) PixelMask(y []int32) (*image.Gray, error) {
	if len(y) != h.Regions {
		return nil, fmt.Errorf("horses: %s has %d superpixels, the labeling %d labels", h.Name, h.Regions, len(y))
	}
	m := image.NewGray(image.Rect(0, 0, h.Width, h.Height))
	i := 0
	for k := 0; k+1 < len(h.runs); k += 2 {
		n := int(h.runs[k+1])
		if y[h.runs[k]] == 1 {
			for j := i; j < i+n; j++ {
				m.Pix[j] = 255
			}
		}
		i += n
	}
	return m, nil
}

// ReadImage decodes the grey image and the mask (255 on the horse, 0
// elsewhere) of h from their files.
func (h *HorseImage) ReadImage() (img, mask *image.Gray, err error) {
	img, mask, err = readHorse(h.Image, h.Mask)
	return img, mask, err
}

// LoadHorses reads, segments and describes the Weizmann horses and returns
// the training and test problems: the first opt.Train images by number for
// training, the others for test.
//
// Each image is cut into SLIC superpixels (package imaging/slic); a
// superpixel's truth is the majority of its mask pixels (mask >= 128). The
// texture codebook is learned by k-means (25 iterations, seed 1) on
// CodebookSamples descriptors of each training image taken on a fixed
// sub-grid, never on test images. The features are those of
// features.FromCounts (Osokin et al. 2016, App. I.3, on grey images)
// divided by the image's number of superpixels, so that the score is an
// average over the image like the loss; without that division |psi|^2
// reaches 10^7 on the pairwise features and BCFW's steps vanish.
//
// The result is deterministic (whatever Workers) and cached on disk (see
// HorsesOptions.CacheDir) under a key that hashes the contents of every
// image and mask and every option, so a second call returns in a fraction
// of a second.
//
// Missing or undecodable images and masks give an error naming the file, as
// does a mask whose size differs from its image.
func LoadHorses(opt HorsesOptions) (*Horses, error) {
	opt = opt.withDefaults()
	dir, err := LocateHorses(opt.Path)
	if err != nil {
		return nil, err
	}
	files, err := horseFiles(dir)
	if err != nil {
		return nil, err
	}
	if opt.Train < 1 || opt.Train >= len(files) {
		return nil, fmt.Errorf("horses: %d training images requested, need between 1 and %d (the folder has %d images)", opt.Train, len(files)-1, len(files))
	}
	if err := opt.Features.Validate(); err != nil {
		return nil, fmt.Errorf("horses: %w", err)
	}
	var (
		cachePath string
		key       [32]byte
	)
	if !opt.NoCache {
		if key, err = horsesCacheKey(files, opt); err != nil {
			return nil, err
		}
		if cachePath, err = horsesCachePath(opt.CacheDir, key); err != nil {
			return nil, err
		}
		if recs, err := readHorsesCache(cachePath, key, files, opt); err == nil {
			return buildHorses(recs, files, opt.Train, opt)
		}
	}
	recs, err := preprocessHorses(files, opt)
	if err != nil {
		return nil, err
	}
	if cachePath != "" {
		// A cache that cannot be written only costs time next call.
		_ = writeHorsesCache(cachePath, key, recs, opt.Features.HistogramsDim())
	}
	return buildHorses(recs, files, opt.Train, opt)
}

// LocateHorses returns the folder holding gray/ and figure_ground/: the
// explicit path (the folder itself or a data root holding horses/), else
// $FWSTRUCT_DATA/horses, else <user cache dir>/fwstruct/horses.
func LocateHorses(explicit string) (string, error) {
	// find returns dir or dir/horses when it holds the two folders.
	find := func(dir string) (string, bool) {
		for _, d := range []string{dir, filepath.Join(dir, "horses")} {
			if isDir(filepath.Join(d, HorsesImageDir)) && isDir(filepath.Join(d, HorsesMaskDir)) {
				return d, true
			}
		}
		return "", false
	}
	if explicit != "" {
		if d, ok := find(explicit); ok {
			return d, nil
		}
		return "", fmt.Errorf("horses: %s holds neither %s/ and %s/ nor horses/", explicit, HorsesImageDir, HorsesMaskDir)
	}
	var tried []string
	if env := os.Getenv(EnvVar); env != "" {
		if !isDir(env) {
			return "", fmt.Errorf("$%s is %s, which is not a folder; set it to the folder holding the datasets or unset it", EnvVar, env)
		}
		if d, ok := find(env); ok {
			return d, nil
		}
		tried = append(tried, env+" ($"+EnvVar+")")
	}
	if cache, err := CacheDir(); err == nil {
		if d, ok := find(cache); ok {
			return d, nil
		}
		tried = append(tried, cache+" (user cache)")
	}
	return "", fmt.Errorf("horses: dataset %w (tried %s); set %s to a folder holding horses/%s and horses/%s", ErrNotFound, strings.Join(tried, ", "), EnvVar, HorsesImageDir, HorsesMaskDir)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// horseFile is one image of the dataset folder.
type horseFile struct {
	name        string
	number      int
	image, mask string
}

// horseFiles lists the JPEG images of dir/gray sorted by the number in
// their names (then by name), with their masks.
func horseFiles(dir string) ([]horseFile, error) {
	entries, err := os.ReadDir(filepath.Join(dir, HorsesImageDir))
	if err != nil {
		return nil, fmt.Errorf("horses: %w", err)
	}
	var files []horseFile
	for _, e := range entries {
		name := e.Name()
		ext := strings.ToLower(filepath.Ext(name))
		if e.IsDir() || (ext != ".jpg" && ext != ".jpeg") {
			continue
		}
		files = append(files, horseFile{
			name:   name,
			number: numberIn(name),
			image:  filepath.Join(dir, HorsesImageDir, name),
			mask:   filepath.Join(dir, HorsesMaskDir, name),
		})
	}
	if len(files) < 2 {
		return nil, fmt.Errorf("horses: %s holds %d JPEG images, need at least 2", filepath.Join(dir, HorsesImageDir), len(files))
	}
	sort.Slice(files, func(a, b int) bool {
		if files[a].number != files[b].number {
			return files[a].number < files[b].number
		}
		return files[a].name < files[b].name
	})
	return files, nil
}

// numberIn returns the last run of digits of name as a number, or -1.
func numberIn(name string) int {
	base := strings.TrimSuffix(name, filepath.Ext(name))
	end := len(base)
	for end > 0 && (base[end-1] < '0' || base[end-1] > '9') {
		end--
	}
	start := end
	for start > 0 && base[start-1] >= '0' && base[start-1] <= '9' {
		start--
	}
	n, err := strconv.Atoi(base[start:end])
	if err != nil {
		return -1
	}
	return n
}

// readHorse decodes an image and its mask as grey images; the mask is
// thresholded at 128 into 0 and 255.
func readHorse(imagePath, maskPath string) (img, mask *image.Gray, err error) {
	if img, err = decodeGray(imagePath); err != nil {
		return nil, nil, err
	}
	if mask, err = decodeGray(maskPath); err != nil {
		return nil, nil, err
	}
	if img.Bounds().Size() != mask.Bounds().Size() {
		return nil, nil, fmt.Errorf("horses: %s: mask of size %v for an image of size %v (%s)", maskPath, mask.Bounds().Size(), img.Bounds().Size(), imagePath)
	}
	for k, v := range mask.Pix {
		if v >= 128 {
			mask.Pix[k] = 255
		} else {
			mask.Pix[k] = 0
		}
	}
	return img, mask, nil
}

// decodeGray decodes an image file into a grey image with bounds at the
// origin.
func decodeGray(path string) (*image.Gray, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("horses: %w", err)
	}
	defer f.Close()
	src, _, err := image.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("horses: %s: %w", path, err)
	}
	b := src.Bounds()
	if b.Empty() {
		return nil, fmt.Errorf("horses: %s: empty image", path)
	}
	if g, ok := src.(*image.Gray); ok && b.Min == (image.Point{}) && g.Stride == b.Dx() {
		return g, nil
	}
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(g, g.Bounds(), src, b.Min, draw.Src)
	return g, nil
}

// preprocessed is one image after the first stage.
type preprocessed struct {
	img     *image.Gray
	sp      *slic.Result
	rec     horseRecord
	samples []float32 // codebook samples (training images only)
}

// horseRecord is what the cache keeps of an image: its superpixels, their
// adjacency, pixel counts and raw histograms (features.Count), from which
// the features are recomputed cheaply.
type horseRecord struct {
	info     HorseImage // without the file paths
	edges    [][2]int32
	area, fg []int32
	counts   []int32
}

// preprocessHorses runs the whole pipeline: superpixels and codebook
// samples per image, the codebook, then the histograms per image.
func preprocessHorses(files []horseFile, opt HorsesOptions) ([]horseRecord, error) {
	cfg := opt.Features
	pre := make([]preprocessed, len(files))
	err := parallel(len(files), opt.Workers, func(k int) error {
		p, err := preprocessHorse(files[k], opt, k < opt.Train)
		pre[k] = p
		return err
	})
	if err != nil {
		return nil, err
	}
	var samples []float32
	for k := 0; k < opt.Train; k++ {
		samples = append(samples, pre[k].samples...)
		pre[k].samples = nil
	}
	dim := features.DescriptorDim(cfg.Cells)
	if len(samples)/dim < cfg.Words {
		return nil, fmt.Errorf("horses: %d texture samples from the training images, fewer than the %d words of the codebook", len(samples)/dim, cfg.Words)
	}
	cb, err := features.KMeans(samples, dim, cfg.Words, 25, 1, opt.Workers)
	if err != nil {
		return nil, fmt.Errorf("horses: codebook: %w", err)
	}
	recs := make([]horseRecord, len(files))
	err = parallel(len(files), opt.Workers, func(k int) error {
		p := &pre[k]
		d := features.Describe(p.img, cfg.Cells, cfg.Stride)
		words, err := cb.Assign(d)
		if err == nil {
			r := &features.Regions{Width: p.sp.Width, Height: p.sp.Height, Labels: p.sp.Labels, N: p.sp.N, Edges: p.rec.edges}
			p.rec.counts, err = features.Count(p.img, r, &features.Words{Grid: d, Words: words}, cfg)
		}
		if err != nil {
			return fmt.Errorf("horses: %s: %w", files[k].image, err)
		}
		recs[k] = p.rec
		*p = preprocessed{}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// buildHorses computes the features of every record and assembles the two
// problems.
func buildHorses(recs []horseRecord, files []horseFile, train int, opt HorsesOptions) (*Horses, error) {
	cfg := opt.Features
	images := make([]oracles.SegImage, len(recs))
	infos := make([]HorseImage, len(recs))
	err := parallel(len(recs), opt.Workers, func(k int) error {
		rec := &recs[k]
		unary, pairwise, err := features.FromCounts(rec.counts, len(rec.area), rec.edges, cfg)
		if err != nil {
			return fmt.Errorf("horses: %s: %w", files[k].image, err)
		}
		// Divide by the number of superpixels (see LoadHorses).
		scale := 1 / float32(len(rec.area))
		for j := range unary {
			unary[j] *= scale
		}
		for j := range pairwise {
			pairwise[j] *= scale
		}
		truth := make([]int32, len(rec.area))
		for l := range truth {
			if 2*rec.fg[l] > rec.area[l] {
				truth[l] = 1
			}
		}
		images[k] = oracles.SegImage{Unary: unary, Edges: rec.edges, Pairwise: pairwise, Truth: truth, Area: rec.area, Foreground: rec.fg}
		infos[k] = rec.info
		infos[k].Image, infos[k].Mask = files[k].image, files[k].mask
		return nil
	})
	if err != nil {
		return nil, err
	}
	h := &Horses{TrainImages: infos[:train:train], TestImages: infos[train:]}
	if h.Train, err = oracles.NewSegmentation(cfg.UnaryDim(), cfg.PairwiseDim(), images[:train]); err != nil {
		return nil, fmt.Errorf("horses: training set: %w", err)
	}
	if h.Test, err = oracles.NewSegmentation(cfg.UnaryDim(), cfg.PairwiseDim(), images[train:]); err != nil {
		return nil, fmt.Errorf("horses: test set: %w", err)
	}
	return h, nil
}

// preprocessHorse decodes one image, computes its superpixels, their
// adjacency and pixel counts, and (for training images) samples its
// texture descriptors on a fixed sub-grid.
func preprocessHorse(f horseFile, opt HorsesOptions, train bool) (preprocessed, error) {
	img, mask, err := readHorse(f.image, f.mask)
	if err != nil {
		return preprocessed{}, err
	}
	sp, err := slic.Segment(img, opt.SLIC)
	if err != nil {
		return preprocessed{}, fmt.Errorf("horses: %s: %w", f.image, err)
	}
	if sp.N > 1<<16 {
		return preprocessed{}, fmt.Errorf("horses: %s: %d superpixels, at most 65536 supported", f.image, sp.N)
	}
	p := preprocessed{img: img, sp: sp}
	p.rec = horseRecord{
		info:  HorseImage{Name: f.name, Number: f.number, Width: sp.Width, Height: sp.Height, Regions: sp.N, runs: runLengths(sp.Labels)},
		edges: sp.Adjacency(),
		area:  make([]int32, sp.N),
		fg:    make([]int32, sp.N),
	}
	for i, l := range sp.Labels {
		p.rec.area[l]++
		if mask.Pix[i] != 0 {
			p.rec.fg[l]++
		}
	}
	if train {
		d := features.Describe(img, opt.Features.Cells, opt.Features.Stride)
		n := d.Cols * d.Rows
		every := max(1, n/opt.CodebookSamples)
		for k := every / 2; k < n && len(p.samples) < opt.CodebookSamples*d.Dim; k += every {
			p.samples = append(p.samples, d.Data[k*d.Dim:(k+1)*d.Dim]...)
		}
	}
	return p, nil
}

// parallel calls fn(k) for k in [0, n) on workers goroutines and returns
// the error of the lowest k that failed.
func parallel(n, workers int, fn func(k int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for g := 0; g < min(workers, n); g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				errs[k] = fn(k)
			}
		}()
	}
	for k := 0; k < n; k++ {
		next <- k
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

var errCacheMiss = errors.New("horses: cache miss")
