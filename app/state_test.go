package app

import (
	"math"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"lupilab/models/datasets"
	"lupilab/models/wire"
)

func TestSettingsRoundTrip(t *testing.T) {
	s := DefaultSettings()
	s.Source, s.N, s.Noise, s.Seed, s.TrainPct = "gen:lupi2d", 350, 0.35, 42, 60
	s.Model = "svm2plus"
	s.SetParam("C", "10")
	s.SetParam("lambda", "1") // the default: not recorded
	s.View = "tune"
	s.Edits = []wire.Edit{{Op: "add", X: [2]float64{0.125, -1.5}, Class: 1}, {Op: "move", Index: 3, X: [2]float64{2, 3}},
		{Op: "erase", Index: 7}, {Op: "hard", Index: 2, Value: 0.75}}
	q := s.Encode()
	if q.Get("p.lambda") != "" {
		t.Errorf("a default parameter went into the link: %v", q)
	}
	got, ignored, ok := DecodeSettings(q, DefaultSettings())
	if !ok || len(ignored) > 0 {
		t.Fatalf("not decoded (ok %v), or parts ignored: %v", ok, ignored)
	}
	if got.Source != s.Source || got.N != s.N || got.Noise != s.Noise || got.Seed != s.Seed || got.TrainPct != s.TrainPct ||
		got.Model != s.Model || got.View != s.View || !reflect.DeepEqual(got.Edits, s.Edits) ||
		!reflect.DeepEqual(got.Params["svm2plus"], map[string]string{"C": "10"}) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, s)
	}
	if got.FitKey() != s.FitKey() {
		t.Errorf("fit keys differ: %s vs %s", got.FitKey(), s.FitKey())
	}
	if v := got.Values(); v["C"] != "10" || v["lambda"] != "1" || v["kernel"] != "rbf" {
		t.Errorf("Values = %v", v)
	}
}

func TestDecodeIgnoresBadValues(t *testing.T) {
	base := DefaultSettings()
	q, _ := url.ParseQuery("data=gen:nosuch&n=999999&noise=-1&seed=-3&train=95&model=svm&p.C=-5&p.kernel=rbf&p.bogus=1&view=weird&edits=zz")
	s, ignored, ok := DecodeSettings(q, base)
	if !ok {
		t.Fatal("not decoded")
	}
	var keys []string
	for _, g := range ignored {
		keys = append(keys, g.Key)
	}
	// every bad value is reported once; p.kernel=rbf is the default, and
	// taken (it just needs no recording)
	if want := []string{"data", "n", "noise", "seed", "train", "view", "edits", "p.C", "p.bogus"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("reported %v, want %v:\n%v", keys, want, ignored)
	}
	if s.Source != base.Source || s.N != base.N || s.Noise != base.Noise || s.Seed != base.Seed || s.TrainPct != base.TrainPct ||
		s.View != base.View || s.Edits != nil {
		t.Errorf("bad values were taken: %+v", s)
	}
	if p := s.Params["svm"]; len(p) != 0 {
		t.Errorf("bad or default parameters were kept: %v", p)
	}
	if _, ignored, ok := DecodeSettings(url.Values{"tab": {"papers"}}, base); ok || len(ignored) > 0 {
		t.Errorf("a query without settings was taken for settings (%v), or its tab reported: %v", ok, ignored)
	}
}

func TestFitKeySeparatesWhatMatters(t *testing.T) {
	a := DefaultSettings()
	b := a.Clone()
	b.View = "compare"
	if a.FitKey() != b.FitKey() {
		t.Error("the view changed the fit key")
	}
	b.SetParam("C", "2")
	if a.FitKey() == b.FitKey() {
		t.Error("a parameter did not change the fit key")
	}
	c := a.Clone()
	c.Model = "l2svm"
	c.SetParam("C", "2")
	if a.FitKey() == c.FitKey() || a.DataKey() != c.DataKey() {
		t.Error("the model should change the fit key but not the data key")
	}
	d := a.Clone()
	d.Edits = []wire.Edit{{Op: "erase", Index: 1}}
	if a.DataKey() == d.DataKey() {
		t.Error("an edit did not change the data key")
	}
}

