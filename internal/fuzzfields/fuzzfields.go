// Package fuzzfields mutates one field of a decoded value (a solver's
// checkpoint) for fuzz tests. Byte-level mutations of an encoded file
// rarely get past its decoder; setting one numeric field, or the length of
// one slice, to an arbitrary value and encoding the result again reaches
// every range check of the loader (lengths, counters, permutation entries,
// offsets) instead.
package fuzzfields

import (
	"math"
	"reflect"
)

// Set sets leaf k (modulo the number of leaves) of the struct ptr points
// to, in the order of a depth-first walk of its fields: a number to val
// reinterpreted for its kind (a float64 gets the float of those bits, NaN
// and infinities included), a bool to val's lowest bit, a slice to length
// val modulo (its length + 2), growing by a zero element at most. It
// reports whether ptr has a leaf.
func Set(ptr any, k int, val uint64) bool {
	var leaves []reflect.Value
	collect(reflect.ValueOf(ptr).Elem(), &leaves)
	if len(leaves) == 0 {
		return false
	}
	set(leaves[k%len(leaves)], val)
	return true
}

// collect appends the settable numbers, bools and slices under v.
func collect(v reflect.Value, out *[]reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				collect(v.Field(i), out)
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			collect(v.Elem(), out)
		}
	case reflect.Slice:
		*out = append(*out, v)
		for i := 0; i < v.Len(); i++ {
			collect(v.Index(i), out)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Bool:
		*out = append(*out, v)
	}
}

// set sets one leaf as Set describes.
func set(v reflect.Value, val uint64) {
	switch v.Kind() {
	case reflect.Slice:
		n := int(val % uint64(v.Len()+2))
		if n <= v.Len() {
			v.SetLen(n)
		} else {
			v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(val))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(val)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(math.Float64frombits(val))
	case reflect.Bool:
		v.SetBool(val&1 == 1)
	}
}
