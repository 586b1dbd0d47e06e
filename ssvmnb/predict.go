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
	"github.com/fwstruct/fwstruct/viz"
)

// ShowPredictions displays the given examples of p with the predictions
// of the weights w, as fits the task: for OCR the letter images with the
// predicted word under the true one, for CoNLL the chunks in brackets, for
// the horses the predicted mask over the image with the true contour, for
// Yeast the predicted label set against the true one, for USPS the digit
// image with the predicted class, and the labelings otherwise. The task
// loss of every prediction is shown too. Problems that need more than
// themselves to be shown (the horses' images, Yeast's label names) must
// come from Load.
func ShowPredictions(p oracles.Problem, w []float64, examples ...int) error {
	var b strings.Builder
	for _, i := range examples {
		h, err := predictionHTML(p, i, w)
		if err != nil {
			return err
		}
		b.WriteString(h)
	}
	displayHTML(b.String())
	return nil
}

// predictionHTML renders example i of p with the prediction of w (see
// ShowPredictions).
func predictionHTML(p oracles.Problem, i int, w []float64) (string, error) {
	if p == nil {
		return "", fmt.Errorf("ssvmnb: no problem to predict on")
	}
	if i < 0 || i >= p.Len() {
		return "", fmt.Errorf("ssvmnb: example %d outside [0, %d)", i, p.Len())
	}
	if len(w) != p.Dim() {
		return "", fmt.Errorf("ssvmnb: weights of dimension %d for a problem of dimension %d", len(w), p.Dim())
	}
	if v := viewOf(p); v != nil {
		return v.html(p, i, w)
	}
	switch q := p.(type) {
	case *datasets.Chunking:
		return chunkHTML(q, i, w), nil
	case *oracles.Chain:
		if isOCR(q) {
			return wordHTML(q, i, w)
		}
	case *oracles.Multiclass:
		if q.NumClasses() == datasets.USPSClasses && (q.NumFeatures() == datasets.USPSFeatures || q.NumFeatures() == datasets.USPSFeatures+1) {
			return digitHTML(q, i, w)
		}
	case *oracles.Segmentation:
		return "", fmt.Errorf("ssvmnb: a segmentation example is shown over its image: load the data with ssvmnb.Load(\"horses\")")
	}
	return labelingHTML(p, i, w), nil
}

// exampleView renders examples of a problem that needs more than the
// problem to be shown (registered by Load).
type exampleView interface {
	html(p oracles.Problem, i int, w []float64) (string, error)
}

const boxStyle = `display:inline-block;vertical-align:top;margin:6px;font-family:monospace;font-size:14px`

// lossLine formats the task loss of prediction y.
func lossLine(p oracles.Problem, i int, y []int32) string {
	return fmt.Sprintf("loss %.3g", p.Loss(i, y))
}

// labelingHTML shows the predicted and true labelings as numbers.
func labelingHTML(p oracles.Problem, i int, w []float64) string {
	y := p.Predict(i, w, nil)
	truth := p.Truth(i)
	return fmt.Sprintf(`<div style="%s">example %d<br>predicted: %s<br>truth: %s<br>%s</div>`,
		boxStyle, i, colored(y, truth, func(v int32) string { return fmt.Sprint(v) }), html.EscapeString(fmt.Sprint(truth)), lossLine(p, i, y))
}

// colored writes the labels of y, green where they equal truth, red
// elsewhere.
func colored(y, truth []int32, name func(int32) string) string {
	var b strings.Builder
	for t, v := range y {
		c := "#1a7f37"
		if t >= len(truth) || v != truth[t] {
			c = "#cf222e"
		}
		if t > 0 && len(name(v)) > 1 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, `<span style="color:%s">%s</span>`, c, html.EscapeString(name(v)))
	}
	return b.String()
}

// chunkHTML shows a sentence with its predicted and gold chunks.
func chunkHTML(c *datasets.Chunking, i int, w []float64) string {
	y := c.Predict(i, w, nil)
	right := 0
	truth := c.Truth(i)
	for t := range y {
		if y[t] == truth[t] {
			right++
		}
	}
	return fmt.Sprintf(`<div style="%s;display:block">predicted: %s<br>gold: %s<br>%d of %d tags right, %s</div>`,
		boxStyle, html.EscapeString(c.Render(i, y)), html.EscapeString(c.Render(i, nil)), right, len(y), lossLine(c, i, y))
}

