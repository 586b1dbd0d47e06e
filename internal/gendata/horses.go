package gendata

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// Horses writes n horse-like images and their figure/ground masks into
// dir, in the layout of the Weizmann horses (dir/gray/horseNNN.jpg and
// dir/figure_ground/horseNNN.jpg, numbered from 1), and returns dir: on a
// textured background a darker, smoother ellipse (the "horse", 255 in its
// mask) whose place depends on seed and the image's number. The images
// are small (64 to 72 x 48 pixels), so that the whole pipeline of
// datasets.LoadHorses runs in seconds; n >= 148 gives the default split
// of 147 training images a test set.
func Horses(dir string, n int, seed uint64) (string, error) {
	for _, sub := range []string{"gray", "figure_ground"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return "", err
		}
	}
	for k := 1; k <= n; k++ {
		img, mask := Horse(64+4*(k%3), 48, seed*1000+uint64(k))
		name := fmt.Sprintf("horse%03d.jpg", k)
		for sub, m := range map[string]*image.Gray{"gray": img, "figure_ground": mask} {
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 95}); err != nil {
				return "", err
			}
			if err := os.WriteFile(filepath.Join(dir, sub, name), buf.Bytes(), 0o644); err != nil {
				return "", err
			}
		}
	}
	return dir, nil
}

// Horse draws a w x h horse-like picture and its mask (see Horses): a
// textured background and a darker, smoother ellipse, 255 in the mask,
// whose position depends on seed.
func Horse(w, h int, seed uint64) (img, mask *image.Gray) {
	rng := rand.New(rand.NewPCG(seed, 11))
	img = image.NewGray(image.Rect(0, 0, w, h))
	mask = image.NewGray(image.Rect(0, 0, w, h))
	cx, cy := float64(w)*(0.35+0.3*rng.Float64()), float64(h)*(0.4+0.2*rng.Float64())
	rx, ry := float64(w)*0.25, float64(h)*0.2
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			dx, dy := (float64(x)-cx)/rx, (float64(y)-cy)/ry
			v := 150 + 40*rng.Float64() + 20*math.Sin(float64(x)/2)
			if dx*dx+dy*dy < 1 {
				v = 60 + 10*rng.Float64()
				mask.Pix[y*mask.Stride+x] = 255
			}
			img.Pix[y*img.Stride+x] = uint8(v)
		}
	}
	return img, mask
}
