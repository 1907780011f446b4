package app

import (
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"lupilab/models/datasets"
	"lupilab/models/spec"
	"lupilab/models/wire"
)

// Settings is everything a playground result depends on, and what a link
// carries: the data (a generator with its size, noise and seed, a shipped
// dataset, or an upload), the user's edits of the points, the split, the
// model and its parameters. The URL and local storage hold it as query
// values (Encode / DecodeSettings); the browser tests and the unit tests
// rely on that form.
type Settings struct {
	Source   string  // "gen:<name>", "ds:<name>" or "up:<file name>"
	N        int     // generators: samples
	Noise    float64 // generators: noise
	Seed     int64   // data seed (generators) and split seed
	TrainPct int     // training share of the split, in percent
	Model    string
	// Params holds, per model, the parameters that differ from its
	// defaults (switching models keeps each one's settings).
	Params map[string]map[string]string
	View   string // "model", "compare" or "tune"
	Edits  []wire.Edit
}

// Ranges of the playground's data settings (the form refuses values outside
// them with a message that states the range).
const (
	MinN, MaxN         = 10, 5000
	MinNoise, MaxNoise = 0.0, 2.0
	MinTrain, MaxTrain = 10, 90
	MaxSeed            = 1_000_000_000
	MaxEdits           = 2000
)

// DefaultSettings is the first visit's playground: SVM on two moons, at
// the generator's own size and noise (those the data panel sets when two
// moons is chosen again, so that coming back to it changes nothing).
func DefaultSettings() Settings {
	g, _ := datasets.GeneratorByName("moons")
	return Settings{Source: "gen:moons", N: g.DefaultN, Noise: g.DefaultNoise, Seed: 1, TrainPct: 70, Model: "svm",
		Params: map[string]map[string]string{}, View: "model"}
}

// Clone returns a deep copy.
func (s Settings) Clone() Settings {
	c := s
	c.Params = map[string]map[string]string{}
	for id, v := range s.Params {
		m := map[string]string{}
		for k, x := range v {
			m[k] = x
		}
		c.Params[id] = m
	}
	c.Edits = append([]wire.Edit(nil), s.Edits...)
	return c
}

// Values returns the current model's parameters: its defaults completed with
// the user's settings.
func (s Settings) Values() spec.Values {
	m, err := spec.Lookup(s.Model)
	if err != nil {
		return spec.Values{}
	}
	v := m.Defaults()
	for k, x := range s.Params[s.Model] {
		v[k] = x
	}
	return v
}

// SetParam records a parameter of the current model (a default value is
// not recorded, so links stay short).
func (s *Settings) SetParam(name, value string) {
	if s.Params == nil {
		s.Params = map[string]map[string]string{}
	}
	m, err := spec.Lookup(s.Model)
	if err != nil {
		return
	}
	p := s.Params[s.Model]
	if p == nil {
		p = map[string]string{}
		s.Params[s.Model] = p
	}
	if par := m.Param(name); par != nil && par.Default == value {
		delete(p, name)
		return
	}
	p[name] = value
}

// Data returns the DataRef of the settings (csv: an upload's canonical CSV).
func (s Settings) Data(csv string) wire.DataRef {
	ref := wire.DataRef{Source: s.Source, Seed: s.Seed, Edits: s.Edits}
	switch {
	case strings.HasPrefix(s.Source, "gen:"):
		ref.N, ref.Noise = s.N, s.Noise
	case strings.HasPrefix(s.Source, "up:"):
		ref.CSV = csv
	}
	return ref
}

// Split returns the split of the settings.
func (s Settings) Split() wire.Split {
	return wire.Split{TrainFrac: float64(s.TrainPct) / 100, Seed: s.Seed, Scale: "standard"}
}

// IsGenerated reports whether the data comes from a generator.
func (s Settings) IsGenerated() bool { return strings.HasPrefix(s.Source, "gen:") }

// DataKey identifies the data and split (not the model).
func (s Settings) DataKey() string {
	q := s.encodeData()
	return q.Encode()
}

// FitKey identifies everything a fit depends on: data, split, model and its
// parameters. Two settings with the same FitKey give the same result.
func (s Settings) FitKey() string {
	q := s.encodeData()
	q.Set("model", s.Model)
	for k, v := range s.Params[s.Model] {
		q.Set("p."+k, v)
	}
	return q.Encode()
}

