package atomicfile_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/fwstruct/fwstruct/internal/atomicfile"
)

// Check an output before a long computation, then write it atomically:
// readers see the old file or the whole new one.
func ExampleWriteFile() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "result.json")
	if err := atomicfile.CheckWritable(out); err != nil {
		panic(err)
	}
	// ... the long computation ...
	err := atomicfile.WriteFile(out, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, `{"gap": 0.01}`)
		return err
	})
	b, _ := os.ReadFile(out)
	fmt.Println(string(b), err)
	fmt.Println(atomicfile.CheckWritable(dir) != nil) // a folder is not a file
	// Output:
	// {"gap": 0.01} <nil>
	// true
}
