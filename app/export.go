package app

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/spec"
	"lupilab/models/wire"
)

// ImportLimit is the largest model file the import reads.
const ImportLimit = 32 << 20

// textDownloadLimit caps the test hook's copy of a text download.
const textDownloadLimit = 8 << 20

// ExportBar offers downloads of the result on screen and model import.
//
// Every download is made in the tab (Blob + a temporary <a download>);
// nothing goes to the server. The figure exports are drawn anew at twice
// the resolution with a title, axes, the colour bar and the legend (PNG) or
// as vector paths and text (SVG). Element ids: export-model, export-csv,
// export-png, export-svg, import-model (file input), export-status,
// export-error.
//
// Test hook: each download sets window.__lupiLastDownload = {name, size},
// and a text download (model JSON, results CSV, SVG) also sets
// window.__lupiLastDownloadText to its content (up to 8 MB).
type ExportBar struct {
	app.Compo
	S *session

	busy bool
}

// Render implements app.Composer.
func (x *ExportBar) Render() app.UI {
	sh := x.S.shown
	none := sh == nil || sh.res == nil
	noModel := none || sh.res.Saved == ""
	return app.Div().Class("exportbar").Body(
		app.Div().Class("actions wrap").Body(
			app.Button().ID("export-model").Text("Export model").Disabled(noModel).
				Title("The fitted model as versioned JSON, with the feature scaling of its training rows (lupi predict and Import model read it)").OnClick(x.onModel),
			app.Button().ID("export-csv").Text("Results CSV").Disabled(none || x.busy).
				Title("One row per training and test sample: true and predicted class, decision value, features as the model saw them").OnClick(x.onCSV),
			app.Button().ID("export-png").Text("Figure PNG").Disabled(none).Title("The figure at twice the screen resolution, with title, axes and legend").OnClick(x.onPNG),
			app.Button().ID("export-svg").Text("Figure SVG").Disabled(none).Title("The figure as vector graphics").OnClick(x.onSVG),
			app.Label().For("import-model").Class("button filebutton").Body(
				app.Text("Import model…"),
				app.Input().Type("file").ID("import-model").Class("visually-hidden").Accept(".json,application/json").OnChange(x.onImport),
			),
		),
		app.If(x.S.exportStatus != "", app.P().ID("export-status").Class("help").Aria("live", "polite").Text(x.S.exportStatus)),
		app.If(x.S.exportErr != "", app.P().ID("export-error").Class("error").Aria("live", "polite").Text(x.S.exportErr)),
	)
}

func (x *ExportBar) fail(format string, args ...any) {
	x.S.exportErr, x.S.exportStatus = fmt.Sprintf(format, args...), ""
	x.S.refresh()
}

func (x *ExportBar) ok(format string, args ...any) {
	x.S.exportErr, x.S.exportStatus = "", fmt.Sprintf(format, args...)
	x.S.refresh()
}

// OnMount registers the bar.
func (x *ExportBar) OnMount(ctx app.Context) { x.S.register(x) }

// OnDismount unregisters it.
func (x *ExportBar) OnDismount() { x.S.unregister(x) }

func (x *ExportBar) onModel(ctx app.Context, e app.Event) {
	sh := x.S.shown
	if sh == nil || sh.res.Saved == "" {
		x.fail("Train a model first.")
		return
	}
	name := sh.res.Model + ".lupi.json"
	download(ctx, name, "application/json", []byte(sh.res.Saved))
	x.ok("Downloaded %s (%s). It takes the raw features: the scaling fitted on the training rows is inside.", name, byteSize(len(sh.res.Saved)))
}

func (x *ExportBar) onCSV(ctx app.Context, e app.Event) {
	s := x.S
	sh := s.shown
	if sh == nil {
		return
	}
	x.busy = true
	x.ok("Preparing the results file…")
	req := wire.ModelRequest{Handle: sh.res.Handle, Saved: sh.res.Saved, Data: sh.set.Data(s.csv()), Split: sh.set.Split()}
	Submit(ctx, wire.KindResultsCSV, req, nil, JobOptions{Priority: PriorityInteractive, Affinity: &sh.worker,
		OnEnd: func(ctx app.Context, m wire.Message, w Affinity) {
			x.busy = false
			var t wire.TextResult
			if _, _, err := decodeEnd(m, &t); err != nil {
				x.fail("Results CSV: %v", err)
				return
			}
			download(ctx, t.Name, "text/csv", []byte(t.Text))
			note := ""
			if req.Split.Scale == "standard" {
				// the figure's axes are in the data's units
				note = " Its x: and z: columns are the features as the model saw them: standardized with the training rows' means and deviations (the exported model's scaler), not in the figure's units."
			}
			x.ok("Downloaded %s (%s).%s", t.Name, byteSize(len(t.Text)), note)
		}})
}