func (s Settings) encodeData() url.Values {
	q := url.Values{}
	q.Set("data", s.Source)
	if s.IsGenerated() {
		q.Set("n", strconv.Itoa(s.N))
		q.Set("noise", strconv.FormatFloat(s.Noise, 'g', -1, 64))
	}
	q.Set("seed", strconv.FormatInt(s.Seed, 10))
	q.Set("train", strconv.Itoa(s.TrainPct))
	if len(s.Edits) > 0 {
		q.Set("edits", EncodeEdits(s.Edits))
	}
	return q
}

// Encode writes the settings as query values: data, split, model, the
// model's non-default parameters ("p.<name>") and the view.
func (s Settings) Encode() url.Values {
	q := s.encodeData()
	q.Set("model", s.Model)
	for k, v := range s.Params[s.Model] {
		q.Set("p."+k, v)
	}
	if s.View != "" && s.View != "model" {
		q.Set("view", s.View)
	}
	return q
}

// Ignored is a part of an address that DecodeSettings did not use: the
// query key and value, and why, with what is used instead.
type Ignored struct {
	Key, Value string
	Why        string
}

// String says it in words, for the playground's notice.
func (g Ignored) String() string {
	if g.Value == "" {
		return g.Key + ": " + g.Why
	}
	return fmt.Sprintf("%s = %q: %s", g.Key, g.Value, g.Why)
}

// settingsKeys are the query keys Encode writes (besides "p.<name>"), in
// the order DecodeSettings reports them; "tab" is the shell's.
var settingsKeys = []string{"data", "n", "noise", "seed", "train", "model", "view", "edits"}

// LinkQuery reads a page address's query. The point edits' ";" (which
// Encode escapes, but someone typing or pasting a link may not) is part of
// a value, not a separator: net/url drops a pair that holds one. A part
// that cannot be read at all (a bad %-escape) is reported.
func LinkQuery(raw string) (url.Values, []Ignored) {
	q, err := url.ParseQuery(strings.ReplaceAll(raw, ";", "%3B"))
	if err != nil {
		return q, []Ignored{{Key: "address", Why: "a part could not be read (" + err.Error() + ") and was left out"}}
	}
	return q, nil
}

