package datasets

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/fwstruct/fwstruct/oracles"
)

// CSVHeader says whether the first row of a CSV file names the columns.
// The zero value, HeaderAuto, detects it.
type CSVHeader int

const (
	// HeaderAuto detects a header: the first row is one when the label
	// column is chosen by name, when one of its feature fields is not a
	// number, or when its label is not a number but the second row's is.
	HeaderAuto CSVHeader = iota
	// HeaderYes: the first row names the columns.
	HeaderYes
	// HeaderNo: the first row is data.
	HeaderNo
)

var csvHeaderNames = []string{"auto", "yes", "no"}

// String returns "auto", "yes" or "no" (the forms ParseCSVHeader accepts).
func (h CSVHeader) String() string { return enumName(csvHeaderNames, int(h), "CSVHeader") }

// ParseCSVHeader parses "auto", "yes" or "no".
func ParseCSVHeader(s string) (CSVHeader, error) {
	return parseEnum[CSVHeader](csvHeaderNames, s, "CSV header mode")
}

// CSVOptions configures ReadCSV.
type CSVOptions struct {
	// Comma is the field separator; 0 means ','.
	Comma rune
	// Label selects the label column: "" is the last column; an integer is
	// a 0-based column index, negative ones counting from the end (-1 is the
	// last column); any other text is a column name of the header.
	Label string
	// Header says whether the first row names the columns; the zero value
	// detects it.
	Header CSVHeader
}

// ReadCSV parses dense multiclass data in CSV (RFC 4180, as encoding/csv
// reads it: quoted fields, blank lines skipped): one example a row, every
// row with as many fields as the first, one column holding the label (see
// CSVOptions.Label) and every other column a feature, in order. A feature
// field is a finite number (surrounding spaces allowed); an empty field or a
// marker such as "NA" is an error, since missing values are not supported.
// A label is any non-empty text (see Examples.Labels). Feature i of an
// example is the i-th feature column; zero values are not stored. A UTF-8
// byte order mark at the start of the file is skipped.
//
// A file read as one column (the label alone) whose rows contain another
// common separator (',', ';', tab or '|') is refused at the first such
// row: it was most likely read with the wrong separator, which would make
// its header an example and every row a class of its own.
//
// Errors name the file and line: "csv: name:N: ...".
func ReadCSV(r io.Reader, name string, opt CSVOptions) (*Examples, error) {
	return readCSV(r, name, opt, 0)
}

// readCSV is ReadCSV for a file that may hold no labels (data to predict
// on) when features > 0: a file of that many columns has no label column,
// and a file whose first data row has an empty label has none in any row
// (Examples.Labels all "").
func readCSV(r io.Reader, name string, opt CSVOptions, features int) (*Examples, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("csv: %s: %w", name, fmt.Errorf(format, args...))
	}
	if opt.Header < HeaderAuto || opt.Header > HeaderNo {
		return nil, fail("unknown header mode %v", opt.Header)
	}
	src := &stickyReader{r: skipBOM(r)}
	cr := csv.NewReader(src)
	if opt.Comma != 0 {
		cr.Comma = opt.Comma
	}
	cr.TrimLeadingSpace = true
	rows := &csvRows{cr: cr, src: src, name: name, optional: features > 0}
	first, err := rows.next()
	if err == io.EOF {
		return nil, fail("no examples")
	}
	if err != nil {
		return nil, err
	}
	ncols := len(first.fields)
	if err := rows.oneColumn(first); err != nil {
		return nil, err
	}
	labelIdx, labelName := -1, ""
	noLabel := features > 0 && ncols == features
	if !noLabel {
		if labelIdx, labelName, err = labelColumn(opt.Label, ncols); err != nil {
			return nil, rows.errorAt(first.line, "%w", err)
		}
	}
	// The second row decides a header whose only non-number is the label.
	second, err := rows.next()
	if err != nil && err != io.EOF {
		return nil, err
	}
	header := opt.Header == HeaderYes || (opt.Header == HeaderAuto && looksLikeHeader(first.fields, second, labelIdx, labelName))
	ex := &Examples{Name: name, NumFeatures: ncols - 1}
	if noLabel {
		ex.NumFeatures = ncols
	}
	data := []*csvRow{first, second}
	if header {
		data = data[1:]
		if labelName != "" {
			if labelIdx = slices.Index(first.fields, labelName); labelIdx < 0 {
				return nil, rows.errorAt(first.line, "no column named %s in the header", quote(labelName))
			}
		}
		ex.FeatureNames = make([]string, 0, ncols)
		for j, f := range first.fields {
			if j != labelIdx {
				ex.FeatureNames = append(ex.FeatureNames, f)
			}
		}
	} else if labelName != "" {
		return nil, rows.errorAt(first.line, "label column %s chosen by name, but the file has no header", quote(labelName))
	}
	for _, row := range data {
		if row == nil {
			break
		}
		if err := rows.add(ex, row, labelIdx); err != nil {
			return nil, err
		}
	}
	for second != nil {
		row, err := rows.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := rows.add(ex, row, labelIdx); err != nil {
			return nil, err
		}
	}
	if ex.Len() == 0 {
		return nil, fail("no examples (only a header)")
	}
	return ex, nil
}

// otherSeparators are the field separators a one-column file is checked
// for (csvRows.oneColumn).
var otherSeparators = []rune{',', ';', '\t', '|'}

