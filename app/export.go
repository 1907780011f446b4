package ui

import (
	"fmt"
	"time"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/model"
	"lupilab/models/run"
)

// ImportLimit is the largest model file the import reads.
const ImportLimit = 32 << 20

// textDownloadLimit caps the test hook's copy of a text download.
const textDownloadLimit = 8 << 20

// ExportBar offers downloads for the current outcome and model import.
//
// Every download is made in the tab (Blob + URL.createObjectURL + a
// temporary <a download> click); nothing goes to the server. Element ids:
// export-model, export-csv, export-png, import-model (file input),
// export-status, export-error.
//
// Test hook: each download sets window.__lupiLastDownload = {name, size}
// (size in bytes), and a text download (model JSON, results CSV) also sets
// window.__lupiLastDownloadText to its content (up to 8 MB), so browser
// tests can read what the user would get without a download directory.
type ExportBar struct {
	app.Compo
	Out      *run.Outcome
	OnImport func(ctx app.Context, spec *model.Spec, f model.Fitted, raw []byte)

	status string
	errMsg string
}

// Render implements app.Composer.
func (x *ExportBar) Render() app.UI {
	none := x.Out == nil || x.Out.Fitted == nil
	return app.Div().Class("exportbar").Body(
		app.Div().Class("actions").Body(
			app.Button().ID("export-model").Text("Export model").Disabled(none).
				Title("The fitted model as versioned JSON (lupi predict and Import model read it)").OnClick(x.onModel),
			app.Button().ID("export-csv").Text("Export results CSV").Disabled(none).
				Title("One row per training and test sample: true and predicted class, decision value, features as the model saw them").OnClick(x.onCSV),
			app.Button().ID("export-png").Text("Export plot PNG").Disabled(none).OnClick(x.onPNG),
			app.Label().For("import-model").Class("button").Text("Import model: "),
			app.Input().Type("file").ID("import-model").Accept(".json").OnChange(x.onImport),
		),
		app.If(x.status != "", app.P().ID("export-status").Class("help").Aria("live", "polite").Text(x.status)),
		app.If(x.errMsg != "", app.P().ID("export-error").Class("error").Aria("live", "polite").Text(x.errMsg)),
	)
}

func (x *ExportBar) fail(format string, args ...any) {
	x.errMsg, x.status = fmt.Sprintf(format, args...), ""
}

func (x *ExportBar) onModel(ctx app.Context, e app.Event) {
	o := x.Out
	if o == nil || o.Fitted == nil || o.Spec == nil {
		x.fail("Train a model first.")
		return
	}
	b, err := model.SaveScaled(o.Spec.ID, o.Fitted, o.Scaler)
	if err != nil {
		x.fail("%v", err)
		return
	}
	name := o.Spec.ID + ".lupi.json"
	download(ctx, name, "application/json", b)
	x.errMsg, x.status = "", fmt.Sprintf("Downloaded %s (%s). It expects features standardised as in training — the x: columns of the results CSV.", name, byteSize(len(b)))
}

func (x *ExportBar) onCSV(ctx app.Context, e app.Event) {
	o := x.Out
	b := run.ResultsCSV(o)
	if b == nil {
		x.fail("Train a model first.")
		return
	}
	name := o.Spec.ID + "-results.csv"
	download(ctx, name, "text/csv", b)
	x.errMsg, x.status = "", fmt.Sprintf("Downloaded %s (%s).", name, byteSize(len(b)))
}

func (x *ExportBar) onPNG(ctx app.Context, e app.Event) {
	canvas := app.Window().Get("document").Call("getElementById", "plot-a")
	if !canvas.Truthy() {
		x.fail("There is no plot to export.")
		return
	}
	name := "plot.png"
	if x.Out != nil && x.Out.Spec != nil {
		name = x.Out.Spec.ID + "-plot.png"
	}
	var cb app.Func
	cb = app.FuncOf(func(this app.Value, args []app.Value) any {
		defer cb.Release()
		if len(args) == 0 || !args[0].Truthy() {
			ctx.Dispatch(func(ctx app.Context) { x.fail("The browser could not encode the plot as PNG.") })
			return nil
		}
		blob := args[0]
		size := blob.Get("size").Int()
		clickDownload(ctx, name, blob, size)
		ctx.Dispatch(func(ctx app.Context) {
			x.errMsg, x.status = "", fmt.Sprintf("Downloaded %s (%s).", name, byteSize(size))
		})
		return nil
	})
	canvas.Call("toBlob", cb, "image/png")
}

func (x *ExportBar) onImport(ctx app.Context, e app.Event) {
	files := ctx.JSSrc().Get("files")
	if !files.Truthy() || files.Length() == 0 {
		return
	}
	f := files.Index(0)
	name := f.Get("name").String()
	if size := f.Get("size").Float(); size > ImportLimit {
		x.fail("%s: file is %.1f MB, the limit is %d MB", name, size/(1<<20), ImportLimit>>20)
		return
	}
	x.errMsg, x.status = "", "Reading "+name+"…"
	f.Call("arrayBuffer").Then(func(buf app.Value) {
		arr := app.Window().Get("Uint8Array").New(buf)
		b := make([]byte, arr.Length())
		app.CopyBytesToGo(b, arr)
		ctx.Dispatch(func(ctx app.Context) {
			spec, fitted, err := model.Load(b)
			if err != nil {
				x.fail("%s: %v", name, err)
				return
			}
			x.errMsg, x.status = "", fmt.Sprintf("Imported %s (%s) from %s.", spec.Name, spec.ID, name)
			if x.OnImport != nil {
				x.OnImport(ctx, spec, fitted, b)
			}
		})
	})
	ctx.JSSrc().Set("value", "") // choosing the same file again fires change again
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
	ctx.Async(func() {
		time.Sleep(10 * time.Second)
		ctx.Dispatch(func(app.Context) { app.Window().Get("URL").Call("revokeObjectURL", url) })
	})
}
