package compute

import (
	"errors"
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"

	"lupilab/models/data"
	"lupilab/models/run"
	"lupilab/models/wire"
)

// edited is a request's dataset with the user's edits applied. Every row
// has a stable id: the generated rows 0 … n−1 in their order, added rows
// the next ids in the order they were added; an erased row's id is not
// reused. Edits refer to rows by id, so a link with edits reproduces the
// same data.
type edited struct {
	ds  *data.Dataset
	ids []int // the id of each row of ds
	// base is the generated data before the edits (nil without edits): its
	// split is kept, so that an edit never reshuffles which points train.
	base  *data.Dataset
	baseN int
	gen   string
	noise float64
}

// applyEdits applies ref's edits to the generated dataset ds, in order.
func applyEdits(ds *data.Dataset, ref wire.DataRef) (*edited, error) {
	gen, ok := strings.CutPrefix(ref.Source, "gen:")
	if len(ref.Edits) == 0 {
		ids := make([]int, ds.Rows())
		for i := range ids {
			ids[i] = i
		}
		return &edited{ds: ds, ids: ids, gen: gen, noise: ref.Noise}, nil
	}
	if !ok || !data.Editable(gen) {
		return nil, errors.New("only generated data can be edited point by point")
	}
	if d := ds.Dim(); d != 2 {
		return nil, fmt.Errorf("edits need 2-D data, this has %d features", d)
	}
	e := newEditor(ds, gen, ref.Noise)
	for k, ed := range ref.Edits {
		op, ok := editOps[ed.Op]
		if !ok {
			return nil, fmt.Errorf("edit %d: unknown operation %q", k+1, ed.Op)
		}
		if err := op(e, ed); err != nil {
			return nil, fmt.Errorf("edit %d: %w", k+1, err)
		}
	}
	return e.result()
}

// editRow is a row of the data while the edits are applied.
type editRow struct {
	id    int
	x     [2]float64
	z     []float64
	y     int
	tags  []float64
	hard  float64 // lupi2d: difficulty in [0, 1]
	keepZ bool    // a generated row not moved: its own Z
}

// editor holds the rows of generated data under edit: all rows ever there,
// in order (generated, then added), and the live ones by id.
type editor struct {
	ds    *data.Dataset
	gen   string
	noise float64
	rows  []*editRow
	byID  map[int]*editRow
	next  int // the id of the next added row
}

// editOps applies one edit of each kind.
var editOps = map[string]func(*editor, wire.Edit) error{
	"add":   (*editor).add,
	"move":  (*editor).move,
	"erase": (*editor).erase,
	"hard":  (*editor).paint,
}

func newEditor(ds *data.Dataset, gen string, noise float64) *editor {
	n := ds.Rows()
	e := &editor{ds: ds, gen: gen, noise: noise, rows: make([]*editRow, 0, n), byID: map[int]*editRow{}, next: n}
	for i := 0; i < n; i++ {
		r := &editRow{id: i, x: [2]float64{ds.X.At(i, 0), ds.X.At(i, 1)}, keepZ: true}
		if ds.Z != nil {
			r.z = mat.Row(nil, i, ds.Z)
			if gen == "lupi2d" {
				r.hard = data.LUPI2DDifficulty(noise, r.z[2])
			}
		}
		if ds.Y != nil {
			r.y = ds.Y[i]
		}
		if ds.Tags != nil {
			r.tags = mat.Row(nil, i, ds.Tags)
		}
		e.rows = append(e.rows, r)
		e.byID[i] = r
	}
	return e
}

// row returns the live row with the given id.
func (e *editor) row(id int) (*editRow, error) {
	if r := e.byID[id]; r != nil {
		return r, nil
	}
	return nil, fmt.Errorf("no row %d (erased, or never there)", id)
}

// complete gives a row placed by hand what the generator says of a point
// there: its second block and tags.
func (e *editor) complete(r *editRow) error {
	z, tags, err := data.CompleteRow(e.gen, e.noise, r.x, r.hard)
	if err != nil {
		return err
	}
	if e.ds.Z != nil {
		r.z = z
	}
	if e.ds.Tags != nil {
		r.tags = tags
	}
	r.keepZ = false
	return nil
}

// add places a new row of class ed.Class at ed.X, with the next id.
func (e *editor) add(ed wire.Edit) error {
	if e.ds.Y != nil && (ed.Class < 0 || ed.Class >= len(e.ds.Classes)) {
		return fmt.Errorf("class %d of %d", ed.Class, len(e.ds.Classes))
	}
	r := &editRow{id: e.next, x: ed.X, y: ed.Class}
	e.next++
	if err := e.complete(r); err != nil {
		return err
	}
	e.rows = append(e.rows, r)
	e.byID[r.id] = r
	return nil
}

