package kernel

import "math"

// rowCache keeps rows of the training kernel matrix, K_i = (k(x_i, x_j))_j,
// within a memory budget, least recently used rows evicted first. A row is
// filled lazily: an entry is NaN until a step needs it (kernel values are
// finite), so a row costs no more kernel evaluations than the sums over the
// support vectors do without a cache. Values are computed by the same
// function with or without the cache, so the cache never changes a result.
//
// Only the steps (one goroutine) read and fill it; the parallel evaluation
// passes use rows read-only (peek) and never change the cache.
type rowCache struct {
	n      int
	rows   [][]float64 // slot -> row
	owner  []int32     // slot -> example
	slotOf []int32     // example -> slot, -1 when absent
	prev   []int32     // LRU list of slots, most recent at head
	next   []int32
	head   int32
	tail   int32

	hits, misses int64 // entries served / computed by steps through the cache
}

// newRowCache returns a cache of rows of n entries within budget bytes
// (nil when the budget holds no row).
func newRowCache(n int, budget int64) *rowCache {
	capRows := budget / int64(8*n)
	if capRows < 1 {
		return nil
	}
	capRows = min(capRows, int64(n))
	c := &rowCache{n: n, slotOf: make([]int32, n), head: -1, tail: -1}
	for i := range c.slotOf {
		c.slotOf[i] = -1
	}
	c.rows = make([][]float64, 0, capRows)
	return c
}

// get returns the row of example i, allocating (or evicting for) a slot
// of NaNs when absent, and marks it most recently used.
func (c *rowCache) get(i int) []float64 {
	if s := c.slotOf[i]; s >= 0 {
		c.unlink(s)
		c.pushFront(s)
		return c.rows[s]
	}
	var s int32
	if len(c.rows) < cap(c.rows) {
		s = int32(len(c.rows))
		c.rows = append(c.rows, make([]float64, c.n))
		c.owner = append(c.owner, int32(i))
		c.prev = append(c.prev, -1)
		c.next = append(c.next, -1)
	} else {
		s = c.tail
		c.unlink(s)
		c.slotOf[c.owner[s]] = -1
		c.owner[s] = int32(i)
	}
	row := c.rows[s]
	for j := range row {
		row[j] = math.NaN()
	}
	c.slotOf[i] = s
	c.pushFront(s)
	return row
}

// peek returns the row of example i or nil, without changing anything.
func (c *rowCache) peek(i int) []float64 {
	if c == nil {
		return nil
	}
	if s := c.slotOf[i]; s >= 0 {
		return c.rows[s]
	}
	return nil
}

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
	return int64(len(c.rows)) * int64(8*c.n)
}
