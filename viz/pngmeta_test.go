package viz

import (
	"bytes"
	"encoding/binary"
)

// pngText returns the tEXt chunks of a PNG image (keyword -> text); it
// stops at the first malformed chunk. The tests read what WritePNG wrote
// with it.
func pngText(png []byte) map[string]string {
	out := map[string]string{}
	if len(png) < 8 || !bytes.Equal(png[:8], pngSignature) {
		return out
	}
	for p := 8; p+12 <= len(png); {
		n := int(binary.BigEndian.Uint32(png[p:]))
		typ := string(png[p+4 : p+8])
		if n < 0 || p+12+n > len(png) {
			break
		}
		if typ == "tEXt" {
			if k, v, ok := bytes.Cut(png[p+8:p+8+n], []byte{0}); ok {
				out[string(k)] = string(v)
			}
		}
		if typ == "IEND" {
			break
		}
		p += 12 + n
	}
	return out
}
