package compute

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/wire"
)

// genRef makes generated data and the reference that names it.
func genRef(t *testing.T, name string, n int, edits ...wire.Edit) (*data.Dataset, wire.DataRef) {
	t.Helper()
	ds, err := data.GenerateByName(name, n, 0.2, 5)
	if err != nil {
		t.Fatal(err)
	}
	return ds, wire.DataRef{Source: "gen:" + name, N: n, Noise: 0.2, Seed: 5, Edits: edits}
}

// rowOf returns the row of ed's data with the given id (-1: none).
func rowOf(ed *edited, id int) int {
	for i, v := range ed.ids {
		if v == id {
			return i
		}
	}
	return -1
}

// editsN is the number of generated rows the edit tests start from.
const editsN = 20

// TestApplyEditsKinds checks each kind of canvas edit on its own, against
// what the generators say of a point placed by hand (data.CompleteRow):
// the row's coordinates, class, privileged block and tags, the stable ids,
// and that the generated data is left as it was.
func TestApplyEditsKinds(t *testing.T) {
	for _, c := range []struct {
		name string
		test func(t *testing.T)
	}{
		{"none", editsNone},
		{"add", editsAdd},
		{"move keeps the difficulty", editsMove},
		{"erase", editsErase},
		{"hard", editsHard},
		{"a painted point keeps its difficulty when moved", editsHardThenMove},
		{"tags follow a moved or added point", editsTags},
		{"view B follows a moved point", editsViewB},
		{"ids are never reused", editsIDs},
	} {
		t.Run(c.name, c.test)
	}
}

// lupiLevels are LUPI 2-D's easy and hard noise levels at the tests' noise.
func lupiLevels() (easy, hard float64) { return data.LUPI2DNoise(0.2) }

func editsNone(t *testing.T) {
	const n = editsN
	ds, ref := genRef(t, "lupi2d", n)
	ed, err := applyEdits(ds, ref)
	if err != nil || ed.ds != ds || ed.base != nil || len(ed.ids) != n || ed.ids[n-1] != n-1 || ed.gen != "lupi2d" || ed.noise != 0.2 {
		t.Fatalf("without edits: %+v, %v", ed, err)
	}
}

func editsAdd(t *testing.T) {
	const n = editsN
	easy, _ := lupiLevels() // an added point is easy until the difficulty brush says otherwise
	ds, ref := genRef(t, "lupi2d", n, wire.Edit{Op: "add", X: [2]float64{0.5, -1}, Class: 1})
	ed, err := applyEdits(ds, ref)
	if err != nil {
		t.Fatal(err)
	}
	i := rowOf(ed, n)
	if ed.ds.Rows() != n+1 || i != n || ed.base != ds || ed.baseN != n {
		t.Fatalf("%d rows, the added one at %d, base %v", ed.ds.Rows(), i, ed.base == ds)
	}
	if got := mat.Row(nil, i, ed.ds.X); !slices.Equal(got, []float64{0.5, -1}) || ed.ds.Y[i] != 1 ||
		!slices.Equal(mat.Row(nil, i, ed.ds.Z), []float64{0.5, -1, easy}) {
		t.Errorf("added row: x %v class %d z %v", got, ed.ds.Y[i], mat.Row(nil, i, ed.ds.Z))
	}
	for r := 0; r < n; r++ {
		if !slices.Equal(mat.Row(nil, r, ed.ds.X), mat.Row(nil, r, ds.X)) || !slices.Equal(mat.Row(nil, r, ed.ds.Z), mat.Row(nil, r, ds.Z)) || ed.ds.Y[r] != ds.Y[r] {
			t.Fatalf("generated row %d changed", r)
		}
	}
}

func editsMove(t *testing.T) {
	const n = editsN
	easy, hard := lupiLevels()
	ds, ref := genRef(t, "lupi2d", n, wire.Edit{Op: "move", Index: 3, X: [2]float64{2, 2}})
	orig := mat.Row(nil, 3, ds.Z)
	ed, err := applyEdits(ds, ref)
	if err != nil {
		t.Fatal(err)
	}
	d := data.LUPI2DDifficulty(0.2, orig[2])
	if i := rowOf(ed, 3); i != 3 || !slices.Equal(mat.Row(nil, i, ed.ds.X), []float64{2, 2}) ||
		!slices.Equal(mat.Row(nil, i, ed.ds.Z), []float64{2, 2, easy + d*(hard-easy)}) || ed.ds.Y[i] != ds.Y[3] {
		t.Errorf("moved row %d: x %v z %v (was z %v)", i, mat.Row(nil, i, ed.ds.X), mat.Row(nil, i, ed.ds.Z), orig)
	}
	if !slices.Equal(mat.Row(nil, 3, ds.Z), orig) {
		t.Error("the generated data changed")
	}
}

