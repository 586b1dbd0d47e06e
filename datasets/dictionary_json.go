package datasets

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
)

// dictionaryJSON is the JSON form of a Dictionary: the templates, whether
// the boundary attributes are on, the values of each input column that
// the attributes kept use, and each attribute as its template number then
// the ids of its values in those lists (the boundary attributes as their
// template number alone: len(templates) for __BOS__, len(templates)+1 for
// __EOS__), in feature order, with its training count.
type dictionaryJSON struct {
	Templates  []Template `json:"templates"`
	Boundary   bool       `json:"boundary"`
	Values     [][]string `json:"values"`
	Attributes [][]int32  `json:"attributes"`
	Counts     []int32    `json:"counts"`
	Seen       int        `json:"seen"`
}

// MarshalJSON writes the dictionary as plain data (the attributes kept,
// their values and counts), so that a model stores the feature map of the
// training sentences: a dictionary read back gives every sentence the same
// feature vectors.
func (d *Dictionary) MarshalJSON() ([]byte, error) {
	j := dictionaryJSON{Templates: d.templates, Boundary: d.boundary, Values: make([][]string, len(d.vocab)),
		Attributes: make([][]int32, len(d.keys)), Counts: d.counts, Seen: d.seen}
	remap := make([]map[int32]int32, len(d.vocab)) // vocabulary id -> id in Values
	for c := range remap {
		remap[c] = map[int32]int32{}
	}
	for f, key := range d.keys {
		tpl := int(binary.LittleEndian.Uint16([]byte(key)))
		attr := []int32{int32(tpl)}
		if tpl < len(d.templates) {
			for k, it := range d.templates[tpl] {
				id := int32(binary.LittleEndian.Uint32([]byte(key[2+4*k:])))
				m := remap[it.Column]
				nid, ok := m[id]
				if !ok {
					nid = int32(len(j.Values[it.Column]))
					m[id] = nid
					j.Values[it.Column] = append(j.Values[it.Column], d.values[it.Column][id])
				}
				attr = append(attr, nid)
			}
		}
		j.Attributes[f] = attr
	}
	for c := range j.Values {
		if j.Values[c] == nil {
			j.Values[c] = []string{}
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes, checking it: templates
// BuildDictionary accepts, every attribute of a known template with a
// valid value id per item, no attribute twice, a count per attribute.
func (d *Dictionary) UnmarshalJSON(b []byte) error {
	var j dictionaryJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("attribute dictionary: %w", err)
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("attribute dictionary: %s", fmt.Sprintf(format, args...))
	}
	cols, err := templateColumns(j.Templates)
	if err != nil {
		return fail("%v", err)
	}
	if len(j.Values) != cols {
		return fail("%d value lists for templates over %d input columns", len(j.Values), cols)
	}
	if len(j.Counts) != len(j.Attributes) {
		return fail("%d counts for %d attributes", len(j.Counts), len(j.Attributes))
	}
	if j.Seen < len(j.Attributes) {
		return fail("%d attributes seen in training, fewer than the %d kept", j.Seen, len(j.Attributes))
	}
	out := &Dictionary{templates: j.Templates, boundary: j.Boundary, seen: j.Seen,
		vocab: make([]map[string]int32, cols), values: j.Values, index: make(map[string]int32, len(j.Attributes)),
		keys: make([]string, len(j.Attributes)), counts: j.Counts}
	for c, vals := range j.Values {
		out.vocab[c] = make(map[string]int32, len(vals))
		for id, v := range vals {
			if _, dup := out.vocab[c][v]; dup {
				return fail("value %s listed twice for input column %d", quote(v), c)
			}
			out.vocab[c][v] = int32(id)
		}
	}
	var key []byte
	for f, attr := range j.Attributes {
		if len(attr) == 0 || attr[0] < 0 || int(attr[0]) > len(j.Templates)+1 {
			return fail("attribute %d: no template %v", f, attr)
		}
		tpl := int(attr[0])
		items := 0
		switch {
		case tpl < len(j.Templates):
			items = len(j.Templates[tpl])
		case !j.Boundary:
			return fail("attribute %d: a boundary attribute in a dictionary without them", f)
		}
		if len(attr) != 1+items {
			return fail("attribute %d: %d value ids for a template of %d items", f, len(attr)-1, items)
		}
		key = binary.LittleEndian.AppendUint16(key[:0], uint16(tpl))
		for k := 0; k < items; k++ {
			col, id := j.Templates[tpl][k].Column, attr[1+k]
			if id < 0 || int(id) >= len(j.Values[col]) {
				return fail("attribute %d: value id %d outside the %d values of input column %d", f, id, len(j.Values[col]), col)
			}
			key = binary.LittleEndian.AppendUint32(key, uint32(id))
		}
		if _, dup := out.index[string(key)]; dup {
			return fail("attribute %d repeats an earlier one", f)
		}
		if j.Counts[f] < 1 {
			return fail("attribute %d has count %d", f, j.Counts[f])
		}
		out.keys[f] = string(key)
		out.index[out.keys[f]] = int32(f)
	}
	*d = *out
	return nil
}
