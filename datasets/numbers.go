package datasets

import "strconv"

// isDecimal reports whether s is a decimal number as the text formats of
// this package write one: an optional sign, digits with an optional
// decimal point (at least one digit before or after it), and an optional
// exponent, e or E followed by an optional sign and digits ("3", "-1",
// "+.5", "2.", "1e-3", "6.0000"). Nothing else: none of the forms that
// strconv.ParseFloat accepts beyond these (hexadecimal "0x1p-2",
// underscores "1_0", "Inf", "Infinity", "NaN"), no spaces.
func isDecimal(s string) bool {
	i := skipSign(s, 0)
	j := skipDigits(s, i)
	digits := j - i
	if j < len(s) && s[j] == '.' {
		k := skipDigits(s, j+1)
		digits += k - j - 1
		j = k
	}
	if digits == 0 {
		return false
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		i = skipSign(s, j+1)
		if j = skipDigits(s, i); j == i {
			return false // no exponent digits
		}
	}
	return j == len(s)
}

// skipSign returns the index after an optional sign at s[i].
func skipSign(s string, i int) int {
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		return i + 1
	}
	return i
}

// skipDigits returns the index after the ASCII digits from s[i].
func skipDigits(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// parseDecimal parses a decimal number (see isDecimal) and reports whether
// s is one that float64 holds. The value is always finite: the decimal
// forms have no infinity or NaN, and a magnitude beyond float64's range is
// refused; one too small rounds to 0 or a subnormal, as strconv.ParseFloat
// rounds it.
func parseDecimal(s string) (float64, bool) {
	if !isDecimal(s) {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}
