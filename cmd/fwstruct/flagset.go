package main

import (
	"encoding"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A flagSet is the flags of one command line, declared in sections (the
// headings of its help: Data, Stopping, Output, Execution, Method NAME),
// each bound to a variable whose value when declared is the flag's default,
// with the checks of the values that run once the command line is parsed.
type flagSet struct {
	fs       *flag.FlagSet
	sections []*section
	checks   []func() error
	// late are the checks that need the training problem's dimension d
	// (the box bounds of a method), run by finish.
	late []func(d int) error
	// help prints the help on -h and --help (nil: nothing).
	help func()
	// elsewhere says why a flag this command line lacks is not here, the
	// end of "--NAME ..." ("does not apply to --method fw (...)"), or ""
	// when no command line of fwstruct has it (an unknown flag).
	elsewhere func(name string) string
}

// A section is a heading of the help and its flags, in declaration order.
type section struct {
	heading, note string
	names         []string
}

func newFlagSet(command string) *flagSet {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{fs: fs}
}

// section starts a heading of the help: the flags declared next are under
// it. A note, when given, is printed below the heading.
func (f *flagSet) section(heading, note string) {
	f.sections = append(f.sections, &section{heading: heading, note: note})
}

// add records a flag just declared in the current section.
func (f *flagSet) add(name string) {
	if len(f.sections) == 0 {
		f.section("Flags", "")
	}
	s := f.sections[len(f.sections)-1]
	s.names = append(s.names, name)
}

// Bool, Int, Uint64, Float, String and Duration declare a flag bound to p,
// its current value the default. Numbers are decimal, as in the data
// files: Go's other forms (0x10, 0b1, 1_0, 0x1p-2) are refused; a float
// may also be inf or nan (which the checks then refuse where they mean
// nothing).
func (f *flagSet) Bool(p *bool, name, usage string) { f.fs.BoolVar(p, name, *p, usage); f.add(name) }
func (f *flagSet) Int(p *int, name, usage string) {
	f.fs.Var((*decimalInt)(p), name, usage)
	f.add(name)
}
func (f *flagSet) Uint64(p *uint64, name, usage string) {
	f.fs.Var((*decimalUint)(p), name, usage)
	f.add(name)
}
func (f *flagSet) Float(p *float64, name, usage string) {
	f.fs.Var((*decimalFloat)(p), name, usage)
	f.add(name)
}

// decimalInt, decimalUint and decimalFloat are the flag.Values of
// numbers in decimal notation only.
type (
	decimalInt   int
	decimalUint  uint64
	decimalFloat float64
)

// errNotDecimal is the error of a number in another form than decimal;
// flagError restates it with what the flag wants.
var errNotDecimal = errors.New("not a decimal number")

func (v *decimalInt) String() string { return strconv.Itoa(int(*v)) }
func (v *decimalInt) Get() any       { return int(*v) }
func (v *decimalInt) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, strconv.IntSize)
	if err != nil {
		return errNotDecimal
	}
	*v = decimalInt(n)
	return nil
}

func (v *decimalUint) String() string { return strconv.FormatUint(uint64(*v), 10) }
func (v *decimalUint) Get() any       { return uint64(*v) }
func (v *decimalUint) Set(s string) error {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return errNotDecimal
	}
	*v = decimalUint(n)
	return nil
}

func (v *decimalFloat) String() string { return strconv.FormatFloat(float64(*v), 'g', -1, 64) }
func (v *decimalFloat) Get() any       { return float64(*v) }
func (v *decimalFloat) Set(s string) error {
	x, err := parseFloat(s)
	if err != nil {
		return err
	}
	*v = decimalFloat(x)
	return nil
}

// parseFloat parses a number of the command line: a decimal number, inf
// or nan (in any case, with a sign); a number too large is infinite, one
// too small 0. Go's other forms (0x1p-2, 1_0) are errNotDecimal.
func parseFloat(s string) (float64, error) {
	if !reDecimal.MatchString(s) && !reSpecialFloat.MatchString(s) {
		return 0, errNotDecimal
	}
	x, err := strconv.ParseFloat(s, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) && !math.IsInf(x, 0):
		x = 0 // an underflow
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return 0, errNotDecimal
	}
	return x, nil
}

// reDecimal is a decimal number (an optional sign, digits with an optional
// point, an optional exponent); reSpecialFloat the words inf, infinity and
// nan, in any case.
var (
	reDecimal      = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)
	reSpecialFloat = regexp.MustCompile(`(?i)^[+-]?(inf|infinity|nan)$`)
)

