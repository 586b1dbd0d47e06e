// Package doccheck holds no code: its tests check the repository's
// Markdown documentation. README.md, the front door, stays at most 250
// lines long, and every relative link of README.md and docs/*.md points to
// a file or folder of the repository (and, for a link into a Markdown file
// with a #fragment, to one of its headings), so that moving or renaming a
// file cannot leave the user guide pointing nowhere.
//
// Run them with go test ./internal/doccheck (make test runs them too).
package doccheck
