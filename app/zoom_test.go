package app

import (
	"testing"

	"lupilab/models/wire"
)

// TestZoomMapBelongsToItsResult: a zoomed window's map shows only under
// the result it was computed for (before: after a refit the former model's
// map stayed under the new points until Reset view), and switching the
// data resets the zoom.
func TestZoomMapBelongsToItsResult(t *testing.T) {
	set := Settings{Source: "gen:moons", N: 200, Noise: 0.15, Seed: 1, TrainPct: 70, Model: "svm"}
	first := &shown{set: set, key: set.FitKey(), res: &wire.FitResult{Model: "svm"}, maps: map[string]*mapView{}}
	s := &session{set: set, shown: first}
	s.in.init()
	fr := [4]float64{0, 1, 0, 1}
	s.in.zoom["A"] = &fr
	s.in.zoomMap["A"] = &mapView{g: &wire.GridResult{Frame: fr}, of: first}
	if s.zoomMapFor("A") == nil {
		t.Fatal("the zoom map of the result on screen is not shown")
	}
	s.shown = &shown{set: set, key: set.FitKey(), res: &wire.FitResult{Model: "svm"}, maps: map[string]*mapView{}}
	if s.zoomMapFor("A") != nil {
		t.Error("a new fit shows the former fit's zoom map")
	}
	s.chooseSource("gen:circles")
	if s.in.zoom["A"] != nil || s.in.zoomMap["A"] != nil {
		t.Error("the zoom survived a switch of data")
	}
}
