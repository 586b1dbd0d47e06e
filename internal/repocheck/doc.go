// Package repocheck holds tests of the repository itself rather than of a
// library: no file git tracks may be an executable (a native binary, or a
// file with the executable bit that is not a script starting with #!), and
// none may be larger than 1 MiB outside a testdata/ folder. Build outputs
// belong in out/ or bin/ (gitignored), data beside the project.
//
// The package has no code besides its tests. They read `git ls-files -s`
// at the root of the module and skip, saying why, when git or the
// repository's .git is absent (a source archive, a module cache copy).
package repocheck
