package app

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/spec"
	"lupilab/models/wire"
)

// UploadLimit is the largest file the browser reads (checked from the
// file's size before a byte is read).
const UploadLimit = 32 << 20

// uploadKey keeps the last used upload (within uploadBudget bytes) so that
// a reload restores it; "Forget my data" deletes it.
const (
	uploadKey     = "lupilab.upload"
	uploadMetaKey = "lupilab.upload.meta"
	uploadBudget  = 2 << 20
)

// UploadPanel lets the user bring a file. The file is read in the tab and
// parsed by a compute worker with the same readers as the CLI; it is never
// sent anywhere. A CSV file gets a column-role editor and a preview of its
// first rows; a LIBSVM file may come with a second file holding the Z
// block; an ARFF file may name its label attributes. "Use this data" stays
// disabled while the file has errors. Element ids: upload-drop, upload-input,
// upload-z, upload-twoview, upload-arff-labels, upload-preview,
// upload-summary, upload-error, upload-use, role-<i>, forget-data.
type UploadPanel struct {
	app.Compo
	S *session

	name, zName string
	raw, zRaw   []byte
	roles       []string
	arffLabels  string
	twoView     bool
	parsed      *wire.ParseResult
	parsing     bool
	reading     bool
	dragOn      bool
	errMsg      string
	seq         int
	release     []func()
}

// OnMount attaches the drag-and-drop listeners. They are plain JS listeners
// because dragover and drop must be cancelled synchronously, which go-app's
// (asynchronous) event handlers cannot do.
func (u *UploadPanel) OnMount(ctx app.Context) {
	u.S.register(u)
	root := app.Window().GetElementByID("upload-drop")
	if !root.Truthy() {
		return
	}
	listen := func(ev string, fn func(e app.Value)) {
		f := app.FuncOf(func(this app.Value, args []app.Value) any {
			if len(args) > 0 {
				args[0].Call("preventDefault")
				fn(args[0])
			}
			return nil
		})
		root.Call("addEventListener", ev, f)
		u.release = append(u.release, func() { root.Call("removeEventListener", ev, f); f.Release() })
	}
	setDrag := func(on bool) func(app.Value) {
		return func(app.Value) { ctx.Dispatch(func(ctx app.Context) { u.dragOn = on }) }
	}
	listen("dragenter", setDrag(true))
	listen("dragover", func(app.Value) {})
	listen("dragleave", setDrag(false))
	listen("drop", func(e app.Value) {
		files := e.Get("dataTransfer").Get("files")
		if !files.Truthy() || files.Length() == 0 {
			return
		}
		f := files.Index(0)
		ctx.Dispatch(func(ctx app.Context) {
			u.dragOn = false
			u.readFile(ctx, f, u.setMain)
		})
	})
}

// OnDismount removes the listeners.
func (u *UploadPanel) OnDismount() {
	u.S.unregister(u)
	for _, r := range u.release {
		r()
	}
	u.release = nil
}

// readFile reads a File object and hands its bytes to done on the UI
// goroutine; the size is checked before reading.
func (u *UploadPanel) readFile(ctx app.Context, f app.Value, done func(ctx app.Context, name string, b []byte)) {
	name := f.Get("name").String()
	size := f.Get("size").Float()
	if size > UploadLimit {
		u.errMsg = fmt.Sprintf("%s: file is %.1f MB, the limit is %d MB.", name, size/(1<<20), UploadLimit>>20)
		u.Update()
		return
	}
	u.errMsg, u.reading = "", true
	f.Call("arrayBuffer").Then(func(buf app.Value) {
		arr := app.Window().Get("Uint8Array").New(buf)
		b := make([]byte, arr.Length())
		app.CopyBytesToGo(b, arr)
		ctx.Dispatch(func(ctx app.Context) {
			u.reading = false
			done(ctx, name, b)
		})
	})
}

func (u *UploadPanel) onPick(ctx app.Context, e app.Event) {
	files := ctx.JSSrc().Get("files")
	if !files.Truthy() || files.Length() == 0 {
		return
	}
	u.readFile(ctx, files.Index(0), u.setMain)
	ctx.JSSrc().Set("value", "") // picking the same (edited) file again fires change again
}

func (u *UploadPanel) onPickZ(ctx app.Context, e app.Event) {
	files := ctx.JSSrc().Get("files")
	if !files.Truthy() || files.Length() == 0 {
		u.zName, u.zRaw = "", nil
		u.check(ctx)
		return
	}
	u.readFile(ctx, files.Index(0), func(ctx app.Context, name string, b []byte) {
		u.zName, u.zRaw = name, b
		u.check(ctx)
	})
}

func (u *UploadPanel) setMain(ctx app.Context, name string, b []byte) {
	u.name, u.raw, u.zName, u.zRaw, u.roles, u.parsed = name, b, "", nil, nil, nil
	u.check(ctx)
}

