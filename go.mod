module github.com/fwstruct/fwstruct

go 1.24.0

require (
	github.com/schollz/progressbar/v3 v3.18.0
	golang.org/x/term v0.37.0
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	golang.org/x/sys v0.38.0 // indirect
)
