package ssvmnb

import (
	"bytes"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"strings"

	"github.com/fwstruct/fwstruct/datasets"
	"github.com/fwstruct/fwstruct/oracles"
)

// isOCR reports whether a chain has the shape of OCR (or the synthetic
// OCR-like data): 16x8 letter images, 26 labels.
func isOCR(c *oracles.Chain) bool {
	return c.NumFeatures() == datasets.LetterPixels && c.NumLabels() == datasets.NumLetters
}

// wordImage draws example i of an OCR chain (features = indices of the
// lit pixels of 16x8 letter images, see datasets.OCRChain) as one image,
// the letters side by side, each pixel scale x scale.
func wordImage(c *oracles.Chain, i, scale int) (image.Image, error) {
	if !isOCR(c) {
		return nil, fmt.Errorf("ssvmnb: not an OCR chain (%d features, %d labels)", c.NumFeatures(), c.NumLabels())
	}
	if i < 0 || i >= c.Len() {
		return nil, fmt.Errorf("ssvmnb: example %d outside [0, %d)", i, c.Len())
	}
	if scale < 1 {
		scale = 1
	}
	rows, cols := datasets.LetterRows, datasets.LetterCols
	T := c.SeqLen(i)
	gapPx := 2
	img := image.NewGray(image.Rect(0, 0, T*(cols*scale+gapPx), rows*scale))
	for k := range img.Pix {
		img.Pix[k] = 255
	}
	for t := 0; t < T; t++ {
		x0 := t * (cols*scale + gapPx)
		x := c.Features(i, t)
		for k, f := range x.Idx {
			if x.Val[k] == 0 {
				continue
			}
			r, col := int(f)/cols, int(f)%cols
			for dy := 0; dy < scale; dy++ {
				for dx := 0; dx < scale; dx++ {
					img.SetGray(x0+col*scale+dx, r*scale+dy, color.Gray{Y: 0})
				}
			}
		}
	}
	return img, nil
}

// wordHTML renders example i of an OCR chain with the word predicted by w
// (letters in green when right, red when wrong) under the true word.
func wordHTML(c *oracles.Chain, i int, w []float64) (string, error) {
	img, err := wordImage(c, i, 3)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", err
	}
	truth := c.Truth(i)
	pred := c.Predict(i, w, nil)
	var p, tr strings.Builder
	for t := range truth {
		color := "#1a7f37"
		if pred[t] != truth[t] {
			color = "#cf222e"
		}
		fmt.Fprintf(&p, `<span style="color:%s">%c</span>`, color, 'a'+rune(pred[t]))
		tr.WriteRune('a' + rune(truth[t]))
	}
	return fmt.Sprintf(`<div style="display:inline-block;margin:6px;font-family:monospace;font-size:16px">%s<br>predicted: %s<br>truth: %s (loss %.2f)</div>`,
		imgTag(buf.Bytes()), p.String(), html.EscapeString(tr.String()), c.Loss(i, pred)), nil
}
