package datasets

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/fwstruct/fwstruct/internal/atomicfile"
)

// The preprocessing cache of LoadHorses is one binary file per key,
// horses-<key prefix>.bin, little-endian:
//
//	magic "FWHORSE2", key [32]byte, images, histogram bins H uint32,
//	then per image: name (uint16 length + bytes), number int32, width,
//	height, regions N, edges E, runs R uint32, superpixels as R runs
//	(label, length uint16) in raster order, area, foreground [N]int32,
//	edges [2E]int32, raw histograms [N*H]int32 (features.Count),
//	then the CRC-32C of everything before.
//
// It keeps what is costly to compute (decoding, SLIC, the codebook and the
// words) and recomputes the features from the histograms (FromCounts) at
// load time. A file that does not parse or has the wrong key or checksum
// is ignored and rewritten.
const horsesMagic = "FWHORSE2"

// horsesCacheVersion changes whenever preprocessing changes its results.
const horsesCacheVersion = "fwstruct horses preprocessing v3"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// horsesCacheKey hashes the cache version, every option that changes the
// result and the contents of every image and mask.
func horsesCacheKey(files []horseFile, opt HorsesOptions) ([32]byte, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\ntrain=%d slic=%+v features=%+v samples=%d\n", horsesCacheVersion, opt.Train, opt.SLIC, opt.Features, opt.CodebookSamples)
	for _, f := range files {
		for _, p := range []string{f.image, f.mask} {
			data, err := os.ReadFile(p)
			if err != nil {
				return [32]byte{}, fmt.Errorf("horses: %w", err)
			}
			d := sha256.Sum256(data)
			fmt.Fprintf(h, "%s %d %x\n", filepath.Base(p), len(data), d)
		}
	}
	var key [32]byte
	copy(key[:], h.Sum(nil))
	return key, nil
}

// horsesCachePath returns the cache file of key in dir (default
// <user cache dir>/fwstruct/horses-cache).
func horsesCachePath(dir string, key [32]byte) (string, error) {
	if dir == "" {
		root, err := CacheDir()
		if err != nil {
			return "", fmt.Errorf("horses: %w", err)
		}
		dir = filepath.Join(root, "horses-cache")
	}
	return filepath.Join(dir, "horses-"+hex.EncodeToString(key[:12])+".bin"), nil
}

// writeHorsesCache writes the records atomically (a temporary file renamed
// into place): the records, then the CRC-32C of everything before it.
func writeHorsesCache(path string, key [32]byte, recs []horseRecord, bins int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, 0o644, func(out io.Writer) error {
		crc := crc32.New(castagnoli)
		bw := bufio.NewWriterSize(io.MultiWriter(out, crc), 1<<20)
		w := &binWriter{w: bw}
		w.bytes([]byte(horsesMagic))
		w.bytes(key[:])
		w.u32(uint32(len(recs)), uint32(bins))
		for k := range recs {
			writeHorseRecord(w, &recs[k])
		}
		if w.err != nil {
			return w.err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		return binary.Write(out, binary.LittleEndian, crc.Sum32())
	})
}

func writeHorseRecord(w *binWriter, rec *horseRecord) {
	info := &rec.info
	runs := info.runs
	w.u16(uint16(len(info.Name)))
	w.bytes([]byte(info.Name))
	w.u32(uint32(int32(info.Number)), uint32(info.Width), uint32(info.Height), uint32(len(rec.area)), uint32(len(rec.edges)), uint32(len(runs)/2))
	w.u16(runs...)
	w.i32(rec.area...)
	w.i32(rec.fg...)
	for _, e := range rec.edges {
		w.i32(e[0], e[1])
	}
	w.i32(rec.counts...)
}

// runLengths encodes labels (each below 65536) as (label, length) pairs of
// runs of at most 65535 equal labels.
func runLengths(labels []int32) []uint16 {
	var runs []uint16
	for i := 0; i < len(labels); {
		j := i + 1
		for j < len(labels) && labels[j] == labels[i] && j-i < math.MaxUint16 {
			j++
		}
		runs = append(runs, uint16(labels[i]), uint16(j-i))
		i = j
	}
	return runs
}

