//go:build race

package oraclestest

// RaceEnabled reports whether the binary was built with the race detector,
// under which sync.Pool drops items at random and allocation counts are
// meaningless.
const RaceEnabled = true