func (f *flagSet) String(p *string, name, usage string) {
	f.fs.StringVar(p, name, *p, usage)
	f.add(name)
}
func (f *flagSet) Duration(p *time.Duration, name, usage string) {
	f.fs.DurationVar(p, name, *p, usage)
	f.add(name)
}

// textVar is a setting that reads and writes its name (the enumerations
// of the solver packages: run.Sampling, solver.Step, ...).
type textVar interface {
	encoding.TextMarshaler
	encoding.TextUnmarshaler
}

// Choice declares a flag taking one of names, read into p.
func (f *flagSet) Choice(p textVar, name, usage string, names ...string) {
	f.choice(name, usage, names, func() string {
		b, _ := p.MarshalText()
		return string(b)
	}, func(s string) error { return p.UnmarshalText([]byte(s)) })
}

// choice declares a flag taking one of names, read with get and set.
func (f *flagSet) choice(name, usage string, names []string, get func() string, set func(string) error) {
	f.fs.Var(&choiceValue{names, get, set}, name, usage)
	f.add(name)
}

// choiceValue is the flag.Value of a flag taking one of a few names.
type choiceValue struct {
	names []string
	get   func() string
	set   func(string) error
}

func (c *choiceValue) String() string {
	if c == nil || c.get == nil {
		return ""
	}
	return c.get()
}

func (c *choiceValue) Set(s string) error {
	if !slices.Contains(c.names, s) {
		return errors.New(c.wants())
	}
	return c.set(s)
}

func (c *choiceValue) wants() string { return orList(c.names) }

// check adds a check of the parsed values (an error naming the flag).
func (f *flagSet) check(fn func() error) { f.checks = append(f.checks, fn) }

// given reports whether the flag was given on the command line.
func (f *flagSet) given(name string) bool {
	found := false
	f.fs.Visit(func(fl *flag.Flag) { found = found || fl.Name == name })
	return found
}

// givenNames returns the flags given on the command line, sorted.
func (f *flagSet) givenNames() []string {
	var out []string
	f.fs.Visit(func(fl *flag.Flag) { out = append(out, fl.Name) })
	return out
}

// usageError is an error in the command line: run prints it as one line
// (never the whole help) and exits with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// usageErrorf returns a usageError about the command line of command,
// with the hint to its --help.
func usageErrorf(command, format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...) + fmt.Sprintf(" (fwstruct %s --help lists the flags)", command)}
}

// parse parses args, a command line of flags only, then runs the checks of
// the values. -h and --help return flag.ErrHelp; a flag that does not
// parse is a usageError of one line naming the flag, the value and what it
// wants; a check that fails is an error naming the flag (exit status 1).
func (f *flagSet) parse(args []string) error {
	files, err := f.parseFiles(args)
	if err == nil && len(files) > 0 {
		err = usageErrorf(f.fs.Name(), "unexpected argument %s: flags start with --", quote(files[0]))
	}
	return err
}

// parseFiles is parse for a command line of flags and other arguments
// (files, names), in any order, which it returns ("--" ends the flags).
func (f *flagSet) parseFiles(args []string) ([]string, error) {
	var files []string
	for {
		if err := f.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				if f.help != nil {
					f.help()
				}
				return nil, err
			}
			return nil, f.flagError(err)
		}
		rest := f.fs.Args()
		if len(rest) == 0 {
			break
		}
		if k := len(args) - len(rest); k > 0 && args[k-1] == "--" {
			files = append(files, rest...)
			break
		}
		files, args = append(files, rest[0]), rest[1:]
	}
	return files, f.runChecks()
}

