package datasets_test

import (
	"fmt"

	"github.com/fwstruct/fwstruct/datasets"
)

// Load the Weizmann horses (from $FWSTRUCT_DATA/horses by default) as the
// horses-small split: 147 training and 181 test images as graph-cut
// segmentation problems. The first call preprocesses the images (about a
// quarter of a minute) and caches the result; later calls read the cache.
func ExampleLoadHorses() {
	h, err := datasets.LoadHorses(datasets.HorsesOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(h.Train.Len(), h.Test.Len(), h.Train.Dim())
	// The pairwise weights must stay <= 0: train with the problem's bounds.
	_, upper := h.Train.WeightBounds()
	fmt.Println(len(upper) == h.Train.Dim())
	// A predicted labeling of test image 0 as a pixel mask.
	w := make([]float64, h.Test.Dim())
	mask, err := h.TestImages[0].PixelMask(h.Test.Predict(0, w, nil))
	fmt.Println(mask.Bounds(), err)
}
