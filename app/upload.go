package ui

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v9/pkg/app"

	"lupilab/models/data"
)

// UploadLimit is the largest file the browser reads (checked from the
// file's size before a byte is read).
const UploadLimit = 32 << 20

// autoCheckLimit is the largest file parsed again on every change of
// roles or options; larger files are parsed when the user presses "Use
// this data" (a parse of tens of MB holds the single wasm thread for
// seconds).
const autoCheckLimit = 4 << 20

// uploadPreviewRows is how many data rows the preview shows.
const uploadPreviewRows = 5

// Upload lets the user bring a file; OnData is called on the UI goroutine with the parsed dataset.
//
// The file is read in the tab (File.arrayBuffer) and parsed by the same
// readers as the CLI (lupilab/models/data); it is never sent anywhere. A CSV
// file gets a column-role editor (one <select id="role-<i>"> per header
// column) and a preview of its first rows; a LIBSVM file may come with a
// second file holding the Z block; an ARFF file may name its label
// attributes. Element ids: upload-drop (the drop zone, a label wrapping the
// file input), upload-input, upload-z, upload-twoview, upload-arff-labels,
// upload-preview, upload-summary, upload-error, upload-use.
type Upload struct {
	app.Compo
	OnData func(ctx app.Context, ds *data.Dataset, name string, raw []byte)

	name   string // file name
	format string // "csv", "libsvm", "arff"
	raw    []byte
	zName  string
	zRaw   []byte

	header  []string
	roles   []data.Role
	preview [][]string // CSV rows, or text lines for other formats

	arffLabels string
	twoView    bool

	reading bool
	dragOn  bool
	errMsg  string
	summary string

	release []func()
}