func editsErase(t *testing.T) {
	const n = editsN
	ds, ref := genRef(t, "moons", n, wire.Edit{Op: "erase", Index: 5})
	ed, err := applyEdits(ds, ref)
	if err != nil {
		t.Fatal(err)
	}
	if ed.ds.Rows() != n-1 || rowOf(ed, 5) != -1 || rowOf(ed, 6) != 5 || ed.ds.Z != nil || ed.ds.Tags != nil {
		t.Fatalf("%d rows, id 5 at %d, id 6 at %d", ed.ds.Rows(), rowOf(ed, 5), rowOf(ed, 6))
	}
	if !slices.Equal(mat.Row(nil, 5, ed.ds.X), mat.Row(nil, 6, ds.X)) || ed.ds.Y[5] != ds.Y[6] {
		t.Error("the rows after the erased one shifted wrongly")
	}
}

func editsHard(t *testing.T) {
	const n = editsN
	easy, hard := lupiLevels()
	ds, ref := genRef(t, "lupi2d", n, wire.Edit{Op: "hard", Index: 2, Value: 0.25})
	orig := mat.Row(nil, 2, ds.Z)
	ed, err := applyEdits(ds, ref)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{orig[0], orig[1], easy + 0.25*(hard-easy)}
	if got := mat.Row(nil, 2, ed.ds.Z); !slices.Equal(got, want) || !slices.Equal(mat.Row(nil, 2, ed.ds.X), mat.Row(nil, 2, ds.X)) {
		t.Errorf("painted row: z %v, want %v", got, want)
	}
	if !slices.Equal(mat.Row(nil, 2, ds.Z), orig) {
		t.Error("the difficulty brush changed the generated data")
	}
}

func editsHardThenMove(t *testing.T) {
	const n = editsN
	easy, hard := lupiLevels()
	ds, ref := genRef(t, "lupi2d", n, wire.Edit{Op: "hard", Index: 2, Value: 0.75}, wire.Edit{Op: "move", Index: 2, X: [2]float64{1, 1}})
	ed, err := applyEdits(ds, ref)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mat.Row(nil, 2, ed.ds.Z), []float64{1, 1, easy + 0.75*(hard-easy)}; !slices.Equal(got, want) {
		t.Errorf("painted then moved: z %v, want %v", got, want)
	}
}

func editsTags(t *testing.T) {
	const n = editsN
	ds, ref := genRef(t, "multilabel2d", n, wire.Edit{Op: "move", Index: 0, X: [2]float64{-1.5, 0.5}}, wire.Edit{Op: "add", X: [2]float64{1, 1}})
	ed, err := applyEdits(ds, ref)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id int
		x  [2]float64
	}{{0, [2]float64{-1.5, 0.5}}, {n, [2]float64{1, 1}}} {
		_, tags, err := data.CompleteRow("multilabel2d", 0.2, c.x, 0)
		if err != nil {
			t.Fatal(err)
		}
		if i := rowOf(ed, c.id); i < 0 || !slices.Equal(mat.Row(nil, i, ed.ds.Tags), tags) {
			t.Errorf("row %d at %v: tags %v, want %v", c.id, c.x, mat.Row(nil, i, ed.ds.Tags), tags)
		}
	}
}