// check has a worker parse the file with the current choices (the latest
// request wins).
func (u *UploadPanel) check(ctx app.Context) {
	if u.raw == nil {
		return
	}
	u.seq++
	mine := u.seq
	u.parsing = true
	bin := &wire.Bin{}
	req := wire.ParseRequest{Name: u.name, File: bin.Bytes(u.raw), Roles: u.roles, TwoView: u.twoView, Labels: u.arffLabels}
	if u.zRaw != nil {
		req.ZName, req.ZFile = u.zName, bin.Bytes(u.zRaw)
	}
	u.Update()
	Submit(ctx, wire.KindParse, req, bin, JobOptions{Priority: PriorityInteractive,
		OnEnd: func(ctx app.Context, m wire.Message, w Affinity) {
			if mine != u.seq {
				return
			}
			u.parsing = false
			var res wire.ParseResult
			if _, _, err := decodeEnd(m, &res); err != nil {
				u.errMsg, u.parsed = err.Error(), nil
			} else {
				u.parsed, u.errMsg = &res, ""
				if len(res.Roles) > 0 {
					u.roles = res.Roles
				}
			}
			u.Update()
		}})
}

func (u *UploadPanel) onUse(ctx app.Context, e app.Event) {
	s := u.S
	r := u.parsed
	if r == nil || len(r.Errors) > 0 || r.CSV == "" {
		return
	}
	name := baseName(u.name)
	s.upload = &uploaded{name: name, csv: r.CSV, summary: r.Summary, rows: r.Rows, dim: r.Dim, zdim: r.ZDim, classes: len(r.Classes), tags: len(r.Tags)}
	s.set.Source, s.set.Edits, s.tagShown = "up:"+name, nil, 0
	if len(r.CSV) <= uploadBudget {
		meta, _ := json.Marshal(uploadMeta{Name: name, Summary: r.Summary, Rows: r.Rows, Dim: r.Dim, ZDim: r.ZDim, Tags: len(r.Tags) > 0, Classes: len(r.Classes), NTags: len(r.Tags)})
		ctx.LocalStorage().Set(uploadKey, r.CSV)
		ctx.LocalStorage().Set(uploadMetaKey, string(meta))
		s.message = fmt.Sprintf("Using %s (%d rows). It is kept in this browser only; “Forget my data” removes it.", name, r.Rows)
	} else {
		ctx.LocalStorage().Del(uploadKey)
		ctx.LocalStorage().Del(uploadMetaKey)
		s.message = fmt.Sprintf("Using %s (%d rows). It is too large to keep across reloads (limit %d MB).", name, r.Rows, uploadBudget>>20)
	}
	s.uploadTags = len(r.Tags) > 0
	if m := s.spec(); m != nil && s.compatible(m) != "" {
		for _, c := range spec.All() {
			if s.compatible(c) == "" {
				s.set.Model = c.ID
				break
			}
		}
	}
	s.changed(ctx)
}

type uploadMeta struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	Rows    int    `json:"rows"`
	Dim     int    `json:"dim"`
	ZDim    int    `json:"zdim"`
	Tags    bool   `json:"tags"`
	Classes int    `json:"classes,omitempty"`
	NTags   int    `json:"ntags,omitempty"`
}

// restoreUpload brings back the kept upload for a link to it.
func (s *session) restoreUpload(ctx app.Context) {
	var csv, metaText string
	ctx.LocalStorage().Get(uploadKey, &csv)
	ctx.LocalStorage().Get(uploadMetaKey, &metaText)
	var meta uploadMeta
	if csv == "" || json.Unmarshal([]byte(metaText), &meta) != nil || "up:"+meta.Name != s.set.Source {
		s.fit.errMsg, s.fit.errKey = "This link refers to a file uploaded in another browser: upload it here to reproduce the result.", s.set.FitKey()
		return
	}
	s.upload = &uploaded{name: meta.Name, csv: csv, summary: meta.Summary, rows: meta.Rows, dim: meta.Dim, zdim: meta.ZDim, classes: meta.Classes, tags: meta.NTags}
	s.uploadTags = meta.Tags
}

func (u *UploadPanel) onForget(ctx app.Context, e app.Event) {
	s := u.S
	ctx.LocalStorage().Del(uploadKey)
	ctx.LocalStorage().Del(uploadMetaKey)
	s.upload = nil
	u.name, u.raw, u.parsed = "", nil, nil
	if strings.HasPrefix(s.set.Source, "up:") {
		s.set.Source = "gen:moons"
		s.shown, s.preview = nil, nil
	}
	s.message = "Your data was removed from this browser."
	s.changed(ctx)
}

// Render implements app.Composer.
func (u *UploadPanel) Render() app.UI {
	s := u.S
	zone := "Drop a .csv, .libsvm or .arff file here, or choose one: "
	if u.reading {
		zone = "Reading the file… "
	}
	cls := "drop"
	if u.dragOn {
		cls += " drag"
	}
	return app.Details().Class("yourdata").Open(s.upload != nil || u.raw != nil).Body(
		app.Summary().Text("Your own data"),
		app.Label().ID("upload-drop").Class(cls).Body(
			app.Span().Text(zone),
			app.Input().Type("file").ID("upload-input").Accept(".csv,.txt,.tsv,.libsvm,.svm,.arff").
				Aria("describedby", "upload-note").OnChange(u.onPick),
		),
		app.P().ID("upload-note").Class("help").Text(fmt.Sprintf("The file is read in this tab and never leaves your computer. Limit %d MB.", UploadLimit>>20)),
		app.If(u.errMsg != "", app.P().ID("upload-error").Class("error").Aria("live", "polite").Text(u.errMsg)),
		when(u.raw != nil, u.editor),
		app.If(s.upload != nil, app.Button().ID("forget-data").Text("Forget my data").OnClick(u.onForget)),
	)
}

