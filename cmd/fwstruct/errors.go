package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// maxQuoted is the longest value an error message quotes in full: a flag
// or a field of a corrupt file can be megabytes long.
const maxQuoted = 40

// quote returns s quoted for an error message, cut so that the quoted
// part is at most maxQuoted+2 bytes long (escapes count).
func quote(s string) string {
	q := strconv.Quote(s)
	if len(q) <= maxQuoted+2 {
		return q
	}
	for n := min(len(s), maxQuoted); n > 0; n-- {
		if q = strconv.Quote(s[:n]); len(q) <= maxQuoted+2 {
			break
		}
	}
	return q + "..."
}

// errorLine renders err as the one line the command prints: lines joined
// with "; " and every quoted value longer than maxQuoted cut, whichever
// package made the message.
func errorLine(err error) string {
	msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
	var b strings.Builder
	for len(msg) > 0 {
		k := strings.IndexByte(msg, '"')
		if k < 0 {
			b.WriteString(msg)
			break
		}
		b.WriteString(msg[:k])
		msg = msg[k:]
		q, err := strconv.QuotedPrefix(msg)
		if err != nil {
			b.WriteByte('"')
			msg = msg[1:]
			continue
		}
		msg = msg[len(q):]
		if s, err := strconv.Unquote(q); err == nil && len(s) > maxQuoted {
			q = quote(s)
		}
		b.WriteString(q)
	}
	return b.String()
}

// stopFlagNames maps the names the solver's errors use for the stopping
// criteria and the schedule to the flags that set them.
var stopFlagNames = strings.NewReplacer(
	"Stop.Passes", "--passes",
	"Stop.GapEstimate", "the gap-estimate criterion",
	"Stop.Gap", "--gap-tol",
	"Stop.EarlyCheck", "--early-check",
	"Stop.Duration", "--time",
	"GapEvery = +Inf", "--gap-every inf",
	"GapEvery", "--gap-every",
	"TraceEvery", "--trace-every",
	"EarlyCheck", "--early-check",
	"Passes or Duration", "--passes or --time",
	"Passes, GapEstimate or Duration", "--passes or --time",
	"solver: ", "",
)

// stopError restates an error of Solver.CheckStop in the flags' terms.
func stopError(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(stopFlagNames.Replace(err.Error()))
}

// jsonError restates an error of encoding/json in a user's terms: where
// the file is not JSON, or which field holds a value of the wrong kind
// (never the name of a Go type).
func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("not valid JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the top level"
		} else {
			field = "field " + quote(field)
		}
		return fmt.Errorf("%s holds a JSON %s, want %s", field, typ.Value, jsonKind(typ.Type))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("truncated JSON")
	}
	return err
}

// jsonKind names the JSON value a Go type is read from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "a number"
}
