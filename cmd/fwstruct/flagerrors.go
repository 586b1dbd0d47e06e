package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
)

// usageError is an error in the command line: run prints it as one line
// (never the whole usage) and exits with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usageErrorf returns a usageError about the command line of fs, with the
// hint to its --help.
func usageErrorf(fs *flag.FlagSet, format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...) + fmt.Sprintf(" (fwstruct %s --help lists the flags)", fs.Name())}
}

// parseFlags parses args with fs; arguments other than flags are refused.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := parseCommandLine(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %s: flags start with --", quote(fs.Arg(0)))
	}
	return nil
}

// parseCommandLine parses args with fs. -h and --help print the usage
// and return flag.ErrHelp; a flag error is a usageError of one line naming
// the flag, the value and what it wants (the flag package's message and
// the whole usage are not printed).
func parseCommandLine(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return err
	}
	return flagError(fs, err)
}

// The messages of the flag package (Go 1.21 and later), parsed to restate
// them.
var (
	reUndefined = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	reNoValue   = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	reBadValue  = regexp.MustCompile(`^invalid value "((?:[^"\\]|\\.)*)" for flag -+([^:]*): `)
	reBadBool   = regexp.MustCompile(`^invalid boolean value "((?:[^"\\]|\\.)*)" for -+([^:]*): `)
	reBadSyntax = regexp.MustCompile(`^bad flag syntax: (.*)$`)
)

// flagError restates an error of fs.Parse in one line.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if m := reUndefined.FindStringSubmatch(msg); m != nil {
		hint := ""
		if near := nearestFlag(fs, m[1]); near != "" {
			hint = "; did you mean --" + near + "?"
		}
		return usageErrorf(fs, "unknown flag --%s%s", m[1], hint)
	}
	if m := reNoValue.FindStringSubmatch(msg); m != nil {
		return usageErrorf(fs, "--%s needs a value: %s", m[1], flagWants(fs.Lookup(m[1])))
	}
	for _, re := range []*regexp.Regexp{reBadValue, reBadBool} {
		if m := re.FindStringSubmatch(msg); m != nil {
			value := m[1]
			if s, uerr := unquoteFlagValue(m[1]); uerr == nil {
				value = s
			}
			return usageErrorf(fs, "--%s %s: want %s", m[2], quote(value), flagWants(fs.Lookup(m[2])))
		}
	}
	if m := reBadSyntax.FindStringSubmatch(msg); m != nil {
		return usageErrorf(fs, "bad flag syntax %s", quote(m[1]))
	}
	return usageErrorf(fs, "%s", msg)
}

// unquoteFlagValue undoes the %q of the flag package's message.
func unquoteFlagValue(s string) (string, error) {
	var out string
	_, err := fmt.Sscanf(`"`+s+`"`, "%q", &out)
	return out, err
}

// flagWants says what kind of value a flag takes.
func flagWants(f *flag.Flag) string {
	if f == nil {
		return "a value"
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return "a value"
	}
	switch g.Get().(type) {
	case bool:
		return "true or false"
	case int, int64:
		return "an integer"
	case uint, uint64:
		return "a non-negative integer"
	case float64:
		return "a number"
	case time.Duration:
		return "a duration such as 30s, 5m or 1h30m"
	}
	if name, _ := flag.UnquoteUsage(f); name != "" && name != "string" && name != "value" {
		return name // the placeholder of its help, e.g. FILE
	}
	return "a value"
}

// nearestFlag returns the flag of fs whose name is closest to name, when
// it is within two edits (a typo), else "".
func nearestFlag(fs *flag.FlagSet, name string) string {
	best, bestDist := "", 3
	fs.VisitAll(func(f *flag.Flag) {
		if d := editDistance(strings.ToLower(name), f.Name); d < bestDist {
			best, bestDist = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
