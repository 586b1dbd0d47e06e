package slic

import (
	"math"
	"slices"
)

// enforceConnectivity turns the k-means clusters of labels (w x h,
// row-major) into 4-connected superpixels, the post-processing step of
// Achanta et al. (2012, Sec. 4.3), and returns their count.
//
// The paper's reference code merges every fragment smaller than minSize
// into the label of the pixel above or to its left; on strongly textured
// images, where the clusters break into many small fragments, that chains
// them into a few huge superpixels. Here every cluster of at least minSize
// pixels keeps its largest connected component as the core of its
// superpixel; all other fragments (and the clusters of fewer pixels) join an
// adjacent superpixel, the one whose core has the closest mean intensity, in
// rounds spreading out from the cores, so every superpixel stays connected.
// When no cluster has minSize pixels the largest component is the only core.
// Superpixels are numbered in the raster order of their first pixels; labels
// is rewritten with those numbers.
func enforceConnectivity(labels []int32, lum []float32, w, h, minSize int) int {
	comp, size, cluster := components(labels, w, h)
	nc := len(size)
	// The largest component of each cluster.
	clusters := int(slices.Max(labels)) + 1
	largest := make([]int32, clusters)
	for c := range largest {
		largest[c] = -1
	}
	for c := int32(0); c < int32(nc); c++ {
		cl := cluster[c]
		if l := largest[cl]; l < 0 || size[c] > size[l] {
			largest[cl] = c
		}
	}
	region := make([]int32, nc) // final region (a kept component) of each component, -1 until assigned
	for c := range region {
		region[c] = -1
	}
	total := make([]int, clusters)
	for c, cl := range cluster {
		total[cl] += size[c]
	}
	kept := false
	for cl, c := range largest {
		if c >= 0 && total[cl] >= minSize {
			region[c] = c
			kept = true
		}
	}
	if !kept {
		best := 0
		for c := range size {
			if size[c] > size[best] {
				best = c
			}
		}
		region[best] = int32(best)
	}
	mean := componentMeans(comp, lum, size)
	adjStart, adj := componentGraph(comp, w, h, nc)
	// Grow the kept regions over the fragments, one ring per round.
	pending := make([]int32, 0, nc)
	for c := int32(0); c < int32(nc); c++ {
		if region[c] < 0 {
			pending = append(pending, c)
		}
	}
	choice := make([]int32, nc)
	for len(pending) > 0 {
		for _, c := range pending {
			best, bestD := int32(-1), math.Inf(1)
			for _, d := range adj[adjStart[c]:adjStart[c+1]] {
				if r := region[d]; r >= 0 {
					if dist := math.Abs(mean[c] - mean[r]); dist < bestD || dist == bestD && r < best {
						best, bestD = r, dist
					}
				}
			}
			choice[c] = best
		}
		rest := pending[:0]
		for _, c := range pending {
			if choice[c] >= 0 {
				region[c] = choice[c]
			} else {
				rest = append(rest, c)
			}
		}
		pending = rest
	}
	// Number the regions in raster order of their first pixels.
	number := make([]int32, nc)
	for c := range number {
		number[c] = -1
	}
	next := int32(0)
	for i, c := range comp {
		r := region[c]
		if number[r] < 0 {
			number[r] = next
			next++
		}
		labels[i] = number[r]
	}
	return int(next)
}

// components labels the 4-connected components of equal labels, numbered in
// raster order of their first pixels, and returns the component of every
// pixel, and the size and the label of every component.
func components(labels []int32, w, h int) (comp []int32, size []int, label []int32) {
	n := w * h
	comp = make([]int32, n)
	for i := range comp {
		comp[i] = -1
	}
	stack := make([]int32, 0, 256)
	for start := 0; start < n; start++ {
		if comp[start] >= 0 {
			continue
		}
		id := int32(len(size))
		old := labels[start]
		comp[start] = id
		count := 1
		stack = append(stack[:0], int32(start))
		for len(stack) > 0 {
			i := int(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			x := i % w
			var nb [4]int
			k := 0
			if x > 0 {
				nb[k], k = i-1, k+1
			}
			if x+1 < w {
				nb[k], k = i+1, k+1
			}
			if i >= w {
				nb[k], k = i-w, k+1
			}
			if i+w < n {
				nb[k], k = i+w, k+1
			}
			for _, j := range nb[:k] {
				if comp[j] < 0 && labels[j] == old {
					comp[j] = id
					count++
					stack = append(stack, int32(j))
				}
			}
		}
		size = append(size, count)
		label = append(label, old)
	}
	return comp, size, label
}

// componentMeans returns the mean intensity of every component.
func componentMeans(comp []int32, lum []float32, size []int) []float64 {
	mean := make([]float64, len(size))
	for i, c := range comp {
		mean[c] += float64(lum[i])
	}
	for c := range mean {
		mean[c] /= float64(size[c])
	}
	return mean
}

// componentGraph returns the adjacency of the components in compressed
// form: the neighbours of c are adj[start[c]:start[c+1]], sorted.
func componentGraph(comp []int32, w, h, nc int) (start []int32, adj []int32) {
	pairs := pairsOf(comp, w, h)
	start = make([]int32, nc+1)
	for _, p := range pairs {
		start[p[0]+1]++
		start[p[1]+1]++
	}
	for c := 0; c < nc; c++ {
		start[c+1] += start[c]
	}
	adj = make([]int32, start[nc])
	fill := slices.Clone(start[:nc])
	for _, p := range pairs {
		adj[fill[p[0]]] = p[1]
		fill[p[0]]++
		adj[fill[p[1]]] = p[0]
		fill[p[1]]++
	}
	for c := 0; c < nc; c++ {
		slices.Sort(adj[start[c]:start[c+1]])
	}
	return start, adj
}
