module github.com/fwstruct/fwstruct

go 1.24
