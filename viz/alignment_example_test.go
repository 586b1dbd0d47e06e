package viz_test

import (
	"bytes"
	"fmt"

	"github.com/fwstruct/fwstruct/viz"
)

// Draw a predicted word alignment over the gold one: sure links are dark
// cells, possible ones light, predictions rings. In a notebook, show the
// PNG with gonbui.DisplayPNG(buf.Bytes()); the links of a prediction y of
// an oracles.Matching problem are align.Links(y).
func ExampleAlignmentGrid() {
	g := viz.AlignmentGrid{
		Title:     "pair 1",
		English:   []string{"the", "house", "is", "red", "."},
		French:    []string{"la", "maison", "est", "rouge", "."},
		Sure:      [][2]int32{{0, 0}, {1, 1}, {2, 2}, {4, 4}},
		Possible:  [][2]int32{{3, 3}},
		Predicted: [][2]int32{{1, 1}, {2, 2}, {3, 3}, {4, 4}},
	}
	var buf bytes.Buffer
	if err := g.WritePNG(&buf); err != nil {
		panic(err)
	}
	w, h := g.Size()
	fmt.Printf("a %dx%d PNG image: %t\n", w, h, bytes.HasPrefix(buf.Bytes(), []byte("\x89PNG")))
	// Output:
	// a 248x226 PNG image: true
}