// runChecks runs the checks of the values.
func (f *flagSet) runChecks() error {
	for _, c := range f.checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

// finish runs the checks that need the training problem's dimension d.
func (f *flagSet) finish(d int) error {
	for _, c := range f.late {
		if err := c(d); err != nil {
			return err
		}
	}
	return nil
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

// flagError restates an error of flag.FlagSet.Parse in one line.
func (f *flagSet) flagError(err error) error {
	command, msg := f.fs.Name(), err.Error()
	if m := reUndefined.FindStringSubmatch(msg); m != nil {
		if f.elsewhere != nil {
			// A flag of another method or command: the command line is
			// well formed, the run cannot use the flag (exit status 1).
			if why := f.elsewhere(m[1]); why != "" {
				return fmt.Errorf("--%s %s", m[1], why)
			}
		}
		hint := ""
		if near := f.nearest(m[1]); near != "" {
			hint = "; did you mean --" + near + "?"
		}
		return usageErrorf(command, "unknown flag --%s%s", m[1], hint)
	}
	if m := reNoValue.FindStringSubmatch(msg); m != nil {
		return usageErrorf(command, "--%s needs a value: %s", m[1], flagWants(f.fs.Lookup(m[1])))
	}
	for _, re := range []*regexp.Regexp{reBadValue, reBadBool} {
		if m := re.FindStringSubmatch(msg); m != nil {
			value := m[1]
			if s, uerr := strconv.Unquote(`"` + m[1] + `"`); uerr == nil {
				value = s
			}
			return usageErrorf(command, "--%s %s: want %s", m[2], quote(value), flagWants(f.fs.Lookup(m[2])))
		}
	}
	if m := reBadSyntax.FindStringSubmatch(msg); m != nil {
		return usageErrorf(command, "bad flag syntax %s", quote(m[1]))
	}
	return usageErrorf(command, "%s", msg)
}

// flagWants says what kind of value a flag takes.
func flagWants(fl *flag.Flag) string {
	if fl == nil {
		return "a value"
	}
	if c, ok := fl.Value.(*choiceValue); ok {
		return c.wants()
	}
	g, _ := fl.Value.(flag.Getter)
	if g == nil {
		return "a value"
	}
	switch g.Get().(type) {
	case bool:
		return "true or false"
	case int, int64:
		return "a decimal integer"
	case uint, uint64:
		return "a non-negative decimal integer"
	case float64:
		return "a decimal number"
	case time.Duration:
		return "a duration such as 30s, 5m or 1h30m"
	}
	if name := placeholder(fl); name != "string" {
		return name // the placeholder of its help, e.g. FILE
	}
	return "a value"
}

// placeholder is the name of a flag's value in its help: the word in
// backquotes of its usage (FILE), the choices of a choice (gap|perm), else
// the kind of its value (float, int, duration, string).
func placeholder(fl *flag.Flag) string {
	if c, ok := fl.Value.(*choiceValue); ok {
		return strings.Join(c.names, "|")
	}
	name, _ := flag.UnquoteUsage(fl)
	if name == "value" { // the decimal numbers: named as the flag package names its own
		switch fl.Value.(type) {
		case *decimalInt:
			return "int"
		case *decimalUint:
			return "uint"
		case *decimalFloat:
			return "float"
		}
	}
	return name
}

// nearest returns the flag whose name is closest to name, when it is
// within two edits (a typo), else "".
func (f *flagSet) nearest(name string) string {
	best, bestDist := "", 3
	f.fs.VisitAll(func(fl *flag.Flag) {
		if d := editDistance(strings.ToLower(name), fl.Name); d < bestDist {
			best, bestDist = fl.Name, d
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

// orList joins names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// flagDoc is what the help and the reference show of a flag.
type flagDoc struct {
	name, value, usage, def string
}

// flag returns the flag as its help names it: --name VALUE.
func (d flagDoc) flag() string {
	if d.value == "" {
		return "--" + d.name
	}
	return "--" + d.name + " " + d.value
}

// docs returns the flags of a section as the help shows them.
func (f *flagSet) docs(s *section) []flagDoc {
	var out []flagDoc
	for _, name := range s.names {
		fl := f.fs.Lookup(name)
		d := flagDoc{name: name, value: placeholder(fl)}
		_, d.usage = flag.UnquoteUsage(fl)
		if d.value == "bool" {
			d.value = ""
		}
		switch g, _ := fl.Value.(flag.Getter); {
		case fl.DefValue == "" || fl.DefValue == "0" || fl.DefValue == "false" || fl.DefValue == "0s":
		case g != nil && fmt.Sprintf("%T", g.Get()) == "string":
			d.def = strconv.Quote(fl.DefValue)
		default:
			d.def = fl.DefValue
		}
		out = append(out, d)
	}
	return out
}

// simpleHelp returns the help of a command without methods: its usage
// and its flags.
func (f *flagSet) simpleHelp(w io.Writer, usage string) func() {
	return func() {
		fmt.Fprintln(w, usage)
		f.printSections(w, nil)
	}
}

// printSections prints the sections of the help, but those skip names.
func (f *flagSet) printSections(w io.Writer, skip func(heading string) bool) {
	for _, s := range f.sections {
		if skip != nil && skip(s.heading) {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", s.heading)
		if s.note != "" {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(s.note, "\n", "\n  "))
		}
		for _, d := range f.docs(s) {
			usage := "      " + strings.ReplaceAll(d.usage, "\n", "\n      ")
			if d.def != "" {
				usage += fmt.Sprintf(" (default %s)", d.def)
			}
			fmt.Fprintf(w, "  %s\n%s\n", d.flag(), usage)
		}
	}
}
