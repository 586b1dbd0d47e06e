//go:build !race

// Package race tells whether the binary was built with the race detector
// (go test -race), under which sync.Pool drops items at random, so that
// allocation counts are meaningless: tests skip their allocation
// assertions (and only those) when Enabled.
package race

// Enabled reports whether the binary was built with the race detector.
const Enabled = false
