package datasets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/fwstruct/fwstruct/imaging/features"
	"github.com/fwstruct/fwstruct/imaging/slic"
)

// Spec is a dataset by name and the options it is loaded with: what a model
// file, a checkpoint or a notebook session records to load the same data
// again. Its JSON form is {"name": NAME, "options": {...}} with the options
// under snake_case names (see Options.MarshalJSON); a Spec read back loads
// the same problems, from any folder when its paths are absolute (Abs).
type Spec struct {
	// Name is a name Load accepts: one of Names, or a path.
	Name    string  `json:"name"`
	Options Options `json:"options"`
}

// Load loads the data of the spec (LoadData).
func (s Spec) Load() (*Data, error) { return LoadData(s.Name, s.Options) }

// Abs returns the spec with every path made absolute: the name when it is
// a path rather than one of Names, and the paths of the options (Path,
// TestPath, Conll.TestPath, Horses.Path and CacheDir, Hansards.Path).
func (s Spec) Abs() (Spec, error) {
	var err error
	abs := func(p *string) {
		if *p == "" || err != nil {
			return
		}
		*p, err = filepath.Abs(*p)
	}
	if !slices.Contains(Names, s.Name) {
		abs(&s.Name)
	}
	o := &s.Options
	for _, p := range []*string{&o.Path, &o.TestPath, &o.Conll.TestPath, &o.Horses.Path, &o.Horses.CacheDir, &o.Hansards.Path} {
		abs(p)
	}
	return s, err
}

// optionsJSON is the JSON form of Options: every field under a snake_case
// name, enumerations by their names, and the sub-options present only when
// they are not their zero value.
type optionsJSON struct {
	Path      string         `json:"path,omitempty"`
	TestPath  string         `json:"test_path,omitempty"`
	Split     string         `json:"split,omitempty"`
	NoBias    bool           `json:"no_bias,omitempty"`
	Scaling   Scaling        `json:"scaling,omitempty"`
	Scaler    *Scaler        `json:"scaler,omitempty"`
	SVMLight  *svmlightJSON  `json:"svmlight,omitempty"`
	CSV       *csvJSON       `json:"csv,omitempty"`
	Synthetic *syntheticJSON `json:"synthetic,omitempty"`
	Conll     *conllJSON     `json:"conll,omitempty"`
	Horses    *horsesJSON    `json:"horses,omitempty"`
	Hansards  *hansardsJSON  `json:"hansards,omitempty"`
}

type svmlightJSON struct {
	IndexBase   string `json:"index_base,omitempty"`
	MaxFeatures int    `json:"max_features,omitempty"`
}

type csvJSON struct {
	Comma  string `json:"comma,omitempty"`
	Label  string `json:"label,omitempty"`
	Header string `json:"header,omitempty"`
}

type syntheticJSON struct {
	TrainWords int     `json:"train_words,omitempty"`
	TestWords  int     `json:"test_words,omitempty"`
	Seed       uint64  `json:"seed"`
	MinLen     int     `json:"min_len,omitempty"`
	MaxLen     int     `json:"max_len,omitempty"`
	FlipNoise  float64 `json:"flip_noise,omitempty"`
}

type conllJSON struct {
	Format     *ColumnFormat `json:"format,omitempty"`
	TestPath   string        `json:"test_path,omitempty"`
	MinCount   int           `json:"min_count,omitempty"`
	Templates  []Template    `json:"templates,omitempty"`
	NoBoundary bool          `json:"no_boundary,omitempty"`
}

type horsesJSON struct {
	Path            string           `json:"path,omitempty"`
	Train           int              `json:"train,omitempty"`
	SLIC            *slic.Params     `json:"slic,omitempty"`
	Features        *features.Config `json:"features,omitempty"`
	CodebookSamples int              `json:"codebook_samples,omitempty"`
	CacheDir        string           `json:"cache_dir,omitempty"`
	NoCache         bool             `json:"no_cache,omitempty"`
	Workers         int              `json:"workers,omitempty"`
}

type hansardsJSON struct {
	Path         string `json:"path,omitempty"`
	Training     string `json:"training,omitempty"`
	TrainGold    int    `json:"train_gold,omitempty"`
	Intersected  int    `json:"intersected,omitempty"`
	EMIterations int    `json:"em_iterations,omitempty"`
}

// nonZero returns &v, or nil when v is its type's zero value.
func nonZero[T any](v T) *T {
	if reflect.ValueOf(&v).Elem().IsZero() {
		return nil
	}
	return &v
}

