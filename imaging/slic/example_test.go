package slic_test

import (
	"fmt"
	"image"

	"github.com/fwstruct/fwstruct/imaging/slic"
)

// Segment a 60 x 40 image, dark on the left and bright on the right, into
// about 6 superpixels: none straddles the edge.
func Example() {
	img := image.NewGray(image.Rect(0, 0, 60, 40))
	for y := 0; y < 40; y++ {
		for x := 0; x < 60; x++ {
			if x >= 25 {
				img.Pix[y*img.Stride+x] = 220
			}
		}
	}
	r, err := slic.Segment(img, slic.Params{Superpixels: 6})
	if err != nil {
		panic(err)
	}
	straddling := 0
	for l := 0; l < r.N; l++ {
		dark, bright := 0, 0
		for i, v := range r.Labels {
			if int(v) == l {
				if i%60 < 25 {
					dark++
				} else {
					bright++
				}
			}
		}
		if dark > 0 && bright > 0 {
			straddling++
		}
	}
	fmt.Println("superpixels:", r.N)
	fmt.Println("straddling the edge:", straddling)
	fmt.Println("adjacent pairs:", len(r.Adjacency()) > 0)
	// Output:
	// superpixels: 6
	// straddling the edge: 0
	// adjacent pairs: true
}