// exportFigures lays out every figure on screen for export: a title line,
// the figures side by side, and the legend under them.
func (x *ExportBar) exportFigures() ([]*figModel, string, bool) {
	s := x.S
	sh, maps, fitted := s.figureSources()
	if sh == nil {
		return nil, "", false
	}
	var figs []*figModel
	for _, v := range []string{"A", "B"} {
		s.in.init()
		if fm := buildFigure(sh, maps, fitted, v, s.tagShown, s.layerPick, s.in.zoom[v], s.zoomMapFor(v), s.in.tool == toolHard); fm != nil {
			figs = append(figs, fm)
		}
	}
	m, _ := spec.Lookup(sh.res.Model)
	name := sh.res.Model
	if m != nil {
		name = m.Name
	}
	title := name + " on " + sh.set.DataLabel()
	if p := sh.set.Params[sh.set.Model]; len(p) > 0 {
		var ps []string
		for _, k := range sortedKeysStr(p) {
			ps = append(ps, k+" = "+p[k])
		}
		title += " — " + strings.Join(ps, ", ")
	}
	return figs, title, len(figs) > 0
}

func sortedKeysStr(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// paintExport draws the export figure on a painter and returns its size.
func paintExport(p painter, figs []*figModel, title string, measure bool) (float64, float64) {
	const figW, pad, titleSize, titleEm, titleLH = 520.0, 16.0, 15.0, 0.6, 20.0
	l := layoutFor(figW, false)
	w := pad*2 + float64(len(figs))*l.w + float64(len(figs)-1)*pad
	// the title wraps to the figure's width, and the legend takes the lines
	// it needs
	lines := wrapText(title, titleSize, titleEm, w-2*pad)
	titleH := 30 + titleLH*float64(len(lines)-1)
	var items []legendItem
	seen := map[string]bool{}
	for _, fm := range figs {
		for _, it := range fm.legend {
			if !seen[it.kind+it.text] {
				seen[it.kind+it.text] = true
				items = append(items, it)
			}
		}
	}
	legendH := drawLegend(nil, items, pad, 0, w-2*pad) + 8
	h := pad + titleH + l.h + legendH + pad
	if measure {
		return w, h
	}
	p.rect(0, 0, w, h, "#ffffff", "", 0)
	for i, line := range lines {
		p.text(pad, pad+8+titleLH*float64(i), line, titleSize, "#1b1f24", "left", "middle", true)
	}
	for i, fm := range figs {
		ox := pad + float64(i)*(l.w+pad)
		sub := &offsetPainter{p: p, dx: ox, dy: pad + titleH}
		drawFigure(sub, fm, l)
		sub.text(l.px+l.pw/2, -8, fm.title, 12, "#1b1f24", "center", "middle", true)
	}
	drawLegend(p, items, pad, pad+titleH+l.h+4, w-2*pad)
	return w, h
}

func (x *ExportBar) onPNG(ctx app.Context, e app.Event) {
	figs, title, ok := x.exportFigures()
	if !ok {
		x.fail("Nothing to export yet.")
		return
	}
	w, h := paintExport(nil, figs, title, true)
	canvas := app.Window().Get("document").Call("createElement", "canvas")
	p := newCanvasPainter(canvas, w, h, 2)
	paintExport(p, figs, title, false)
	name := x.S.shown.res.Model + "-figure.png"
	var cb app.Func
	cb = app.FuncOf(func(this app.Value, args []app.Value) any {
		defer cb.Release()
		if len(args) == 0 || !args[0].Truthy() {
			ctx.Dispatch(func(ctx app.Context) { x.fail("The browser could not encode the figure as PNG.") })
			return nil
		}
		blob := args[0]
		size := blob.Get("size").Int()
		clickDownload(ctx, name, blob, size)
		ctx.Dispatch(func(ctx app.Context) {
			x.ok("Downloaded %s (%s, %d×%d pixels).", name, byteSize(size), int(2*w), int(2*h))
		})
		return nil
	})
	canvas.Call("toBlob", cb, "image/png")
}

func (x *ExportBar) onSVG(ctx app.Context, e app.Event) {
	figs, title, ok := x.exportFigures()
	if !ok {
		x.fail("Nothing to export yet.")
		return
	}
	p := &svgPainter{pngOf: pngDataURL}
	w, h := paintExport(p, figs, title, false)
	doc := p.svgDocument(w, h, title)
	name := x.S.shown.res.Model + "-figure.svg"
	download(ctx, name, "image/svg+xml", []byte(doc))
	x.ok("Downloaded %s (%s).", name, byteSize(len(doc)))
}

// pngDataURL encodes RGBA cells as a PNG data URL with the browser's encoder.
func pngDataURL(rgba []byte, w, h int) string {
	c := app.Window().Get("document").Call("createElement", "canvas")
	c.Set("width", w)
	c.Set("height", h)
	ctx := c.Call("getContext", "2d")
	img := ctx.Call("createImageData", w, h)
	app.CopyBytesToJS(img.Get("data"), rgba)
	ctx.Call("putImageData", img, 0, 0)
	return c.Call("toDataURL", "image/png").String()
}

// offsetPainter draws through another painter, shifted.
type offsetPainter struct {
	p      painter
	dx, dy float64
}

func (o *offsetPainter) shift(pts []float64) []float64 {
	out := make([]float64, len(pts))
	for i := 0; i+1 < len(pts); i += 2 {
		out[i], out[i+1] = pts[i]+o.dx, pts[i+1]+o.dy
	}
	return out
}

func (o *offsetPainter) rect(x, y, w, h float64, fill, stroke string, width float64) {
	o.p.rect(x+o.dx, y+o.dy, w, h, fill, stroke, width)
}
func (o *offsetPainter) path(pts []float64, closed bool, stroke string, width float64, dash []float64) {
	o.p.path(o.shift(pts), closed, stroke, width, dash)
}
func (o *offsetPainter) marks(shape string, xs, ys, rs []float64, fill, stroke string, width float64) {
	sx, sy := make([]float64, len(xs)), make([]float64, len(ys))
	for i := range xs {
		sx[i], sy[i] = xs[i]+o.dx, ys[i]+o.dy
	}
	o.p.marks(shape, sx, sy, rs, fill, stroke, width)
}
func (o *offsetPainter) crosses(xs, ys []float64, r float64, stroke string, width float64) {
	sx, sy := make([]float64, len(xs)), make([]float64, len(ys))
	for i := range xs {
		sx[i], sy[i] = xs[i]+o.dx, ys[i]+o.dy
	}
	o.p.crosses(sx, sy, r, stroke, width)
}
func (o *offsetPainter) text(x, y float64, s string, size float64, fill, align, baseline string, bold bool) {
	o.p.text(x+o.dx, y+o.dy, s, size, fill, align, baseline, bold)
}
func (o *offsetPainter) vtext(x, y float64, s string, size float64, fill string) {
	o.p.vtext(x+o.dx, y+o.dy, s, size, fill)
}
func (o *offsetPainter) image(rgba []byte, w, h int, x, y, dw, dh float64) {
	o.p.image(rgba, w, h, x+o.dx, y+o.dy, dw, dh)
}
func (o *offsetPainter) clip(x, y, w, h float64) { o.p.clip(x+o.dx, y+o.dy, w, h) }
func (o *offsetPainter) unclip()                 { o.p.unclip() }

// onImport reads a model file and has a worker validate it and score it on
// the current data's split. Only a model that scored shows as imported;
// any failure shows its error and nothing else.
func (x *ExportBar) onImport(ctx app.Context, e app.Event) {
	s := x.S
	files := ctx.JSSrc().Get("files")
	if !files.Truthy() || files.Length() == 0 {
		return
	}
	f := files.Index(0)
	name := f.Get("name").String()
	if size := f.Get("size").Float(); size > ImportLimit {
		x.fail("%s: file is %.1f MB, the limit is %d MB.", name, size/(1<<20), ImportLimit>>20)
		return
	}
	x.ok("Checking %s…", name)
	f.Call("text").Then(func(t app.Value) {
		text := t.String()
		ctx.Dispatch(func(ctx app.Context) {
			set := s.set.Clone()
			req := wire.ImportRequest{Saved: text, Data: set.Data(s.csv()), Split: set.Split(), Keep: true,
				Grid: &wire.GridSpec{Side: mapSide, Preview: mapPreview}}
			var key string
			Submit(ctx, wire.KindImport, req, nil, JobOptions{Priority: PriorityInteractive,
				OnPart: func(ctx app.Context, m wire.Message, w Affinity) {
					prev := s.shown
					if err := x.importPart(m, false, &key, w); err != nil {
						s.fit.errMsg, s.fit.errKey = err.Error(), key
					}
					s.rezoom(ctx, prev)
					s.refresh()
				},
				OnEnd: func(ctx app.Context, m wire.Message, w Affinity) {
					prev := s.shown
					if err := x.importPart(m, true, &key, w); err != nil {
						x.fail("%s was not imported: %v", name, err)
						return
					}
					s.rezoom(ctx, prev)
					ms, _ := spec.Lookup(s.set.Model)
					label := s.set.Model
					if ms != nil {
						label = ms.Name
					}
					s.saveState(ctx)
					s.message = ""
					x.ok("Imported %s from %s: the accuracies below are the saved model's on this data's rows (no refit); its support vectors, convergence and objective are from the data it was trained on, which the file does not name.", label, name)
					s.refresh()
				}})
		})
	})
	ctx.JSSrc().Set("value", "") // choosing the same file again fires change again
}

// importPart takes a message of an import's answer (end: its last one):
// it decodes it once, makes the imported model's settings current when it
// holds the result (adoptImport: key becomes their fit key, kept for the
// parts that follow) and shows what it holds.
func (x *ExportBar) importPart(m wire.Message, end bool, key *string, w Affinity) error {
	var p wire.Part
	var bin *wire.Bin
	var err error
	if end {
		var cancelled bool
		if bin, cancelled, err = decodeEnd(m, &p); cancelled {
			return errors.New("cancelled")
		}
	} else {
		bin, err = m.Decode(&p)
	}
	if err != nil {
		return err
	}
	if p.Fit != nil {
		*key = x.adoptImport(p.Fit)
	}
	x.S.takeDecoded(&p, bin, x.S.set.Clone(), *key, w)
	return nil
}

// adoptImport makes the imported model's settings current, so the result is
// not shown as out of date, and returns their fit key.
func (x *ExportBar) adoptImport(res *wire.FitResult) string {
	s := x.S
	s.set.Model = res.Model
	if s.set.Params == nil {
		s.set.Params = map[string]map[string]string{}
	}
	s.set.Params[res.Model] = map[string]string{}
	if m, err := spec.Lookup(res.Model); err == nil {
		for k, v := range res.Params {
			if par := m.Param(k); par != nil && par.Default != v {
				s.set.Params[res.Model][k] = v
			}
		}
	}
	return s.set.FitKey()
}

// download offers bytes as a file.
func download(ctx app.Context, name, mime string, b []byte) {
	arr := app.Window().Get("Uint8Array").New(len(b))
	app.CopyBytesToJS(arr, b)
	parts := app.Window().Get("Array").New()
	parts.Call("push", arr)
	opts := app.Window().Get("Object").New()
	opts.Set("type", mime)
	blob := app.Window().Get("Blob").New(parts, opts)
	if len(b) <= textDownloadLimit && mime != "image/png" {
		app.Window().Set("__lupiLastDownloadText", string(b))
	}
	clickDownload(ctx, name, blob, len(b))
}

// clickDownload saves a Blob through a temporary <a download> and records
// the test hook.
func clickDownload(ctx app.Context, name string, blob app.Value, size int) {
	hook := app.Window().Get("Object").New()
	hook.Set("name", name)
	hook.Set("size", size)
	app.Window().Set("__lupiLastDownload", hook)

	url := app.Window().Get("URL").Call("createObjectURL", blob)
	doc := app.Window().Get("document")
	a := doc.Call("createElement", "a")
	a.Set("href", url)
	a.Set("download", name)
	a.Get("style").Set("display", "none")
	doc.Get("body").Call("appendChild", a)
	a.Call("click")
	a.Call("remove")
	// Revoke later: some browsers read the URL after click returns.
	ctx.After(10*time.Second, func(app.Context) { app.Window().Get("URL").Call("revokeObjectURL", url) })
}
