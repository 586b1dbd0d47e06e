// Package golden holds no code: its test runs a fixed set of short,
// deterministic training runs of every solver family and variant on small
// generated data and compares their traces, bit for bit, with the ones stored
// under testdata (see golden_test.go). It is the anchor that shows a
// refactoring left behaviour and traces unchanged.
package golden