// oneColumn refuses a row of a one-column file that holds another common
// separator than the file is read with: read with the right one, the file
// would have several columns.
func (r *csvRows) oneColumn(row *csvRow) error {
	if len(row.fields) != 1 {
		return nil
	}
	for _, sep := range otherSeparators {
		if sep != r.cr.Comma && strings.ContainsRune(row.fields[0], sep) {
			return r.errorAt(row.line, "one column, but the row contains %s: is the field separator %s rather than %s?",
				quote(string(sep)), quote(string(sep)), quote(string(r.cr.Comma)))
		}
	}
	return nil
}

// bom is the UTF-8 byte order mark some editors write at the start of a
// text file.
const bom = "\ufeff"

// skipBOM returns r without a leading UTF-8 byte order mark.
func skipBOM(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(len(bom)); err == nil && string(b) == bom {
		br.Discard(len(bom))
	}
	return br
}

// csvRow is a record of a CSV file with the line where it starts.
type csvRow struct {
	fields []string
	line   int
}

// csvRows reads the records of a CSV file, reporting errors alike with the
// other readers.
type csvRows struct {
	cr   *csv.Reader
	src  *stickyReader
	name string
	// optional: the label may be missing (readCSV); unlabeled, once a
	// data row is read: the file has none.
	optional, unlabeled bool
}

// next returns the next record (a copy of it), or io.EOF.
func (r *csvRows) next() (*csvRow, error) {
	rec, err := r.cr.Read()
	if err == io.EOF {
		if r.src.err != nil {
			return nil, r.errorAt(0, "%w", r.src.err)
		}
		return nil, io.EOF
	}
	if err != nil {
		var pe *csv.ParseError
		switch {
		case r.src.err != nil:
			line := 0
			if errors.As(err, &pe) {
				line = pe.Line
			}
			return nil, r.errorAt(line, "%w", r.src.err)
		case errors.As(err, &pe) && errors.Is(err, csv.ErrFieldCount):
			return nil, r.errorAt(pe.StartLine, "%d fields, want %d as in the first row", len(rec), r.cr.FieldsPerRecord)
		case errors.As(err, &pe):
			return nil, r.errorAt(pe.Line, "%w (character %d)", pe.Err, pe.Column)
		default:
			return nil, fmt.Errorf("csv: %s: %w", r.name, err)
		}
	}
	line, _ := r.cr.FieldPos(0)
	return &csvRow{fields: rec, line: line}, nil
}

// errorAt returns an error about a line (0: the whole file).
func (r *csvRows) errorAt(line int, format string, args ...any) error {
	if line <= 0 {
		return fmt.Errorf("csv: %s: %w", r.name, fmt.Errorf(format, args...))
	}
	return fmt.Errorf("csv: %s:%d: %w", r.name, line, fmt.Errorf(format, args...))
}

// add parses a data row into ex.
func (r *csvRows) add(ex *Examples, row *csvRow, labelIdx int) error {
	if err := r.oneColumn(row); err != nil {
		return err
	}
	label := ""
	if labelIdx >= 0 {
		label, _ = canonicalLabel(row.fields[labelIdx])
		if r.optional && ex.Len() == 0 {
			r.unlabeled = label == ""
		}
		switch {
		case label == "" && !r.unlabeled:
			return r.errorAt(row.line, "empty label (column %d)", labelIdx+1)
		case label != "" && r.unlabeled:
			return r.errorAt(row.line, "label %s, but the first row has none (a file to predict on has labels in every row or in none)", quote(label))
		}
	}
	var v oracles.SparseVec
	f := int32(0)
	for j, s := range row.fields {
		if j == labelIdx {
			continue
		}
		s = strings.TrimSpace(s)
		val, ok := parseDecimal(s)
		switch {
		case s == "":
			return r.errorAt(row.line, "column %d%s is empty (missing values are not supported)", j+1, columnName(ex, f))
		case !ok:
			return r.errorAt(row.line, "column %d%s: %s is not a finite decimal number", j+1, columnName(ex, f), quote(s))
		}
		if val != 0 {
			v.Append(f, val)
		}
		f++
	}
	ex.add(v.Clone(), label, row.line)
	return nil
}

// columnName returns " (name)" for feature f of a file with a header.
func columnName(ex *Examples, f int32) string {
	if int(f) < len(ex.FeatureNames) {
		return " (" + quote(ex.FeatureNames[f]) + ")"
	}
	return ""
}

// labelColumn resolves CSVOptions.Label for ncols columns: an index, or a
// name to look up in the header.
func labelColumn(spec string, ncols int) (int, string, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return ncols - 1, "", nil
	}
	k, err := strconv.Atoi(spec)
	if err != nil {
		return -1, spec, nil
	}
	if k < 0 {
		k += ncols
	}
	if k < 0 || k >= ncols {
		return 0, "", fmt.Errorf("label column %s outside the %d columns", spec, ncols)
	}
	return k, "", nil
}

// looksLikeHeader tells whether the first row is a header (HeaderAuto).
func looksLikeHeader(first []string, second *csvRow, labelIdx int, labelName string) bool {
	if labelName != "" {
		return true
	}
	isNum := func(s string) bool {
		_, ok := canonicalLabel(s)
		return ok
	}
	for j, f := range first {
		if j != labelIdx && !isNum(f) {
			return true
		}
	}
	return labelIdx >= 0 && !isNum(first[labelIdx]) && second != nil && isNum(second.fields[labelIdx])
}

// ReadCSVFile reads a CSV file, plain or gzip-compressed (detected by the
// gzip magic bytes), with ReadCSV.
func ReadCSVFile(path string, opt CSVOptions) (*Examples, error) {
	rc, err := openData("csv", path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ReadCSV(rc, path, opt)
}