// DecodeSettings reads settings written by Encode on top of base. Unknown or
// invalid values are not used (a hand-edited link never breaks the app):
// ignored lists each of them, why, and what is used instead. A model's
// parameter is read as "p.<name>" or, when no setting has that name, as
// "<name>" (what someone typing a link writes). ok is false when q holds
// no settings at all (no data and no model): base is then returned, and
// every key but "tab" is reported.
func DecodeSettings(q url.Values, base Settings) (s Settings, ignored []Ignored, ok bool) {
	s = base.Clone()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ignore := func(key, why string, args ...any) {
		ignored = append(ignored, Ignored{Key: key, Value: q.Get(key), Why: fmt.Sprintf(why, args...)})
	}
	if q.Get("data") == "" && q.Get("model") == "" {
		for _, k := range keys {
			if k != "tab" {
				ignore(k, "not used: a link's settings are read when it names its data or model, and it names neither")
			}
		}
		return s, ignored, false
	}
	has := func(key string) bool { _, ok := q[key]; return ok }
	if v := q.Get("data"); validSource(v) {
		s.Source = v
	} else if has("data") {
		s.Source = "gen:" + fallbackGenerator(q.Get("model"), base)
		ignore("data", "no such data; %s is used instead", generatorTitle(s.Source))
	}
	if n, err := strconv.Atoi(q.Get("n")); err == nil && n >= MinN && n <= MaxN {
		s.N = n
	} else if has("n") {
		ignore("n", "the number of samples must be a whole number from %d to %d; %d is used", MinN, MaxN, s.N)
	}
	if f, err := strconv.ParseFloat(q.Get("noise"), 64); err == nil && f >= MinNoise && f <= MaxNoise {
		s.Noise = f
	} else if has("noise") {
		ignore("noise", "the noise must be a number from %g to %g; %g is used", MinNoise, MaxNoise, s.Noise)
	}
	if v, err := strconv.ParseInt(q.Get("seed"), 10, 64); err == nil && v >= 0 && v <= MaxSeed {
		s.Seed = v
	} else if has("seed") {
		ignore("seed", "the seed must be a whole number from 0 to %d; %d is used", MaxSeed, s.Seed)
	}
	if t, err := strconv.Atoi(q.Get("train")); err == nil && t >= MinTrain && t <= MaxTrain {
		s.TrainPct = t
	} else if has("train") {
		ignore("train", "the training share must be a whole number of percent from %d to %d; %d is used", MinTrain, MaxTrain, s.TrainPct)
	}
	if v := q.Get("view"); v == "compare" || v == "tune" || v == "model" {
		s.View = v
	} else if has("view") {
		ignore("view", "the views are model, compare and tune; the %s view is shown", s.View)
	}
	s.Edits = nil
	if e, err := DecodeEdits(q.Get("edits")); err == nil {
		s.Edits = e
	} else {
		ignore("edits", "%v; the points are used without edits", err)
	}
	if id := q.Get("model"); id != "" {
		if _, err := spec.Lookup(id); err == nil {
			s.Model = id
		} else {
			ignore("model", "no such model; %s is used instead", modelName(s.Model))
		}
	} else if has("model") {
		ignore("model", "no model named; %s is used", modelName(s.Model))
	}
	known := map[string]bool{"tab": true}
	for _, k := range settingsKeys {
		known[k] = true
	}
	m, err := spec.Lookup(s.Model)
	if err != nil {
		return s, ignored, true
	}
	p := map[string]string{}
	// "p.<name>" first, then bare names not already set
	for _, bare := range []bool{false, true} {
		for _, k := range keys {
			name, isParam := strings.CutPrefix(k, "p.")
			if bare == isParam || known[k] {
				continue
			}
			par := m.Param(name)
			if par == nil {
				if isParam {
					ignore(k, "%s has no parameter %s", m.Name, name)
				} else {
					ignore(k, "not a setting of this page, nor a parameter of %s", m.Name)
				}
				continue
			}
			if _, set := p[par.Name]; set && bare {
				ignore(k, "%s is set by p.%s", par.Name, par.Name)
				continue
			}
			if err := par.Validate(q.Get(k)); err != nil {
				// "parameter C: "abc" is not a number" → "not a number"
				why := err.Error()
				if _, after, ok := strings.Cut(why, " is "); ok {
					why = after
				}
				ignore(k, "%s; %s", why, defaultUsed(par))
				continue
			}
			p[par.Name] = q.Get(k)
		}
	}
	for k, v := range p {
		if m.Param(k).Default == v {
			delete(p, k)
		}
	}
	s.Params[s.Model] = p
	return s, ignored, true
}

// defaultUsed says that a parameter keeps its default.
func defaultUsed(par *spec.Param) string {
	if par.Default == "" {
		return "its default is used"
	}
	return "the default " + par.Default + " is used"
}

// fallbackGenerator is the generator used when a link's data is not
// understood: one the link's model can use, else base's.
func fallbackGenerator(model string, base Settings) string {
	if m, err := spec.Lookup(model); err == nil {
		return m.DefaultGenerator()
	}
	if g, ok := strings.CutPrefix(base.Source, "gen:"); ok {
		return g
	}
	return DefaultSettings().Source[len("gen:"):]
}

// generatorTitle is the display name of a "gen:" source.
func generatorTitle(source string) string {
	g, _ := datasets.GeneratorByName(strings.TrimPrefix(source, "gen:"))
	return g.Title
}

// modelName is a model's display name (its id when it has none).
func modelName(id string) string {
	if m, err := spec.Lookup(id); err == nil {
		return m.Name
	}
	return id
}

func validSource(v string) bool {
	if g, ok := strings.CutPrefix(v, "gen:"); ok {
		_, known := datasets.GeneratorByName(g)
		return known
	}
	return (strings.HasPrefix(v, "ds:") || strings.HasPrefix(v, "up:")) && len(v) > 3 && len(v) < 200
}