// move puts row ed.Index at ed.X (its difficulty kept).
func (e *editor) move(ed wire.Edit) error {
	r, err := e.row(ed.Index)
	if err != nil {
		return err
	}
	r.x = ed.X
	return e.complete(r)
}

// erase removes row ed.Index; its id is not reused.
func (e *editor) erase(ed wire.Edit) error {
	r, err := e.row(ed.Index)
	if err != nil {
		return err
	}
	delete(e.byID, r.id)
	return nil
}

// paint sets a LUPI 2-D row's difficulty (the difficulty brush): its
// privileged noise level goes from the easy to the hard level.
func (e *editor) paint(ed wire.Edit) error {
	r, err := e.row(ed.Index)
	if err != nil {
		return err
	}
	if e.gen != "lupi2d" {
		return errors.New("the difficulty brush needs data with privileged noise levels (LUPI 2-D)")
	}
	if !(ed.Value >= 0 && ed.Value <= 1) {
		return fmt.Errorf("difficulty %v must be in [0, 1]", ed.Value)
	}
	r.hard = ed.Value
	easy, hard := data.LUPI2DNoise(e.noise)
	if r.keepZ {
		r.z = append([]float64(nil), r.z...)
	}
	r.z[2] = easy + ed.Value*(hard-easy)
	return nil
}

// result is the edited data: the live rows in order.
func (e *editor) result() (*edited, error) {
	var kept []*editRow
	for _, r := range e.rows {
		if e.byID[r.id] == r {
			kept = append(kept, r)
		}
	}
	if len(kept) < 4 {
		return nil, fmt.Errorf("only %d points are left: keep at least 4", len(kept))
	}
	ds := e.ds
	out := *ds
	out.X = mat.NewDense(len(kept), 2, nil)
	if ds.Z != nil {
		out.Z = mat.NewDense(len(kept), ds.ZDim(), nil)
	}
	if ds.Y != nil {
		out.Y = make([]int, len(kept))
	}
	if ds.Tags != nil {
		out.Tags = mat.NewDense(len(kept), ds.NumTags(), nil)
	}
	ed := &edited{ds: &out, ids: make([]int, len(kept)), base: ds, baseN: ds.Rows(), gen: e.gen, noise: e.noise}
	for i, r := range kept {
		ed.ids[i] = r.id
		out.X.SetRow(i, r.x[:])
		if out.Z != nil {
			out.Z.SetRow(i, r.z)
		}
		if out.Y != nil {
			out.Y[i] = r.y
		}
		if out.Tags != nil {
			out.Tags.SetRow(i, r.tags)
		}
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return ed, nil
}

// split keeps the generated rows on their side of the split of the
// generated data; added rows train.
func (ed *edited) split(sp wire.Split) (*run.Rows, error) {
	tr, _, err := data.StratifiedSplitRows(ed.base, sp.TrainFrac, sp.Seed)
	if err != nil {
		return nil, err
	}
	train := make(map[int]bool, len(tr))
	for _, i := range tr {
		train[i] = true
	}
	rows := &run.Rows{}
	for i, id := range ed.ids {
		if id >= ed.baseN || train[id] {
			rows.Train = append(rows.Train, i)
		} else {
			rows.Test = append(rows.Test, i)
		}
	}
	if len(rows.Test) == 0 || len(rows.Train) == 0 {
		return nil, errors.New("the edits left one side of the split empty")
	}
	return rows, nil
}

// relabel turns the plot's row indices into the rows' stable ids, and
// gives LUPI 2-D points their difficulty (what the privileged noise level
// says, 0 easy to 1 hard).
func (ed *edited) relabel(p *wire.PlotData) {
	for _, pts := range []*wire.Points{&p.Train, &p.Test, p.TrainB, p.TestB} {
		if pts == nil {
			continue
		}
		if ed.gen == "lupi2d" && ed.ds.ZDim() == 3 && len(pts.Row) == len(pts.X) {
			pts.Difficulty = make([]float64, len(pts.Row))
			for i, r := range pts.Row {
				pts.Difficulty[i] = data.LUPI2DDifficulty(ed.noise, ed.ds.Z.At(r, 2))
			}
		}
		for i, r := range pts.Row {
			if r >= 0 && r < len(ed.ids) {
				pts.Row[i] = ed.ids[r]
			}
		}
	}
}