// digitHTML shows a USPS digit with its predicted class.
func digitHTML(m *oracles.Multiclass, i int, w []float64) (string, error) {
	img := image.NewGray(image.Rect(0, 0, 16, 16))
	for k := range img.Pix {
		img.Pix[k] = 255
	}
	x := m.Input(i)
	for k, f := range x.Idx {
		if int(f) < datasets.USPSFeatures {
			v := x.Val[k] // grey value in [-1, 1], -1 white
			img.Pix[f] = uint8(255 - (v+1)/2*255)
		}
	}
	pngBytes, err := scaledPNG(img, 4)
	if err != nil {
		return "", err
	}
	y := m.Predict(i, w, nil)
	truth := m.Truth(i)
	return fmt.Sprintf(`<div style="%s">%s<br>predicted: %s<br>truth: %d</div>`,
		boxStyle, imgTag(pngBytes), colored(y, truth, func(v int32) string { return fmt.Sprint(v) }), truth[0]), nil
}

// scaledPNG encodes a grey image with every pixel scale x scale.
func scaledPNG(src *image.Gray, scale int) ([]byte, error) {
	b := src.Bounds()
	img := image.NewGray(image.Rect(0, 0, b.Dx()*scale, b.Dy()*scale))
	for y := 0; y < b.Dy()*scale; y++ {
		for x := 0; x < b.Dx()*scale; x++ {
			img.SetGray(x, y, color.Gray{Y: src.GrayAt(b.Min.X+x/scale, b.Min.Y+y/scale).Y})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// horseView shows horse segmentations over their images.
type horseView []datasets.HorseImage

func (v horseView) html(p oracles.Problem, i int, w []float64) (string, error) {
	if len(v) != p.Len() {
		return "", fmt.Errorf("ssvmnb: %d images for %d examples", len(v), p.Len())
	}
	h := &v[i]
	img, mask, err := h.ReadImage()
	if err != nil {
		return "", err
	}
	y := p.Predict(i, w, nil)
	pred, err := h.PixelMask(y)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := viz.WriteSegmentationPNG(&buf, img, mask, pred); err != nil {
		return "", err
	}
	return fmt.Sprintf(`<div style="%s">%s<br>%s: predicted horse tinted, true contour green<br>%s</div>`,
		boxStyle, imgTag(buf.Bytes()), html.EscapeString(h.Name), lossLine(p, i, y)), nil
}

// labelSetView shows multi-label predictions with label names.
type labelSetView []string

func (v labelSetView) html(p oracles.Problem, i int, w []float64) (string, error) {
	y := p.Predict(i, w, nil)
	truth := p.Truth(i)
	if len(y) != len(v) || len(truth) != len(v) {
		return "", fmt.Errorf("ssvmnb: %d label names for labelings of length %d", len(v), len(y))
	}
	var right, wrong, missed []string
	for k := range v {
		switch {
		case y[k] == 1 && truth[k] == 1:
			right = append(right, v[k])
		case y[k] == 1:
			wrong = append(wrong, v[k])
		case truth[k] == 1:
			missed = append(missed, v[k])
		}
	}
	list := func(l []string, color string) string {
		if len(l) == 0 {
			return "none"
		}
		return fmt.Sprintf(`<span style="color:%s">%s</span>`, color, html.EscapeString(strings.Join(l, ", ")))
	}
	return fmt.Sprintf(`<div style="%s;display:block">example %d<br>predicted and true: %s<br>predicted, not true: %s<br>true, missed: %s<br>%s</div>`,
		boxStyle, i, list(right, "#1a7f37"), list(wrong, "#cf222e"), list(missed, "#9a6700"), lossLine(p, i, y)), nil
}

// classView shows multiclass predictions with the class labels of the
// data file (class k is the k-th name).
type classView []string

func (v classView) html(p oracles.Problem, i int, w []float64) (string, error) {
	y := p.Predict(i, w, nil)
	truth := p.Truth(i)
	name := func(k int32) string {
		if k == oracles.NoClass {
			return "(a label the training data does not have)"
		}
		if k < 0 || int(k) >= len(v) {
			return fmt.Sprint(k)
		}
		return v[k]
	}
	return fmt.Sprintf(`<div style="%s">example %d<br>predicted: %s<br>truth: %s<br>%s</div>`,
		boxStyle, i, colored(y, truth, name), html.EscapeString(name(truth[0])), lossLine(p, i, y)), nil
}