// named returns s.String(), or "" for the zero value (the default, left out).
func named[T interface {
	~int
	fmt.Stringer
}](v T) string {
	if v == 0 {
		return ""
	}
	return v.String()
}

// MarshalJSON writes the options under snake_case names, leaving out what is
// at its zero value (the defaults), e.g.
//
//	{"path":"/data/iris_train.csv","scaling":"standardize","csv":{"label":"species"}}
func (o Options) MarshalJSON() ([]byte, error) {
	j := optionsJSON{Path: o.Path, TestPath: o.TestPath, Split: named(o.Split), NoBias: o.NoBias,
		Scaling: o.Scaling, Scaler: o.Scaler}
	j.SVMLight = nonZero(svmlightJSON{IndexBase: named(o.SVMLight.IndexBase), MaxFeatures: o.SVMLight.MaxFeatures})
	var comma string
	if o.CSV.Comma != 0 {
		comma = string(o.CSV.Comma)
	}
	j.CSV = nonZero(csvJSON{Comma: comma, Label: o.CSV.Label, Header: named(o.CSV.Header)})
	j.Synthetic = nonZero(syntheticJSON(o.Synthetic))
	c := o.Conll
	j.Conll = nonZero(conllJSON{nonZero(c.Format), c.TestPath, c.MinCount, c.Templates, c.NoBoundary})
	h := o.Horses
	j.Horses = nonZero(horsesJSON{h.Path, h.Train, nonZero(h.SLIC), nonZero(h.Features), h.CodebookSamples, h.CacheDir, h.NoCache, h.Workers})
	a := o.Hansards
	j.Hansards = nonZero(hansardsJSON{a.Path, named(a.Training), a.TrainGold, a.Intersected, a.EMIterations})
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes. A field it does not know and
// a name no enumeration has are errors naming them, so that a file written
// by another build, or edited by hand, is refused rather than half read.
func (o *Options) UnmarshalJSON(b []byte) error {
	var j optionsJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("data options: %w", err)
	}
	out := Options{Path: j.Path, TestPath: j.TestPath, NoBias: j.NoBias, Scaling: j.Scaling, Scaler: j.Scaler}
	var err error
	parse := func(s string, p func(string) error) {
		if s != "" && err == nil {
			err = p(s)
		}
	}
	parse(j.Split, func(s string) (e error) { out.Split, e = ParseSplit(s); return })
	if v := j.SVMLight; v != nil {
		out.SVMLight.MaxFeatures = v.MaxFeatures
		parse(v.IndexBase, func(s string) (e error) { out.SVMLight.IndexBase, e = ParseIndexBase(s); return })
	}
	if v := j.CSV; v != nil {
		out.CSV.Label = v.Label
		parse(v.Header, func(s string) (e error) { out.CSV.Header, e = ParseCSVHeader(s); return })
		parse(v.Comma, func(s string) error {
			if r := []rune(s); len(r) == 1 {
				out.CSV.Comma = r[0]
				return nil
			}
			return fmt.Errorf("csv comma %q: want one character", s)
		})
	}
	if v := j.Synthetic; v != nil {
		out.Synthetic = SyntheticConfig(*v)
	}
	if v := j.Conll; v != nil {
		out.Conll = ConllOptions{TestPath: v.TestPath, MinCount: v.MinCount, Templates: v.Templates, NoBoundary: v.NoBoundary}
		if v.Format != nil {
			out.Conll.Format = *v.Format
		}
	}
	if v := j.Horses; v != nil {
		out.Horses = HorsesOptions{Path: v.Path, Train: v.Train, CodebookSamples: v.CodebookSamples, CacheDir: v.CacheDir, NoCache: v.NoCache, Workers: v.Workers}
		if v.SLIC != nil {
			out.Horses.SLIC = *v.SLIC
		}
		if v.Features != nil {
			out.Horses.Features = *v.Features
		}
	}
	if v := j.Hansards; v != nil {
		out.Hansards = HansardsOptions{Path: v.Path, TrainGold: v.TrainGold, Intersected: v.Intersected, EMIterations: v.EMIterations}
		parse(v.Training, func(s string) error {
			for _, t := range []HansardsTraining{HansardsGold, HansardsIntersected} {
				if t.String() == s {
					out.Hansards.Training = t
					return nil
				}
			}
			return fmt.Errorf("unknown Hansards training set %q (want gold or intersected)", s)
		})
	}
	if err != nil {
		return fmt.Errorf("data options: %w", err)
	}
	*o = out
	return nil
}