// EncodeEdits writes edits compactly: ops separated by ";", each a letter
// and numbers ("a" add x,y,class; "m" move i,x,y; "x" erase i; "h" hard
// i,value), coordinates to four significant digits.
func EncodeEdits(edits []wire.Edit) string {
	parts := make([]string, 0, len(edits))
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
	for _, e := range edits {
		switch e.Op {
		case "add":
			parts = append(parts, fmt.Sprintf("a%s,%s,%d", num(e.X[0]), num(e.X[1]), e.Class))
		case "move":
			parts = append(parts, fmt.Sprintf("m%d,%s,%s", e.Index, num(e.X[0]), num(e.X[1])))
		case "erase":
			parts = append(parts, fmt.Sprintf("x%d", e.Index))
		case "hard":
			parts = append(parts, fmt.Sprintf("h%d,%s", e.Index, num(e.Value)))
		}
	}
	return strings.Join(parts, ";")
}

// DecodeEdits reads EncodeEdits' form.
func DecodeEdits(s string) ([]wire.Edit, error) {
	if s == "" {
		return nil, nil
	}
	var out []wire.Edit
	for _, p := range strings.Split(s, ";") {
		if p == "" {
			continue
		}
		if len(out) >= MaxEdits {
			return nil, fmt.Errorf("more than %d edits", MaxEdits)
		}
		f := strings.Split(p[1:], ",")
		nums := make([]float64, len(f))
		for i, x := range f {
			v, err := strconv.ParseFloat(x, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e6 {
				return nil, fmt.Errorf("edit %q: bad number %q", p, x)
			}
			nums[i] = v
		}
		idx := func(x float64) (int, error) {
			if x < 0 || x != math.Trunc(x) || x > 1e7 {
				return 0, fmt.Errorf("edit %q: bad row %v", p, x)
			}
			return int(x), nil
		}
		var e wire.Edit
		var err error
		switch {
		case p[0] == 'a' && len(nums) == 3:
			e = wire.Edit{Op: "add", X: [2]float64{nums[0], nums[1]}}
			e.Class, err = idx(nums[2])
		case p[0] == 'm' && len(nums) == 3:
			e = wire.Edit{Op: "move", X: [2]float64{nums[1], nums[2]}}
			e.Index, err = idx(nums[0])
		case p[0] == 'x' && len(nums) == 1:
			e = wire.Edit{Op: "erase"}
			e.Index, err = idx(nums[0])
		case p[0] == 'h' && len(nums) == 2 && nums[1] >= 0 && nums[1] <= 1:
			e = wire.Edit{Op: "hard", Value: nums[1]}
			e.Index, err = idx(nums[0])
		default:
			return nil, fmt.Errorf("edit %q is not understood", p)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Describe says in words what a fit key's settings are (for "computed on …"
// labels): data, model and the parameters that differ from the defaults.
func (s Settings) Describe() string {
	var parts []string
	parts = append(parts, s.DataLabel())
	m, err := spec.Lookup(s.Model)
	name := s.Model
	if err == nil {
		name = m.Name
	}
	p := s.Params[s.Model]
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var ps []string
	for _, k := range keys {
		label := k
		if err == nil {
			if par := m.Param(k); par != nil && par.Label != "" {
				label = par.Label
			}
		}
		ps = append(ps, label+" = "+p[k])
	}
	if len(ps) > 0 {
		name += " (" + strings.Join(ps, ", ") + ")"
	}
	return strings.Join(append(parts, name), ", ")
}

// DataLabel names the data in words.
func (s Settings) DataLabel() string {
	switch {
	case s.IsGenerated():
		g, _ := datasets.GeneratorByName(strings.TrimPrefix(s.Source, "gen:"))
		l := fmt.Sprintf("%s (n = %d, noise %g, seed %d)", g.Title, s.N, s.Noise, s.Seed)
		if len(s.Edits) > 0 {
			l += fmt.Sprintf(", %d edits", len(s.Edits))
		}
		return l
	case strings.HasPrefix(s.Source, "ds:"):
		name := strings.TrimPrefix(s.Source, "ds:")
		if t := datasetTitles[name]; t != "" {
			return t
		}
		return name // the index has not loaded (or failed to): the name is all there is
	}
	return "your file " + strings.TrimPrefix(s.Source, "up:")
}

// datasetTitles maps the shipped datasets' names to the titles the data
// picker shows, from the dataset index once it has loaded (setDatasetIndex):
// words for people (DataLabel), where links carry the names.
var datasetTitles map[string]string

// setDatasetIndex records the titles of the shipped datasets.
func setDatasetIndex(idx []datasets.IndexEntry) {
	t := make(map[string]string, len(idx))
	for _, e := range idx {
		t[e.Name] = e.Title
	}
	datasetTitles = t
}