func (u *UploadPanel) editor() app.UI {
	r := u.parsed
	format := ""
	if r != nil {
		format = r.Format
	}
	var problems []string
	if r != nil {
		problems = r.Errors
	}
	usable := r != nil && len(r.Errors) == 0 && r.CSV != "" && !u.parsing
	return app.Div().Class("upload-editor").Body(
		app.P().Class("help").Text(fmt.Sprintf("%s (%s)", u.name, byteSize(len(u.raw)))),
		app.If(u.parsing && r == nil, app.P().Class("help").Text("Reading the columns…")),
		app.If(format == "csv", u.roleTable()),
		when(format != "csv" && r != nil && len(r.Preview) > 0, func() app.UI {
			return app.Pre().ID("upload-preview").Class("preview").Text(joinRows(r.Preview))
		}),
		app.If(format == "libsvm", app.Div().Class("param").Body(
			app.Label().For("upload-z").Text("Second block (Z) file, optional — same rows and labels"),
			app.Input().Type("file").ID("upload-z").Accept(".libsvm,.svm,.txt,.dat").OnChange(u.onPickZ),
		)),
		app.If(format == "arff", app.Div().Class("param").Body(
			app.Label().For("upload-arff-labels").Text("Label attribute(s): names separated by commas, or a count (3 = first three, −3 = last three)"),
			app.Input().Type("text").ID("upload-arff-labels").Value(u.arffLabels).Placeholder("class").
				OnChange(func(ctx app.Context, e app.Event) {
					u.arffLabels = ctx.JSSrc().Get("value").String()
					u.check(ctx)
				}),
		)),
		app.Div().Class("param").Body(
			app.Label().For("upload-twoview").Body(
				app.Input().Type("checkbox").ID("upload-twoview").Checked(u.twoView).
					OnChange(func(ctx app.Context, e app.Event) {
						u.twoView = ctx.JSSrc().Get("checked").Bool()
						u.check(ctx)
					}),
				app.Text(" The second block is a second view (available when predicting), not privileged information"),
			),
		),
		app.If(len(problems) > 0, app.Ul().ID("upload-error").Class("error").Aria("live", "polite").Body(
			app.Range(problems).Slice(func(i int) app.UI { return app.Li().Text(problems[i]) }),
		)),
		when(r != nil && r.Summary != "" && len(problems) == 0, func() app.UI {
			return app.P().ID("upload-summary").Class("help").Text(r.Summary)
		}),
		app.Button().ID("upload-use").Class("primary").Text("Use this data").Disabled(!usable).OnClick(u.onUse),
	)
}

var roleChoices = []struct{ role, label string }{
	{"class", "class"},
	{"main", "main (X)"},
	{"second", "second (privileged / view B)"},
	{"tag", "tag (0/1)"},
	{"ignore", "ignore"},
}

func (u *UploadPanel) roleTable() app.UI {
	r := u.parsed
	if r == nil {
		return nil
	}
	return app.Div().Class("scroll").Body(
		app.Table().ID("upload-preview").Class("preview").Body(
			app.Caption().Text(fmt.Sprintf("Column roles and the first %d rows", len(r.Preview))),
			app.THead().Body(
				app.Tr().Body(app.Range(r.Header).Slice(func(i int) app.UI {
					role := ""
					if i < len(u.roles) {
						role = u.roles[i]
					}
					return app.Th().Scope("col").Body(
						app.Label().For(fmt.Sprintf("role-%d", i)).Text(r.Header[i]),
						app.Br(),
						app.Select().ID(fmt.Sprintf("role-%d", i)).OnChange(func(ctx app.Context, e app.Event) {
							if u.parsed == nil {
								return
							}
							for len(u.roles) < len(u.parsed.Header) {
								u.roles = append(u.roles, "")
							}
							if i < len(u.roles) {
								u.roles[i] = ctx.JSSrc().Get("value").String()
							}
							u.check(ctx)
						}, i).Body(
							app.Range(roleChoices).Slice(func(k int) app.UI {
								c := roleChoices[k]
								return app.Option().Value(c.role).Selected(role == c.role).Text(c.label)
							}),
						),
					)
				})),
			),
			app.TBody().Body(app.Range(r.Preview).Slice(func(k int) app.UI {
				row := r.Preview[k]
				return app.Tr().Body(app.Range(row).Slice(func(c int) app.UI { return app.Td().Text(row[c]) }))
			})),
		),
	)
}

func joinRows(rows [][]string) string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, " ")
	}
	return strings.Join(out, "\n")
}

func baseName(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return name
}