func TestDecodeEditsRejects(t *testing.T) {
	for _, s := range []string{"a1,2", "m-1,0,0", "x1.5", "h1,2", "q1", "a1,NaN,0", "a1e9,0,0"} {
		if _, err := DecodeEdits(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// TestColourTable checks that the map's colour table gives the colours of
// the scale itself to within a step of the table.
func TestColourTable(t *testing.T) {
	for _, sc := range []scale{{kind: "diverging", lo: -2, hi: 3}, {kind: "prob"}, {kind: "sequential", lo: 0, hi: 5}} {
		lo, hi := sc.span()
		v := []float64{lo, hi, (lo + hi) / 2, lo - 10, hi + 10, lo + (hi-lo)*0.3}
		img := sc.rgbaImage(v)
		for i, x := range v {
			want := sc.colour(math.Max(lo, math.Min(hi, x)))
			got := rgb{img[4*i], img[4*i+1], img[4*i+2]}
			d := math.Abs(float64(got.r)-float64(want.r)) + math.Abs(float64(got.g)-float64(want.g)) + math.Abs(float64(got.b)-float64(want.b))
			if d > 3 {
				t.Errorf("%s at %v: table %v, scale %v", sc.kind, x, got, want)
			}
		}
	}
}

// A link that is partly wrong keeps what is right and reports each wrong
// part with what is used instead; a parameter may be written without its
// "p." prefix, as someone typing a link would.
func TestDecodeReportsWhatItIgnores(t *testing.T) {
	q, _ := url.ParseQuery("data=gen:nope&model=zzz&C=abc&n=300&seed=7")
	s, ignored, ok := DecodeSettings(q, DefaultSettings())
	if !ok {
		t.Fatal("not decoded")
	}
	if s.Source != "gen:moons" || s.Model != "svm" || s.N != 300 || s.Seed != 7 || len(s.Params["svm"]) != 0 {
		t.Errorf("decoded %+v: want two moons, SVM, n = 300, seed 7 and no parameters", s)
	}
	want := []Ignored{
		{Key: "data", Value: "gen:nope", Why: "no such data; Two moons is used instead"},
		{Key: "model", Value: "zzz", Why: "no such model; SVM is used instead"},
		{Key: "C", Value: "abc", Why: "not a number; the default 1 is used"},
	}
	if !reflect.DeepEqual(ignored, want) {
		t.Errorf("reported\n%v\nwant\n%v", ignored, want)
	}
	if got := want[0].String(); got != `data = "gen:nope": no such data; Two moons is used instead` {
		t.Errorf("String() = %s", got)
	}

	// unknown data with a model that needs privileged features: data it
	// can use, and the valid parameter kept (bare or prefixed)
	q, _ = url.ParseQuery("data=gen:nope&model=svm2plus&C=10&p.gamma=0.5&zz=1")
	s, ignored, _ = DecodeSettings(q, DefaultSettings())
	if s.Source != "gen:lupi2d" || s.Model != "svm2plus" || !reflect.DeepEqual(s.Params["svm2plus"], map[string]string{"C": "10", "gamma": "0.5"}) {
		t.Errorf("decoded %+v", s)
	}
	if len(ignored) != 2 || ignored[0].Key != "data" || ignored[1].Key != "zz" ||
		!strings.Contains(ignored[0].Why, "LUPI 2-D") || !strings.Contains(ignored[1].Why, "not a setting") {
		t.Errorf("reported %v", ignored)
	}

	// a query with no data and no model is not a link's settings: what
	// it holds is reported, the shell's tab aside
	_, ignored, ok = DecodeSettings(url.Values{"view": {"tune"}, "tab": {"play"}}, DefaultSettings())
	if ok || len(ignored) != 1 || ignored[0].Key != "view" {
		t.Errorf("ok %v, reported %v", ok, ignored)
	}
}

// Result titles name a shipped dataset by the title the data picker shows,
// not by the name links carry.
func TestDescribeNamesDatasets(t *testing.T) {
	old := datasetTitles
	defer func() { datasetTitles = old }()
	s := DefaultSettings()
	s.Source = "ds:wdbc"
	setDatasetIndex([]datasets.IndexEntry{{Name: "wdbc", Title: "Breast cancer (WDBC)"}})
	if got := s.Describe(); got != "Breast cancer (WDBC), SVM" {
		t.Errorf("Describe() = %q", got)
	}
	s.Source = "gen:lupi2d"
	if got := s.DataLabel(); !strings.HasPrefix(got, "LUPI 2-D (privileged clean coordinates) (n = 200") {
		t.Errorf("DataLabel() = %q", got)
	}
}

// A link's point edits may hold a plain ";" (net/url would drop the whole
// pair); an unreadable part is reported.
func TestLinkQuery(t *testing.T) {
	q, bad := LinkQuery("data=gen:moons&model=svm&edits=a0.5,0.5,1;x3&seed=2")
	if len(bad) > 0 || q.Get("edits") != "a0.5,0.5,1;x3" || q.Get("seed") != "2" {
		t.Errorf("read %v, reported %v", q, bad)
	}
	s, ignored, _ := DecodeSettings(q, DefaultSettings())
	if len(ignored) > 0 || len(s.Edits) != 2 {
		t.Errorf("edits %v, reported %v", s.Edits, ignored)
	}
	q, bad = LinkQuery("data=gen:moons&model=svm&p.C=%zz&seed=2")
	if len(bad) != 1 || q.Get("seed") != "2" || q.Get("model") != "svm" {
		t.Errorf("read %v, reported %v", q, bad)
	}
}

// TestDefaultSettingsAreTheGeneratorsDefaults: the first visit's two moons
// have the size and noise the data panel gives two moons when it is chosen
// (before, 0.2 on the first visit and 0.15 after choosing another dataset
// and coming back, with no word of the change).
func TestDefaultSettingsAreTheGeneratorsDefaults(t *testing.T) {
	d := DefaultSettings()
	g, ok := datasets.GeneratorByName(strings.TrimPrefix(d.Source, "gen:"))
	if !ok || d.N != g.DefaultN || d.Noise != g.DefaultNoise {
		t.Errorf("first visit: n = %d, noise = %g; the generator's defaults: %d, %g", d.N, d.Noise, g.DefaultN, g.DefaultNoise)
	}
}

// TestClassImageFollowsTheMargins: a multi-class map painted from its
// margins puts the border between two classes where the margins'
// interpolate crosses 0, to a pixel, on every row — not in steps of a
// cell, as the cells' own colours do.
func TestClassImageFollowsTheMargins(t *testing.T) {
	const w, h = 12, 12
	sc := scale{kind: "classes", n: 3}
	// class 1 right of the line x = 0.37·y + 2.21 (cell-centre units),
	// class 0 left of it, class 2 nowhere
	m := [][]float64{make([]float64, w*h), make([]float64, w*h), make([]float64, w*h)}
	labels := make([]float64, w*h)
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			d := float64(i) - (0.37*float64(j) + 2.21)
			m[0][j*w+i], m[1][j*w+i], m[2][j*w+i] = -d, d, -5
			if d > 0 {
				labels[j*w+i] = 1
			}
		}
	}
	img, iw, ih := sc.classImage(m, labels, w, h)
	f := iw / w
	if f < 8 || ih != h*f || len(img) != 4*iw*ih {
		t.Fatalf("image %d×%d (%d bytes) for %d×%d cells", iw, ih, len(img), w, h)
	}
	c1 := sc.colour(1)
	for v := 0; v < ih; v++ {
		first := -1
		for u := 0; u < iw; u++ {
			o := 4 * (v*iw + u)
			if (rgb{img[o], img[o+1], img[o+2]}) == c1 {
				first = u
				break
			}
		}
		y := (float64(v)+0.5)/float64(f) - 0.5
		want := float64(f)*(0.37*math.Max(0, math.Min(h-1, y))+2.21+0.5) - 0.5
		if math.Abs(float64(first)-want) > 1 {
			t.Fatalf("row %d: class 1 starts at pixel %d, the margins' border is at %.1f", v, first, want)
		}
	}
}
