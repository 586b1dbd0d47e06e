// Package repocheck holds tests of the repository itself rather than of a
// library: no file git tracks may be an executable (a native binary, or a
// file with the executable bit that is not a script starting with #!), and
// none may be larger than 1 MiB outside a testdata/ folder. Build outputs
// belong in out/ or bin/ (gitignored), data beside the project.
//
// They check the Markdown documentation too: README.md, the front door,
// stays at most 250 lines long, and every relative link of README.md and
// docs/*.md points to a file or folder of the repository (and, for a link
// into a Markdown file with a #fragment, to one of its headings), so that
// moving or renaming a file cannot leave the user guide pointing nowhere.
//
// The package has no code besides its tests. The file checks read `git ls-files -s`
// at the root of the module and skip, saying why, when git or the
// repository's .git is absent (a source archive, a module cache copy).
package repocheck
