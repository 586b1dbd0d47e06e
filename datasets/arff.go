package datasets

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fwstruct/fwstruct/oracles"
)

// ARFF is the content of a Weka ARFF file (the format of the MULAN
// multi-label datasets): the relation name, the attributes and the data rows.
type ARFF struct {
	Relation   string
	Attributes []Attribute
	// Rows holds one sparse row per instance: the non-zero values, by
	// attribute index in increasing order. A numeric attribute's value is
	// the number; a nominal attribute's value is the index of the value in
	// its declaration (so the first declared value is 0 and is omitted, as
	// in ARFF's sparse rows).
	Rows []oracles.SparseVec
}

// Attribute is one attribute of an ARFF file.
type Attribute struct {
	Name string
	// Nominal lists the declared values of a nominal attribute
	// ({0,1} for MULAN labels); it is nil for a numeric one.
	Nominal []string
}

// declared returns the type of the attribute as its declaration writes
// it: "numeric" or the nominal list "{v1,v2,...}", for messages.
func (at Attribute) declared() string {
	if at.Nominal == nil {
		return "numeric"
	}
	return clip("{" + strings.Join(at.Nominal, ",") + "}")
}

// ReadARFF parses an ARFF file: `%` comment lines, `@relation name`,
// `@attribute name type` lines with type numeric, real, integer or a
// nominal list `{v1, v2, ...}`, then `@data` and one instance a line, either
// dense (comma-separated values, one per attribute) or sparse
// (`{index value, ...}` with 0-based increasing indices, omitted values
// being 0). Keywords are case-insensitive; names and values may be quoted
// with ' or ". String, date and relational attributes, missing values (?)
// and instance weights are not supported and are reported as errors. Errors
// name the file and line: "arff: name:N: ...".
func ReadARFF(r io.Reader, name string) (*ARFF, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<26)
	a := &ARFF{}
	line := 0
	fail := func(format string, args ...any) error {
		return fmt.Errorf("arff: %s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	inData, sawRelation := false, false
	var nominal []map[string]int32
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '%' {
			continue
		}
		if inData {
			row, err := parseARFFRow(s, a.Attributes, nominal)
			if err != nil {
				return nil, fail("%v", err)
			}
			a.Rows = append(a.Rows, row)
			continue
		}
		if s[0] != '@' {
			return nil, fail("expected @relation, @attribute or @data, found %q", clip(s))
		}
		kw, rest := s, ""
		if i := strings.IndexAny(s, " \t"); i >= 0 {
			kw, rest = s[:i], strings.TrimSpace(s[i+1:])
		}
		switch strings.ToLower(kw) {
		case "@relation":
			if sawRelation || len(a.Attributes) > 0 {
				return nil, fail("@relation must come once, before the attributes")
			}
			v, tail, err := nextToken(rest)
			if err != nil || v == "" || tail != "" {
				return nil, fail("bad @relation line %q", clip(s))
			}
			a.Relation, sawRelation = v, true
		case "@attribute":
			at, err := parseAttribute(rest)
			if err != nil {
				return nil, fail("%v", err)
			}
			m := map[string]int32{}
			for k, v := range at.Nominal {
				if _, dup := m[v]; dup {
					return nil, fail("attribute %q declares the value %q twice", at.Name, v)
				}
				m[v] = int32(k)
			}
			for _, b := range a.Attributes {
				if b.Name == at.Name {
					return nil, fail("attribute %q declared twice", at.Name)
				}
			}
			a.Attributes = append(a.Attributes, at)
			nominal = append(nominal, m)
		case "@data":
			if rest != "" {
				return nil, fail("unexpected text after @data")
			}
			if len(a.Attributes) == 0 {
				return nil, fail("@data before any @attribute")
			}
			inData = true
		default:
			return nil, fail("unknown keyword %q", kw)
		}
	}
	if err := sc.Err(); err != nil {
		line++
		return nil, fail("%v", err)
	}
	if !inData {
		return nil, fmt.Errorf("arff: %s: no @data section", name)
	}
	if len(a.Rows) == 0 {
		return nil, fmt.Errorf("arff: %s: no instances after @data (the file ends at line %d)", name, line)
	}
	return a, nil
}

// clip shortens s for error messages.
func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// nextToken returns the first token of s (a quoted string, unquoted, or a
// run of characters up to a blank, comma or brace) and the rest of s,
// trimmed.
func nextToken(s string) (tok, rest string, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", "", nil
	}
	if q := s[0]; q == '\'' || q == '"' {
		var sb strings.Builder
		for i := 1; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '\\' && i+1 < len(s):
				i++
				sb.WriteByte(s[i])
			case c == q:
				return sb.String(), strings.TrimSpace(s[i+1:]), nil
			default:
				sb.WriteByte(c)
			}
		}
		return "", "", fmt.Errorf("unterminated quote in %q", clip(s))
	}
	i := strings.IndexAny(s, " \t,{}")
	if i < 0 {
		return s, "", nil
	}
	if i == 0 {
		return "", "", fmt.Errorf("unexpected %q", s[0])
	}
	return s[:i], strings.TrimSpace(s[i:]), nil
}

