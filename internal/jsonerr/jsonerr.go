// Package jsonerr restates the errors of encoding/json in a user's terms,
// for the readers of the project's JSON files (models, checkpoints,
// traces): where a file is not JSON, or which field holds a value of the
// wrong kind, never the name of a Go type.
package jsonerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
)

// Restate returns err in a user's terms: "not valid JSON at byte N: ...",
// "field "gap" holds a JSON string, want a number", "truncated JSON";
// other errors as they are.
func Restate(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("not valid JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		field := "the top level"
		if typ.Field != "" {
			field = "field " + quote(typ.Field)
		}
		return fmt.Errorf("%s holds a JSON %s, want %s", field, typ.Value, kind(typ.Type))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("truncated JSON")
	}
	return err
}

// kind names the JSON value a Go type is read from.
func kind(t reflect.Type) string {
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
		return kind(t.Elem())
	}
	return "a number"
}

// quote quotes a field name, cut to 40 bytes.
func quote(s string) string {
	if len(s) > 40 {
		return strconv.Quote(s[:40]) + "..."
	}
	return strconv.Quote(s)
}