func editsViewB(t *testing.T) {
	const n = editsN
	ds, ref := genRef(t, "twoview2d", n, wire.Edit{Op: "move", Index: 7, X: [2]float64{0.3, -0.4}})
	ed, err := applyEdits(ds, ref)
	if err != nil {
		t.Fatal(err)
	}
	z, _, err := data.CompleteRow("twoview2d", 0.2, [2]float64{0.3, -0.4}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := mat.Row(nil, 7, ed.ds.Z); !slices.Equal(got, z) {
		t.Errorf("view B of the moved point %v, want %v", got, z)
	}
}

func editsIDs(t *testing.T) {
	const n = editsN
	ds, ref := genRef(t, "moons", n, wire.Edit{Op: "add", X: [2]float64{0, 0}}, wire.Edit{Op: "erase", Index: n},
		wire.Edit{Op: "add", X: [2]float64{1, 1}, Class: 1}, wire.Edit{Op: "move", Index: n + 1, X: [2]float64{-1, 0.5}})
	ed, err := applyEdits(ds, ref)
	if err != nil {
		t.Fatal(err)
	}
	i := rowOf(ed, n+1)
	if ed.ds.Rows() != n+1 || rowOf(ed, n) != -1 || i != n || !slices.Equal(mat.Row(nil, i, ed.ds.X), []float64{-1, 0.5}) || ed.ds.Y[i] != 1 {
		t.Errorf("%d rows, id %d at %d, id %d at %d", ed.ds.Rows(), n, rowOf(ed, n), n+1, i)
	}
}

// TestApplyEditsRefused: every bad edit is refused with a message naming
// the problem (and the edit), never a panic.
func TestApplyEditsRefused(t *testing.T) {
	const n = editsN
	wide := func() (*data.Dataset, wire.DataRef) {
		ds, ref := genRef(t, "moons", n, wire.Edit{Op: "erase", Index: 1})
		ds.X = mat.NewDense(n, 3, nil)
		return ds, ref
	}
	for _, c := range []struct {
		name, want string
		data       func() (*data.Dataset, wire.DataRef)
	}{
		{"shipped data", "only generated data", func() (*data.Dataset, wire.DataRef) {
			ds, ref := genRef(t, "moons", n, wire.Edit{Op: "erase", Index: 1})
			ref.Source = "ds:wdbc"
			return ds, ref
		}},
		{"unknown generator", "only generated data", func() (*data.Dataset, wire.DataRef) {
			ds, ref := genRef(t, "moons", n, wire.Edit{Op: "erase", Index: 1})
			ref.Source = "gen:nosuch"
			return ds, ref
		}},
		{"3-D data", "2-D data", wide},
		{"add of a class not there", "edit 1: class 2 of 2", edit(t, "moons", wire.Edit{Op: "add", Class: 2})},
		{"add of a negative class", "edit 1: class -1 of 2", edit(t, "moons", wire.Edit{Op: "add", Class: -1})},
		{"add at NaN", "edit 1: data: an edited point must have finite", edit(t, "moons", wire.Edit{Op: "add", X: [2]float64{math.NaN(), 0}})},
		{"move of a row not there", "edit 1: no row 99", edit(t, "moons", wire.Edit{Op: "move", Index: 99})},
		{"move to infinity", "edit 2: data: an edited point must have finite", edit(t, "moons", wire.Edit{Op: "move", Index: 2}, wire.Edit{Op: "move", Index: 2, X: [2]float64{0, math.Inf(1)}})},
		{"erase twice", "edit 2: no row 4 (erased", edit(t, "moons", wire.Edit{Op: "erase", Index: 4}, wire.Edit{Op: "erase", Index: 4})},
		{"hard of a row not there", "edit 1: no row -1", edit(t, "lupi2d", wire.Edit{Op: "hard", Index: -1, Value: 0.5})},
		{"hard on other data", "edit 1: the difficulty brush needs data with privileged noise levels", edit(t, "twoview2d", wire.Edit{Op: "hard", Index: 1, Value: 0.5})},
		{"hard above 1", "edit 1: difficulty 1.5 must be in [0, 1]", edit(t, "lupi2d", wire.Edit{Op: "hard", Index: 1, Value: 1.5})},
		{"hard NaN", "edit 1: difficulty NaN must be in [0, 1]", edit(t, "lupi2d", wire.Edit{Op: "hard", Index: 1, Value: math.NaN()})},
		{"unknown operation", `edit 2: unknown operation "paint"`, edit(t, "moons", wire.Edit{Op: "erase", Index: 0}, wire.Edit{Op: "paint", Index: 1})},
		{"too few left", "only 3 points are left", func() (*data.Dataset, wire.DataRef) {
			var eds []wire.Edit
			for i := 0; i < n-3; i++ {
				eds = append(eds, wire.Edit{Op: "erase", Index: i})
			}
			return genRef(t, "moons", n, eds...)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds, ref := c.data()
			ed, err := applyEdits(ds, ref)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v (%v), want an error with %q", err, ed, c.want)
			}
		})
	}
}

// edit returns a maker of editsN rows of the named generator with edits.
func edit(t *testing.T, name string, eds ...wire.Edit) func() (*data.Dataset, wire.DataRef) {
	return func() (*data.Dataset, wire.DataRef) { return genRef(t, name, editsN, eds...) }
}
