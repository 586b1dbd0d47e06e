package main

import (
	"errors"
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
