package viz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strconv"
)

// PNGDrawnKey is the keyword of the tEXt chunk that WritePNG adds to its
// images: the text is Figure.Drawn() in decimal, so that a checker of saved
// notebooks can reject a figure that draws no data from the image alone.
const PNGDrawnKey = "fwstruct:drawn"

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// withPNGText returns the PNG image png with a tEXt chunk key=text
// inserted after its header chunk.
func withPNGText(png []byte, key, text string) ([]byte, error) {
	const ihdrEnd = 8 + 4 + 4 + 13 + 4
	if len(png) < ihdrEnd || !bytes.Equal(png[:8], pngSignature) || string(png[12:16]) != "IHDR" {
		return nil, errors.New("viz: not a PNG image")
	}
	data := append(append([]byte(key), 0), text...)
	chunk := make([]byte, 0, 12+len(data))
	chunk = binary.BigEndian.AppendUint32(chunk, uint32(len(data)))
	chunk = append(chunk, "tEXt"...)
	chunk = append(chunk, data...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	out := make([]byte, 0, len(png)+len(chunk))
	out = append(out, png[:ihdrEnd]...)
	out = append(out, chunk...)
	return append(out, png[ihdrEnd:]...), nil
}

func drawnText(f *Figure) string { return strconv.Itoa(f.Drawn()) }