// readHorsesCache reads the records of a cache file written for the same
// files and options.
func readHorsesCache(path string, key [32]byte, files []horseFile, opt HorsesOptions) ([]horseRecord, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) < len(horsesMagic)+len(key)+4 {
		return nil, errCacheMiss
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, errCacheMiss
	}
	r := &binReader{b: body}
	if string(r.bytes(len(horsesMagic))) != horsesMagic || string(r.bytes(len(key))) != string(key[:]) {
		return nil, errCacheMiss
	}
	n, bins := int(r.u32()), int(r.u32())
	if r.err != nil || n != len(files) || bins != opt.Features.HistogramsDim() {
		return nil, errCacheMiss
	}
	recs := make([]horseRecord, n)
	for k := range recs {
		name := string(r.bytes(int(r.u16())))
		number := int(int32(r.u32()))
		w, h, regions, m, nruns := int(r.u32()), int(r.u32()), int(r.u32()), int(r.u32()), int(r.u32())
		if r.err != nil || name != files[k].name || w*h > 1<<28 || regions*bins > len(body) {
			return nil, errCacheMiss
		}
		runs := r.u16s(2 * nruns)
		if !validRuns(runs, w*h, regions) {
			return nil, errCacheMiss
		}
		rec := horseRecord{
			info: HorseImage{Name: name, Number: number, Width: w, Height: h, Regions: regions, runs: runs},
			area: r.i32s(regions),
			fg:   r.i32s(regions),
		}
		flat := r.i32s(2 * m)
		rec.edges = make([][2]int32, len(flat)/2)
		for e := range rec.edges {
			rec.edges[e] = [2]int32{flat[2*e], flat[2*e+1]}
		}
		rec.counts = r.i32s(regions * bins)
		recs[k] = rec
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, errCacheMiss
	}
	return recs, nil
}

// validRuns reports whether (label, length) runs cover n pixels with labels
// below regions.
func validRuns(runs []uint16, n, regions int) bool {
	total := 0
	for k := 0; k+1 < len(runs); k += 2 {
		if int(runs[k]) >= regions {
			return false
		}
		total += int(runs[k+1])
	}
	return total == n
}

// binWriter writes little-endian values and keeps the first error.
type binWriter struct {
	w   io.Writer
	buf []byte
	err error
}

func (b *binWriter) bytes(p []byte) {
	if b.err == nil {
		_, b.err = b.w.Write(p)
	}
}

func (b *binWriter) u16(v ...uint16) {
	b.buf = b.buf[:0]
	for _, x := range v {
		b.buf = binary.LittleEndian.AppendUint16(b.buf, x)
	}
	b.bytes(b.buf)
}

func (b *binWriter) u32(v ...uint32) {
	b.buf = b.buf[:0]
	for _, x := range v {
		b.buf = binary.LittleEndian.AppendUint32(b.buf, x)
	}
	b.bytes(b.buf)
}

func (b *binWriter) i32(v ...int32) {
	b.buf = b.buf[:0]
	for _, x := range v {
		b.buf = binary.LittleEndian.AppendUint32(b.buf, uint32(x))
	}
	b.bytes(b.buf)
}

// binReader reads little-endian values from a byte slice and records a
// short read as errCacheMiss.
type binReader struct {
	b   []byte
	err error
}

func (r *binReader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = errCacheMiss
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *binReader) u16() uint16 {
	if p := r.bytes(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}

func (r *binReader) u32() uint32 {
	if p := r.bytes(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (r *binReader) u16s(n int) []uint16 {
	p := r.bytes(2 * n)
	if p == nil {
		return nil
	}
	out := make([]uint16, n)
	for k := range out {
		out[k] = binary.LittleEndian.Uint16(p[2*k:])
	}
	return out
}

func (r *binReader) i32s(n int) []int32 {
	p := r.bytes(4 * n)
	if p == nil {
		return nil
	}
	out := make([]int32, n)
	for k := range out {
		out[k] = int32(binary.LittleEndian.Uint32(p[4*k:]))
	}
	return out
}
