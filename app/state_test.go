package app

import (
	"math"
	"net/url"
	"reflect"
	"testing"

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
	got, ok := DecodeSettings(q, DefaultSettings())
	if !ok {
		t.Fatal("not decoded")
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
	s, ok := DecodeSettings(q, base)
	if !ok {
		t.Fatal("not decoded")
	}
	if s.Source != base.Source || s.N != base.N || s.Noise != base.Noise || s.Seed != base.Seed || s.TrainPct != base.TrainPct ||
		s.View != base.View || s.Edits != nil {
		t.Errorf("bad values were taken: %+v", s)
	}
	if p := s.Params["svm"]; len(p) != 0 {
		t.Errorf("bad or default parameters were kept: %v", p)
	}
	if _, ok := DecodeSettings(url.Values{"tab": {"papers"}}, base); ok {
		t.Error("a query without settings was taken for settings")
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