// parseAttribute parses the text after @attribute.
func parseAttribute(s string) (Attribute, error) {
	name, rest, err := nextToken(s)
	if err != nil {
		return Attribute{}, err
	}
	if name == "" {
		return Attribute{}, errors.New("@attribute without a name")
	}
	at := Attribute{Name: name}
	if strings.HasPrefix(rest, "{") {
		body, ok := strings.CutSuffix(rest[1:], "}")
		if !ok {
			return at, fmt.Errorf("attribute %q: nominal list without a closing brace", name)
		}
		vals, err := splitFields(body)
		if err != nil {
			return at, fmt.Errorf("attribute %q: %v", name, err)
		}
		if len(vals) == 0 {
			return at, fmt.Errorf("attribute %q: empty nominal list", name)
		}
		at.Nominal = vals
		return at, nil
	}
	switch t := strings.ToLower(rest); t {
	case "numeric", "real", "integer":
		return at, nil
	case "":
		return at, fmt.Errorf("attribute %q without a type", name)
	default:
		return at, fmt.Errorf("attribute %q: unsupported type %q (numeric, real, integer or a nominal list)", name, clip(rest))
	}
}

// splitFields splits a comma-separated list, honouring quotes, and unquotes
// and trims every field.
func splitFields(s string) ([]string, error) {
	var out []string
	rest := strings.TrimSpace(s)
	if rest == "" {
		return nil, nil
	}
	for {
		var tok string
		var err error
		if rest != "" && rest[0] != ',' {
			tok, rest, err = nextTokenField(rest)
			if err != nil {
				return nil, err
			}
		}
		out = append(out, tok)
		if rest == "" {
			return out, nil
		}
		if rest[0] != ',' {
			return nil, fmt.Errorf("expected a comma before %q", clip(rest))
		}
		rest = strings.TrimSpace(rest[1:])
	}
}

// nextTokenField is nextToken for list fields, where blanks may occur inside
// an unquoted value ("a b" in {a b, c}); it stops at a comma only.
func nextTokenField(s string) (tok, rest string, err error) {
	if q := s[0]; q == '\'' || q == '"' {
		return nextToken(s)
	}
	i := strings.IndexByte(s, ',')
	if i < 0 {
		return strings.TrimSpace(s), "", nil
	}
	return strings.TrimSpace(s[:i]), s[i:], nil
}

// parseARFFRow parses one dense or sparse data line.
func parseARFFRow(s string, attrs []Attribute, nominal []map[string]int32) (oracles.SparseVec, error) {
	var row oracles.SparseVec
	if s[0] == '{' {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return row, errors.New("sparse row without a closing brace")
		}
		if strings.TrimSpace(s[end+1:]) != "" {
			return row, errors.New("text after the closing brace of a sparse row (instance weights are not supported)")
		}
		body := s[1:end]
		fields, err := splitFields(body)
		if err != nil {
			return row, err
		}
		last := -1
		for _, f := range fields {
			is, vs, ok := strings.Cut(strings.TrimSpace(f), " ")
			if !ok {
				if is, vs, ok = strings.Cut(strings.TrimSpace(f), "\t"); !ok {
					return row, fmt.Errorf("sparse entry %q is not \"index value\"", clip(f))
				}
			}
			k, err := strconv.Atoi(is)
			if err != nil || k < 0 || k >= len(attrs) {
				return row, fmt.Errorf("sparse index %q outside [0, %d)", clip(is), len(attrs))
			}
			if k <= last {
				return row, fmt.Errorf("sparse index %d after %d (indices must increase)", k, last)
			}
			last = k
			v, err := parseARFFValue(strings.TrimSpace(vs), attrs[k], nominal[k])
			if err != nil {
				return row, err
			}
			if v != 0 {
				row.Append(int32(k), v)
			}
		}
		return row, nil
	}
	fields, err := splitFields(s)
	if err != nil {
		return row, err
	}
	if len(fields) != len(attrs) {
		return row, fmt.Errorf("%d values for %d attributes", len(fields), len(attrs))
	}
	for k, f := range fields {
		v, err := parseARFFValue(f, attrs[k], nominal[k])
		if err != nil {
			return row, err
		}
		if v != 0 {
			row.Append(int32(k), v)
		}
	}
	return row, nil
}

// parseARFFValue parses a value of attribute at; quotes were removed by the
// field splitter, except in sparse entries.
func parseARFFValue(s string, at Attribute, nominal map[string]int32) (float64, error) {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') {
		tok, rest, err := nextToken(s)
		if err != nil || rest != "" {
			return 0, fmt.Errorf("attribute %q: bad quoted value %q", at.Name, clip(s))
		}
		s = tok
	}
	if s == "?" {
		return 0, fmt.Errorf("attribute %q: missing values (?) are not supported", at.Name)
	}
	if at.Nominal != nil {
		k, ok := nominal[s]
		if !ok {
			return 0, fmt.Errorf("attribute %q: value %q is not one of %v", at.Name, clip(s), at.Nominal)
		}
		return float64(k), nil
	}
	v, ok := parseDecimal(s)
	if !ok {
		return 0, fmt.Errorf("attribute %q: %q is not a finite decimal number", at.Name, clip(s))
	}
	return v, nil
}
