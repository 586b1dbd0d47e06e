package slic

import "slices"

// Adjacency returns the pairs {a, b} (a < b) of superpixels that touch
// through a horizontal or vertical pixel boundary, sorted.
func (r *Result) Adjacency() [][2]int32 {
	return pairsOf(r.Labels, r.Width, r.Height)
}

// pairsOf returns the sorted distinct pairs {a, b} (a < b) of labels of
// 4-adjacent pixels of a w x h label map.
func pairsOf(labels []int32, w, h int) [][2]int32 {
	keys := make([]uint64, 0, 256)
	add := func(a, b int32) {
		if a == b {
			return
		}
		if a > b {
			a, b = b, a
		}
		key := uint64(a)<<32 | uint64(b)
		if len(keys) == 0 || keys[len(keys)-1] != key {
			keys = append(keys, key)
		}
	}
	for y := 0; y < h; y++ {
		row := labels[y*w : (y+1)*w]
		for x := 0; x+1 < w; x++ {
			add(row[x], row[x+1])
		}
		if y+1 < h {
			below := labels[(y+1)*w : (y+2)*w]
			for x, v := range row {
				add(v, below[x])
			}
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	pairs := make([][2]int32, len(keys))
	for k, key := range keys {
		pairs[k] = [2]int32{int32(key >> 32), int32(key & 0xffffffff)}
	}
	return pairs
}

// Sizes returns the number of pixels of each superpixel.
func (r *Result) Sizes() []int {
	sizes := make([]int, r.N)
	for _, l := range r.Labels {
		sizes[l]++
	}
	return sizes
}
