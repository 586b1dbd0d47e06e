package datasets

import (
	"bufio"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fwstruct/fwstruct/align"
	"github.com/fwstruct/fwstruct/internal/atomicfile"
	"github.com/fwstruct/fwstruct/oracles"
)

// WritePredictions writes the predictions pred (pred[i] the labeling of
// example i of s.Problem) in the output of the set's task, which the
// task's own tools read:
//
//   - multiclass data (svmlight, csv, usps): one label a line, in the
//     file's label names (the classes of the training file), as
//     svm-predict writes them;
//   - multi-label data (MULAN): one line an example, the names of its
//     predicted labels separated by spaces (an empty line for none; a name
//     holding white space or a double quote is written as a Go string, in
//     double quotes);
//   - column-format data: one token a line, its input columns as read,
//     then its gold tag when the file has one, then the predicted tag, a
//     blank line after each sentence: with gold tags, the input of
//     conlleval (which reads the last two columns);
//   - word alignment: one link a line, "snum e f" (sentence number,
//     English and French positions counted from 1), the submission format
//     of the shared task's scorer wa_eval_align.pl (links without S or P
//     are sure ones);
//   - OCR letters (and the synthetic OCR-like data): one word a line, its
//     letters a..z;
//   - any other problem: one labeling a line, its labels as integers.
//
// Segmentation predictions are masks: see WriteMasks.
func (s *Set) WritePredictions(w io.Writer, pred [][]int32) error {
	if len(pred) != s.Problem.Len() {
		return fmt.Errorf("%d predictions for %d examples", len(pred), s.Problem.Len())
	}
	bw := bufio.NewWriter(w)
	var err error
	switch p := s.Problem.(type) {
	case *Chunking:
		err = s.writeTags(bw, p, pred)
	case *oracles.Matching:
		err = s.writeLinks(bw, pred)
	case *oracles.Segmentation:
		return errors.New("segmentation predictions are masks: write them with WriteMasks")
	default:
		err = s.writeLines(bw, pred)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// writeLines writes one line an example: a class, label names, a word or
// integers.
func (s *Set) writeLines(w *bufio.Writer, pred [][]int32) error {
	name := func(k int32) (string, error) {
		if k < 0 || int(k) >= len(s.Labels) {
			return "", fmt.Errorf("label %d outside the %d label names", k, len(s.Labels))
		}
		return s.Labels[k], nil
	}
	for i, y := range pred {
		switch {
		case s.multiclass():
			if len(y) != 1 {
				return fmt.Errorf("example %d: a labeling of %d classes, want 1", i, len(y))
			}
			l, err := name(y[0])
			if err != nil {
				return fmt.Errorf("example %d: %w", i, err)
			}
			w.WriteString(l)
		case s.Format == "mulan" || s.Format == "yeast":
			if len(y) != len(s.Labels) {
				return fmt.Errorf("example %d: a labeling of %d labels, want %d", i, len(y), len(s.Labels))
			}
			sep := ""
			for k, v := range y {
				if v == 1 {
					w.WriteString(sep + labelToken(s.Labels[k]))
					sep = " "
				}
			}
		case s.Format == "ocr" || s.Format == "synthetic":
			for t, v := range y {
				if v < 0 || v >= NumLetters {
					return fmt.Errorf("example %d: letter %d of label %d, want 0..%d", i, t, v, NumLetters-1)
				}
				w.WriteByte(byte('a' + v))
			}
		default:
			for t, v := range y {
				if t > 0 {
					w.WriteByte(' ')
				}
				w.WriteString(strconv.Itoa(int(v)))
			}
		}
		w.WriteByte('\n')
	}
	return nil
}

// multiclass reports whether the set is multiclass data read from a file.
func (s *Set) multiclass() bool {
	switch s.Format {
	case "svmlight", "csv", "usps":
		return true
	}
	return false
}

// labelToken returns a label name as one space-separated token.
func labelToken(l string) string {
	if l == "" || strings.ContainsAny(l, " \t\n\r\v\f\"") {
		return strconv.Quote(l)
	}
	return l
}

// writeTags writes the sentences of c in columns with their predicted
// tags.
func (s *Set) writeTags(w *bufio.Writer, c *Chunking, pred [][]int32) error {
	sep := " "
	if s.sep != 0 {
		sep = string(s.sep)
	}
	for i := range c.Sentences {
		sent := &c.Sentences[i]
		if len(pred[i]) != sent.Len() {
			return fmt.Errorf("sentence %d: %d tags for %d tokens", i, len(pred[i]), sent.Len())
		}
		tags := c.TagStrings(i, pred[i])
		for t := range sent.Tags {
			for _, col := range sent.Fields {
				w.WriteString(col[t])
				w.WriteString(sep)
			}
			if s.Gold {
				w.WriteString(sent.Tags[t])
				w.WriteString(sep)
			}
			w.WriteString(tags[t])
			w.WriteByte('\n')
		}
		w.WriteByte('\n')
	}
	return nil
}

// writeLinks writes the links of the predicted matchings in the
// submission format of wa_eval_align.pl.
func (s *Set) writeLinks(w *bufio.Writer, pred [][]int32) error {
	if len(s.pairs) != len(pred) {
		return fmt.Errorf("%d sentence pairs for %d predictions: a matching problem of word alignment has its pairs (Data.TestSet, Data.Read)", len(s.pairs), len(pred))
	}
	for i, y := range pred {
		for _, l := range align.Links(y) {
			fmt.Fprintf(w, "%04d %d %d\n", s.pairs[i].ID, l[0]+1, l[1]+1)
		}
	}
	return nil
}

// WriteMasks writes the predicted segmentations of the images of a
// segmentation set, one PNG file an image into the folder dir (created if
// needed), named after the image (horse001.jpg gives horse001.png): 255 on
// the figure (label 1), 0 elsewhere, at the size of the image. Every file
// is written atomically. It returns the files written.
func (s *Set) WriteMasks(dir string, pred [][]int32) ([]string, error) {
	if _, ok := s.Problem.(*oracles.Segmentation); !ok || len(s.images) != s.Problem.Len() {
		return nil, fmt.Errorf("%s data: masks are written for the images of a segmentation set (the horses)", s.Format)
	}
	if len(pred) != len(s.images) {
		return nil, fmt.Errorf("%d predictions for %d images", len(pred), len(s.images))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	files := s.MaskFiles(dir)
	for i := range s.images {
		h := &s.images[i]
		mask, err := h.PixelMask(pred[i])
		if err != nil {
			return files[:i], fmt.Errorf("%s: %w", h.Name, err)
		}
		if err := atomicfile.WriteFile(files[i], 0o644, func(w io.Writer) error { return png.Encode(w, mask) }); err != nil {
			return files[:i], err
		}
	}
	return files, nil
}

// MaskFiles returns the files WriteMasks writes into dir, in example
// order (nil for a set without images).
func (s *Set) MaskFiles(dir string) []string {
	var out []string
	for _, h := range s.images {
		out = append(out, filepath.Join(dir, strings.TrimSuffix(h.Name, filepath.Ext(h.Name))+".png"))
	}
	return out
}
