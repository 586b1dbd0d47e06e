// Package methodcheck holds the tests that every registered method type
// (run.Register) keeps the contract of run.Method: it encodes and decodes
// to itself, each of its settings is one its solver reads and reports
// back, and its solver passes the conformance suite of runtest.
package methodcheck