// OnMount attaches the drag-and-drop listeners. They are plain JS listeners
// because dragover and drop must be cancelled synchronously, which go-app's
// (asynchronous) event handlers cannot do.
func (u *Upload) OnMount(ctx app.Context) {
	root := u.JSValue()
	if root == nil || !root.Truthy() {
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
		return func(app.Value) {
			ctx.Dispatch(func(ctx app.Context) { u.dragOn = on })
		}
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
func (u *Upload) OnDismount() {
	for _, r := range u.release {
		r()
	}
	u.release = nil
}

// sizeMessage is the error for a file over the limit.
func sizeMessage(name string, size float64) string {
	return fmt.Sprintf("%s: file is %.1f MB, the limit is %d MB", name, size/(1<<20), UploadLimit>>20)
}

// readFile reads a File object in the browser and hands its bytes to done on
// the UI goroutine. The size is checked before reading.
func (u *Upload) readFile(ctx app.Context, f app.Value, done func(ctx app.Context, name string, b []byte)) {
	name := f.Get("name").String()
	size := f.Get("size").Float()
	if size > UploadLimit {
		u.errMsg = sizeMessage(name, size)
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

func (u *Upload) onPick(ctx app.Context, e app.Event) {
	files := ctx.JSSrc().Get("files")
	if !files.Truthy() || files.Length() == 0 {
		return
	}
	u.readFile(ctx, files.Index(0), u.setMain)
	ctx.JSSrc().Set("value", "") // picking the same (edited) file again fires change again
}

func (u *Upload) onPickZ(ctx app.Context, e app.Event) {
	files := ctx.JSSrc().Get("files")
	if !files.Truthy() || files.Length() == 0 {
		u.zName, u.zRaw = "", nil
		return
	}
	u.readFile(ctx, files.Index(0), func(ctx app.Context, name string, b []byte) {
		u.zName, u.zRaw = name, b
		u.check()
	})
}

// setMain takes a freshly read main file: detects the format, builds the
// preview (and for CSV the default roles) and checks that it parses.
func (u *Upload) setMain(ctx app.Context, name string, b []byte) {
	u.name, u.raw, u.format = name, b, data.FormatOf(name)
	u.header, u.roles, u.preview, u.summary, u.errMsg = nil, nil, nil, "", ""
	u.zName, u.zRaw = "", nil
	switch u.format {
	case "":
		u.raw = nil
		u.errMsg = name + ": unknown file type (use .csv, .txt, .libsvm, .svm or .arff)"
		return
	case "csv":
		h, rows, err := csvPreview(b, uploadPreviewRows)
		if err != nil {
			u.errMsg = name + ": " + err.Error()
			return
		}
		u.header, u.preview = h, rows
		u.roles = make([]data.Role, len(h))
		for i, c := range h {
			u.roles[i] = defaultRole(c)
		}
	default:
		u.preview = textPreview(b, uploadPreviewRows)
	}
	u.check()
}

// parse reads the held file with the chosen options.
func (u *Upload) parse() (*data.Dataset, error) {
	if u.raw == nil {
		return nil, errors.New("choose a file first")
	}
	opt := data.ReadOptions{Name: baseName(u.name), MaxBytes: UploadLimit}
	if u.twoView {
		opt.Kind = data.KindTwoView
	}
	switch u.format {
	case "csv":
		opt.Roles = map[string]data.Role{}
		for i, h := range u.header {
			opt.Roles[h] = u.roles[i]
		}
	case "libsvm":
		if u.zRaw != nil {
			opt.Z = bytes.NewReader(u.zRaw)
		}
	case "arff":
		s := strings.TrimSpace(u.arffLabels)
		if n, err := strconv.Atoi(s); err == nil {
			opt.ARFFLabelCount = n
		} else if s != "" {
			for _, l := range strings.Split(s, ",") {
				if l = strings.TrimSpace(l); l != "" {
					opt.ARFFLabels = append(opt.ARFFLabels, l)
				}
			}
		}
	}
	ds, err := data.Read(bytes.NewReader(u.raw), u.format, opt)
	if err != nil {
		var pe *data.ParseError
		if errors.As(err, &pe) && pe.File == "" {
			pe.File = u.name
		}
		return nil, err
	}
	return ds, nil
}

// check parses with the current choices and shows the result or the error.
func (u *Upload) check() {
	if len(u.raw) > autoCheckLimit || len(u.zRaw) > autoCheckLimit {
		u.errMsg, u.summary = "", fmt.Sprintf("Large file (%s): it is parsed when you press “Use this data”.", byteSize(len(u.raw)+len(u.zRaw)))
		return
	}
	ds, err := u.parse()
	if err != nil {
		u.errMsg, u.summary = err.Error(), ""
		return
	}
	u.errMsg, u.summary = "", describe(ds)
}

func (u *Upload) onUse(ctx app.Context, e app.Event) {
	ds, err := u.parse()
	if err != nil {
		u.errMsg, u.summary = err.Error(), ""
		return
	}
	u.errMsg, u.summary = "", describe(ds)
	if u.OnData != nil {
		u.OnData(ctx, ds, baseName(u.name), u.raw)
	}
}

func (u *Upload) onRole(i int) func(ctx app.Context, e app.Event) {
	return func(ctx app.Context, e app.Event) {
		if i < len(u.roles) {
			u.roles[i] = data.Role(ctx.JSSrc().Get("value").String())
			u.check()
		}
	}
}

// Render implements app.Composer.
func (u *Upload) Render() app.UI {
	zone := "Drop a .csv, .libsvm or .arff file here, or choose one: "
	if u.reading {
		zone = "Reading the file… "
	}
	border, bg := "#8c96a0", "transparent"
	if u.dragOn {
		border, bg = "#1a6fd1", "#eef6ff"
	}
	return app.Div().Class("upload").Body(
		app.Label().ID("upload-drop").Class("drop").
			Style("display", "block").Style("border", "2px dashed "+border).Style("background", bg).
			Style("border-radius", "8px").Style("padding", ".8rem").Style("margin", ".4rem 0").Style("cursor", "pointer").Body(
			app.Span().Text(zone),
			app.Input().Type("file").ID("upload-input").
				Accept(".csv,.txt,.libsvm,.svm,.arff").
				Aria("describedby", "upload-note").
				OnChange(u.onPick),
		),
		app.P().ID("upload-note").Class("help").Text(fmt.Sprintf("The file is read in this tab and never leaves your computer. Limit %d MB.", UploadLimit>>20)),
		app.If(u.errMsg != "", app.P().ID("upload-error").Class("error").Aria("live", "polite").Text(u.errMsg)),
		app.If(u.raw != nil, u.renderEditor()),
	)
}

func (u *Upload) renderEditor() app.UI {
	return app.Div().Class("upload-editor").Body(
		app.P().Class("help").Text(fmt.Sprintf("%s (%s, %s)", u.name, u.format, byteSize(len(u.raw)))),
		app.If(u.format == "csv", u.renderRoles()),
		app.If(u.format != "csv" && len(u.preview) > 0, app.Pre().ID("upload-preview").Class("preview").
			Style("overflow", "auto").Style("max-height", "8rem").Text(strings.Join(flatten(u.preview), "\n"))),
		app.If(u.format == "libsvm", app.Div().Class("param").Body(
			app.Label().For("upload-z").Text("Second block (Z) file, optional — same rows and labels"),
			app.Input().Type("file").ID("upload-z").Accept(".libsvm,.svm,.txt,.dat").OnChange(u.onPickZ),
		)),
		app.If(u.format == "arff", app.Div().Class("param").Body(
			app.Label().For("upload-arff-labels").Text("Label attribute(s): names separated by commas, or a count (3 = first three, −3 = last three)"),
			app.Input().Type("text").ID("upload-arff-labels").Value(u.arffLabels).Placeholder("class").
				OnChange(func(ctx app.Context, e app.Event) {
					u.arffLabels = ctx.JSSrc().Get("value").String()
					u.check()
				}),
		)),
		app.Div().Class("param").Body(
			app.Label().Body(
				app.Input().Type("checkbox").ID("upload-twoview").Checked(u.twoView).
					OnChange(func(ctx app.Context, e app.Event) {
						u.twoView = ctx.JSSrc().Get("checked").Bool()
						u.check()
					}),
				app.Text(" The second block is a second view (available when predicting), not privileged information"),
			),
		),
		app.If(u.summary != "", app.P().ID("upload-summary").Class("help").Text(u.summary)),
		app.Button().ID("upload-use").Class("primary").Text("Use this data").Disabled(u.reading).OnClick(u.onUse),
	)
}

func (u *Upload) renderRoles() app.UI {
	return app.Div().Style("overflow", "auto").Body(
		app.Table().ID("upload-preview").Class("preview").Body(
			app.Caption().Text(fmt.Sprintf("Column roles and the first %d rows", len(u.preview))),
			app.THead().Body(
				app.Tr().Body(app.Range(u.header).Slice(func(i int) app.UI {
					return app.Th().Scope("col").Body(
						app.Label().For(fmt.Sprintf("role-%d", i)).Text(u.header[i]),
						app.Br(),
						app.Select().ID(fmt.Sprintf("role-%d", i)).OnChange(u.onRole(i)).Body(
							app.Range(roleChoices).Slice(func(k int) app.UI {
								r := roleChoices[k]
								return app.Option().Value(string(r.role)).Selected(u.roles[i] == r.role).Text(r.label)
							}),
						),
					)
				})),
			),
			app.TBody().Body(app.Range(u.preview).Slice(func(r int) app.UI {
				row := u.preview[r]
				return app.Tr().Body(app.Range(row).Slice(func(c int) app.UI { return app.Td().Text(row[c]) }))
			})),
		),
	)
}

var roleChoices = []struct {
	role  data.Role
	label string
}{
	{data.RoleClass, "class"},
	{data.RoleMain, "main (X)"},
	{data.RoleSecond, "second (privileged / view B)"},
	{data.RoleTag, "tag (0/1)"},
	{data.RoleIgnore, "ignore"},
}

// defaultRole mirrors the CSV reader's naming rule (models/data.ReadCSV):
// "y" or "label" is the class, "z_*" second block, "tag_*" a tag, anything
// else a main feature.
func defaultRole(name string) data.Role {
	l := strings.ToLower(strings.TrimSpace(name))
	switch {
	case l == "y" || l == "label":
		return data.RoleClass
	case strings.HasPrefix(l, "z_"):
		return data.RoleSecond
	case strings.HasPrefix(l, "tag_"):
		return data.RoleTag
	}
	return data.RoleMain
}

// csvPreview reads the header and the first n rows with the CSV reader's
// delimiter rule (comma, else tab, else semicolon in the first line).
func csvPreview(b []byte, n int) (header []string, rows [][]string, err error) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	first := b
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		first = b[:i]
	}
	cr := csv.NewReader(bytes.NewReader(b))
	switch {
	case bytes.IndexByte(first, ',') >= 0:
	case bytes.IndexByte(first, '\t') >= 0:
		cr.Comma = '\t'
	case bytes.IndexByte(first, ';') >= 0:
		cr.Comma = ';'
	}
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	h, err := cr.Read()
	if err == io.EOF {
		return nil, nil, errors.New("the file is empty")
	}
	if err != nil {
		return nil, nil, err
	}
	for i := range h {
		h[i] = strings.TrimSpace(h[i])
	}
	for len(rows) < n {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			break // the full parse reports it with its line and column
		}
		rows = append(rows, rec)
	}
	return h, rows, nil
}

// textPreview returns the first n non-empty lines (each cut to 200 bytes).
func textPreview(b []byte, n int) [][]string {
	var out [][]string
	for _, l := range strings.SplitN(string(b[:min(len(b), 64<<10)]), "\n", 4*n+1) {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if len(l) > 200 {
			l = l[:200] + "…"
		}
		out = append(out, []string{l})
		if len(out) == n {
			break
		}
	}
	return out
}

func flatten(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, " ")
	}
	return out
}

func baseName(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return name
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// describe summarises a parsed dataset in one line.
func describe(ds *data.Dataset) string {
	s := fmt.Sprintf("%d rows, %d main features", ds.Rows(), ds.Dim())
	if ds.ZDim() > 0 {
		kind := "privileged"
		if ds.Kind == data.KindTwoView {
			kind = "view-B"
		}
		s += fmt.Sprintf(", %d %s features", ds.ZDim(), kind)
	}
	if ds.Y != nil {
		s += fmt.Sprintf(", %d classes (%s)", len(ds.Classes), strings.Join(clip(ds.Classes, 8), ", "))
	}
	if ds.Tags != nil {
		s += fmt.Sprintf(", %d tags (%s)", ds.NumTags(), strings.Join(clip(ds.TagNames, 8), ", "))
	}
	return s + "."
}

func clip(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string(nil), s[:n]...), "…")
}
