package oraclestest

import "github.com/fwstruct/fwstruct/internal/race"

// RaceEnabled reports whether the binary was built with the race detector,
// under which sync.Pool drops items at random and allocation counts are
// meaningless: tests skip their allocation assertions (and only those)
// when it is set.
const RaceEnabled = race.Enabled
