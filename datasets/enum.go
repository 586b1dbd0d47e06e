package datasets

import (
	"fmt"
	"slices"
	"strings"
)

// enumName returns names[v], or "typ(v)" for a value without a name: the
// String method of the option types of this package.
func enumName(names []string, v int, typ string) string {
	if v >= 0 && v < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, v)
}

// parseEnum returns the value whose name is s: the Parse function of the
// option types of this package; what names the option in the error.
func parseEnum[T ~int](names []string, s, what string) (T, error) {
	if k := slices.Index(names, s); k >= 0 {
		return T(k), nil
	}
	last := len(names) - 1
	return 0, fmt.Errorf("unknown %s %q (want %s or %s)", what, s, strings.Join(names[:last], ", "), names[last])
}
