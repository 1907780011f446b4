package ui

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/data"
	"lupilab/models/model"
	"lupilab/models/run"
)

// uploadPanel offers the file upload (parsed in the browser, never sent)
// and, once a file is kept, the "Forget my data" button.
func (p *Playground) uploadPanel() app.UI {
	return app.Details().Class("yourdata").Open(p.uploaded != nil).Body(
		app.Summary().Text("Your own data"),
		&Upload{OnData: p.onUpload},
		app.If(p.uploaded != nil, app.Button().ID("forget-data").Text("Forget my data").OnClick(p.onForget)),
	)
}

func (p *Playground) uploadSource() string { return "up:" + p.uploadName() }

func (p *Playground) uploadName() string {
	if p.uploaded == nil {
		return ""
	}
	return p.uploaded.Name
}

// onUpload switches to the uploaded dataset and keeps it (as CSV with the
// chosen roles applied) in local storage when it fits the budget.
func (p *Playground) onUpload(ctx app.Context, ds *data.Dataset, name string, raw []byte) {
	ds.Name = name
	p.uploaded = ds
	p.source = "up:" + name
	p.tag = 0
	var buf bytes.Buffer
	if err := data.WriteCSV(&buf, ds); err == nil && buf.Len() <= uploadBudget {
		ctx.LocalStorage().Set(uploadKey, buf.String())
		ctx.LocalStorage().Set(uploadNameKey, name)
		p.message = fmt.Sprintf("Using %s (%d rows). It is kept in this browser only; “Forget my data” removes it.", name, ds.Rows())
	} else {
		ctx.LocalStorage().Del(uploadKey)
		p.message = fmt.Sprintf("Using %s (%d rows). It is too large to keep across reloads (limit %d MB).", name, ds.Rows(), uploadBudget>>20)
	}
	if spec := p.spec(); spec != nil && run.Compatible(spec, ds) != nil {
		for _, s := range model.All() {
			if run.Compatible(s, ds) == nil {
				p.modelID = s.ID
				break
			}
		}
	}
	p.changed(ctx)
	p.Update() // called from the Upload component's handler
}

func (p *Playground) restoreUpload(ctx app.Context) {
	var csv, name string
	ctx.LocalStorage().Get(uploadKey, &csv)
	ctx.LocalStorage().Get(uploadNameKey, &name)
	if csv == "" || "up:"+name != p.source {
		return
	}
	ds, err := data.ReadCSV(strings.NewReader(csv), data.ReadOptions{Name: name})
	if err != nil {
		p.errMsg = "Could not restore your file: " + err.Error()
		return
	}
	ds.Name = name
	p.uploaded = ds
}

func (p *Playground) onForget(ctx app.Context, e app.Event) {
	ctx.LocalStorage().Del(uploadKey)
	ctx.LocalStorage().Del(uploadNameKey)
	p.uploaded = nil
	if strings.HasPrefix(p.source, "up:") {
		p.source = "gen:moons"
	}
	p.out = nil
	p.message = "Your data was removed from this browser."
	p.saveState(ctx)
}

// exportBar offers model / results / plot downloads and model import.
func (p *Playground) exportBar() app.UI {
	return &ExportBar{Out: p.out, OnImport: p.onImport}
}

// onImport shows an imported model on the current data's split.
func (p *Playground) onImport(ctx app.Context, spec *model.Spec, f model.Fitted, raw []byte) {
	ds, err := p.peekDataset()
	if err != nil {
		p.errMsg = "Load the data the model was trained for first: " + err.Error()
		return
	}
	p.modelID = spec.ID
	if r := f.Report(); r != nil && r.Params != nil {
		p.values[spec.ID] = r.Params.Clone()
	}
	cfg := p.runConfig(ds)
	out, err := run.Score(cfg, spec, f)
	if err != nil {
		p.errMsg = "The imported model cannot score this data: " + err.Error()
		return
	}
	p.out = out
	p.message = "Imported " + spec.Name + ": scores below are the saved model's on this data (no refit)."
	p.saveState(ctx)
	p.Update() // called from the ExportBar component's handler
}
