package kernel

import "math"

// rowCache keeps rows of the training kernel matrix, K_i = (k(x_i, x_j))_j,
// within a memory budget, least recently used rows evicted first. A row is
// filled lazily: an entry is NaN until a step needs it (kernel values are
// finite), so a row costs no more kernel evaluations than the sums over the
// support vectors do without a cache. Values are computed by the same
// function with or without the cache, so the cache never changes a result.
//
// Only the steps (one goroutine) read and fill it; the evaluation passes
// compute their kernel values as kernel blocks and never read it.
type rowCache struct {
	n      int
	f32    bool        // rows of float32 (CacheFloat32), else float64
	rows   [][]float64 // slot -> row (float64 rows)
	rows32 [][]float32 // slot -> row (float32 rows)
	owner  []int32     // slot -> example
	slotOf []int32     // example -> slot, -1 when absent
	prev   []int32     // LRU list of slots, most recent at head
	next   []int32
	head   int32
	tail   int32

	hits, misses int64 // entries served / computed by steps through the cache
}

// cacheRow is a row of the cache, of float64 or of float32 entries (NaN:
// not computed yet), or none.
type cacheRow struct {
	f64 []float64
	f32 []float32
}

// none reports whether there is no row.
func (r cacheRow) none() bool { return r.f64 == nil && r.f32 == nil }

// at returns entry j and whether it was computed.
func (r cacheRow) at(j int32) (float64, bool) {
	if r.f32 != nil {
		v := float64(r.f32[j])
		return v, v == v
	}
	v := r.f64[j]
	return v, v == v
}

// put stores entry j.
func (r cacheRow) put(j int32, v float64) {
	if r.f32 != nil {
		r.f32[j] = float32(v)
		return
	}
	r.f64[j] = v
}

// newRowCache returns a cache of rows of n entries, of float32 when f32,
// within budget bytes (nil when the budget holds no row).
func newRowCache(n int, budget int64, f32 bool) *rowCache {
	width := int64(8)
	if f32 {
		width = 4
	}
	capRows := budget / (width * int64(n))
	if capRows < 1 {
		return nil
	}
	capRows = min(capRows, int64(n))
	c := &rowCache{n: n, f32: f32, slotOf: make([]int32, n), head: -1, tail: -1}
	for i := range c.slotOf {
		c.slotOf[i] = -1
	}
	if f32 {
		c.rows32 = make([][]float32, 0, capRows)
	} else {
		c.rows = make([][]float64, 0, capRows)
	}
	return c
}

func (c *rowCache) row(s int32) cacheRow {
	if c.f32 {
		return cacheRow{f32: c.rows32[s]}
	}
	return cacheRow{f64: c.rows[s]}
}

// slots returns the number of rows allocated and the most there can be.
func (c *rowCache) slots() (int, int) {
	if c.f32 {
		return len(c.rows32), cap(c.rows32)
	}
	return len(c.rows), cap(c.rows)
}

// get returns the row of example i, allocating (or evicting for) a slot
// of NaNs when absent, and marks it most recently used.
func (c *rowCache) get(i int) cacheRow {
	if s := c.slotOf[i]; s >= 0 {
		c.unlink(s)
		c.pushFront(s)
		return c.row(s)
	}
	var s int32
	if used, most := c.slots(); used < most {
		s = int32(used)
		if c.f32 {
			c.rows32 = append(c.rows32, make([]float32, c.n))
		} else {
			c.rows = append(c.rows, make([]float64, c.n))
		}
		c.owner = append(c.owner, int32(i))
		c.prev = append(c.prev, -1)
		c.next = append(c.next, -1)
	} else {
		s = c.tail
		c.unlink(s)
		c.slotOf[c.owner[s]] = -1
		c.owner[s] = int32(i)
	}
	if c.f32 {
		nan := float32(math.NaN())
		for j := range c.rows32[s] {
			c.rows32[s][j] = nan
		}
	} else {
		for j := range c.rows[s] {
			c.rows[s][j] = math.NaN()
		}
	}
	c.slotOf[i] = s
	c.pushFront(s)
	return c.row(s)
}

// holds reports whether the cache holds a row of example i (false without
// a cache).
func (c *rowCache) holds(i int) bool { return c != nil && c.slotOf[i] >= 0 }

func (c *rowCache) unlink(s int32) {
	p, n := c.prev[s], c.next[s]
	if p >= 0 {
		c.next[p] = n
	} else {
		c.head = n
	}
	if n >= 0 {
		c.prev[n] = p
	} else {
		c.tail = p
	}
	c.prev[s], c.next[s] = -1, -1
}

func (c *rowCache) pushFront(s int32) {
	c.prev[s], c.next[s] = -1, c.head
	if c.head >= 0 {
		c.prev[c.head] = s
	}
	c.head = s
	if c.tail < 0 {
		c.tail = s
	}
}

// bytes returns the memory held by the rows.
func (c *rowCache) bytes() int64 {
	if c == nil {
		return 0
	}
	if c.f32 {
		return int64(len(c.rows32)) * int64(4*c.n)
	}
	return int64(len(c.rows)) * int64(8*c.n)
}
