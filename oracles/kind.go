package oracles

import (
	"reflect"
	"strings"
)

// KindOf names the kind of data a problem holds, in words, for the
// messages of a method that cannot train on it: "multiclass data",
// "sequence labeling (chains)", "segmentation data", "word-alignment
// (matching) data", "factor-graph data" (a problem with a Model method, as
// the views of package factorgraph have), else "a NAME problem" after its
// type.
func KindOf(p Problem) string {
	switch p.(type) {
	case *Multiclass:
		return "multiclass data"
	case *Segmentation:
		return "segmentation data"
	case *Matching:
		return "word-alignment (matching) data"
	case nil:
		return "no problem"
	}
	if _, ok := p.(interface{ NumLabels() int }); ok {
		return "sequence labeling (chains)"
	}
	if reflect.ValueOf(p).MethodByName("Model").IsValid() {
		return "factor-graph data"
	}
	name := reflect.TypeOf(p).String()
	return "a " + strings.ToLower(name[strings.LastIndexByte(name, '.')+1:]) + " problem"
}
