package wire

import (
	"bytes"
	"math"
	"reflect"
	"testing"
)

func packedFit() *FitResult {
	pts := func(off float64) Points {
		return Points{X: []float64{off + 0.1, 1.0 / 3}, Y: []float64{-2, 1e-300}, Row: []int{4, 1 << 30}, Class: []int{0, 1}, Pred: []int{1, -1},
			Decision: []float64{-1.25, math.Pi}, Views: map[string][]float64{"A": {1, 2}, "B": {3, 4}},
			Prob: []float64{0.2, 0.8}, Difficulty: []float64{0, 1}}
	}
	sub := &Report{Model: "inner", Diagnostics: map[string][]float64{"alpha": {0.5, 0}}}
	tb := pts(10)
	return &FitResult{Model: "svm", Params: map[string]string{"C": "1"}, Saved: `{"format":"lupilab-model","text":"a \"quoted\" line\n"}`,
		Report: Report{Model: "svm", Diagnostics: map[string][]float64{"slack": {0, 0.25}, "alpha": {1, 2}}, Sub: []*Report{sub, nil}},
		Plot:   PlotData{Train: pts(0), Test: pts(5), TrainB: &tb, Maps: []string{"A"}}}
}

// TestPackedFitRoundTrips: a Part's FitResult travels with its arrays and
// saved model in binary parts (not in the JSON text), decodes to what was
// sent, and the sender's result is left as it was.
func TestPackedFitRoundTrips(t *testing.T) {
	fit := packedFit()
	m, err := Encode(3, KindResult, Part{Fit: fit}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fit, packedFit()) {
		t.Error("Encode changed the sender's FitResult")
	}
	for _, text := range []string{"quoted", "3.141592653589793", "0.3333333333333333", "-1.25", `"row":[`, `"class":[`, `"pred":[`} {
		if bytes.Contains(m.Body, []byte(text)) {
			t.Errorf("the JSON body still holds %s: %s", text, m.Body)
		}
	}
	if len(m.Bin) == 0 {
		t.Fatal("no binary parts")
	}
	var p Part
	if _, err := m.Decode(&p); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Fit, packedFit()) {
		t.Errorf("decoded %+v\nwant    %+v", p.Fit, packedFit())
	}
	// A bare *FitResult (the points job's result) packs too.
	m3, err := Encode(3, KindResult, fit, nil)
	if err != nil || len(m3.Bin) != len(m.Bin) || bytes.Contains(m3.Body, []byte("quoted")) {
		t.Errorf("a *FitResult is not packed: %v", err)
	}
	var r FitResult
	if _, err := m3.Decode(&r); err != nil || !reflect.DeepEqual(&r, packedFit()) {
		t.Errorf("a *FitResult decodes to %+v, %v", r, err)
	}
	// A pointer to a Part packs the same way.
	m2, err := Encode(3, KindPart, &Part{Fit: fit}, nil)
	if err != nil || !bytes.Equal(m2.Body, m.Body) || len(m2.Bin) != len(m.Bin) {
		t.Errorf("*Part encodes differently: %v", err)
	}
}

// TestPackedIntsOutOfRange: a row number beyond int32 stays in the JSON
// and still arrives.
func TestPackedIntsOutOfRange(t *testing.T) {
	fit := packedFit()
	fit.Plot.Train.Row = []int{1, 1 << 40}
	m, err := Encode(1, KindResult, Part{Fit: fit}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(m.Body, []byte(`"row":[1,1099511627776]`)) {
		t.Errorf("the wide rows are not in the JSON: %s", m.Body)
	}
	var p Part
	if _, err := m.Decode(&p); err != nil || !reflect.DeepEqual(p.Fit.Plot.Train.Row, fit.Plot.Train.Row) {
		t.Errorf("rows %v, %v", p.Fit.Plot.Train.Row, err)
	}
}

// TestPackedFitRefusesNonFinite: a NaN in a point's decision stays in the
// JSON, which refuses it, so the message fails as it did before packing.
func TestPackedFitRefusesNonFinite(t *testing.T) {
	fit := packedFit()
	fit.Plot.Test.Decision[1] = math.NaN()
	if _, err := Encode(1, KindResult, Part{Fit: fit}, nil); err == nil {
		t.Error("a NaN decision value was encoded")
	}
	fit = packedFit()
	fit.Report.Diagnostics["slack"][0] = math.Inf(1)
	if _, err := Encode(1, KindResult, Part{Fit: fit}, nil); err == nil {
		t.Error("an infinite diagnostic was encoded")
	}
}

// TestPackedFitMissingPart: a message whose binary part is missing is an
// error, not a result with empty arrays.
func TestPackedFitMissingPart(t *testing.T) {
	m, err := Encode(1, KindResult, Part{Fit: packedFit()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Bin = m.Bin[:len(m.Bin)-1]
	var p Part
	if _, err := m.Decode(&p); err == nil {
		t.Error("decoded a message with a missing binary part")
	}
}

// TestPackedContoursRoundTrip: a map's contour paths travel as one float32
// part per contour and come back path by path; a part whose length does not
// match the path lengths is an error.
func TestPackedContoursRoundTrip(t *testing.T) {
	grid := func() *GridResult {
		return &GridResult{View: "A", W: 2, H: 2, Layers: []Layer{{Name: "decision", Kind: LayerDecision, Contours: []Contour{
			{Level: 0, Style: "boundary", Paths: [][]float64{{0, 0.5, 1, 1.25}, {-2, 3, 4, 5, 6, 7}}},
			{Level: 1, Style: "margin", Paths: [][]float64{{0.25, 0.75}}},
		}}}}
	}
	for _, v := range []any{Part{Grid: grid()}, grid()} {
		m, err := Encode(1, KindResult, v, nil)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(m.Body, []byte("1.25")) || len(m.Bin) != 2 {
			t.Errorf("%T: paths still in the JSON (%s) or %d parts", v, m.Body, len(m.Bin))
		}
		var got GridResult
		var into any = &got
		if _, ok := v.(Part); ok {
			into = &Part{}
		}
		if _, err := m.Decode(into); err != nil {
			t.Fatal(err)
		}
		if p, ok := into.(*Part); ok {
			if p.Grid == nil {
				t.Fatal("no grid decoded")
			}
			got = *p.Grid
		}
		if !reflect.DeepEqual(&got, grid()) {
			t.Errorf("%T: decoded %+v", v, got.Layers)
		}
		m.Bin[0] = m.Bin[0][:4*9] // one coordinate short
		if _, err := m.Decode(into); err == nil {
			t.Errorf("%T: a short contour part decoded", v)
		}
	}
}
