package compute

import (
	"bytes"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"strconv"
	"strings"

	"lupilab/models/data"
	"lupilab/models/wire"
)

// UploadLimit is the largest uploaded file the engine parses.
const UploadLimit = 32 << 20

// previewRows is how many data rows a parse result previews.
const previewRows = 5

// dataset builds (or returns the cached) dataset a request names, with the
// user's edits applied.
func (e *Engine) dataset(ref wire.DataRef) (*edited, error) {
	key, err := dataKey(ref)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	ed, ok := e.data.get(key)
	e.mu.Unlock()
	if ok {
		return ed, nil
	}
	ds, err := e.build(ref)
	if err != nil {
		return nil, err
	}
	if ed, err = applyEdits(ds, ref); err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.data.put(key, ed)
	e.mu.Unlock()
	return ed, nil
}

// dataKey identifies a DataRef's content: a 128-bit FNV-1a hash (the
// engine's data cache is keyed by it; crypto/sha256 brought Go's FIPS 140
// module into the compute build, tens of kB of the page's download for a
// key no adversary chooses).
func dataKey(ref wire.DataRef) (string, error) {
	h := fnv.New128a()
	fmt.Fprintf(h, "%s|%d|%v|%d|%d|", ref.Source, ref.N, ref.Noise, ref.Seed, len(ref.Edits))
	h.Write([]byte(ref.CSV))
	for _, ed := range ref.Edits {
		fmt.Fprintf(h, "%s %d %v %d %v;", ed.Op, ed.Index, ed.X, ed.Class, ed.Value)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (e *Engine) build(ref wire.DataRef) (*data.Dataset, error) {
	switch {
	case strings.HasPrefix(ref.Source, "gen:"):
		return data.GenerateByName(strings.TrimPrefix(ref.Source, "gen:"), ref.N, ref.Noise, ref.Seed)
	case strings.HasPrefix(ref.Source, "ds:"):
		return e.shipped(strings.TrimPrefix(ref.Source, "ds:"))
	case strings.HasPrefix(ref.Source, "up:"):
		if ref.CSV == "" {
			return nil, errors.New("this link refers to a file uploaded in another browser: upload it here to reproduce the result")
		}
		name := strings.TrimPrefix(ref.Source, "up:")
		ds, err := data.ReadCSV(strings.NewReader(ref.CSV), data.ReadOptions{Name: name})
		if err != nil {
			return nil, err
		}
		ds.Name = name
		data.UnprefixNames(ds) // the upload's own column names, not the canonical CSV's
		return ds, nil
	}
	return nil, fmt.Errorf("unknown data source %q", ref.Source)
}

// shipped loads a shipped dataset through Fetch.
func (e *Engine) shipped(name string) (*data.Dataset, error) {
	if e.Fetch == nil {
		return nil, errors.New("this engine cannot read the shipped datasets")
	}
	e.mu.Lock()
	idx := e.index
	e.mu.Unlock()
	if idx == nil {
		b, err := e.Fetch(data.IndexFile)
		if err != nil {
			return nil, fmt.Errorf("could not load the dataset list: %w", err)
		}
		if idx, err = data.ParseIndex(b); err != nil {
			return nil, err
		}
		e.mu.Lock()
		e.index = idx
		e.mu.Unlock()
	}
	for _, entry := range idx {
		if entry.Name == name {
			b, err := e.Fetch(entry.File)
			if err != nil {
				return nil, fmt.Errorf("could not load %s: %w", entry.Title, err)
			}
			return data.FromIndex(entry, b)
		}
	}
	return nil, fmt.Errorf("unknown dataset %q", name)
}

// parse reads an uploaded file with the user's choices.
func (e *Engine) parse(req wire.ParseRequest, bin *wire.Bin) (*wire.ParseResult, error) {
	raw, err := bin.Raw(req.File)
	if err != nil {
		return nil, err
	}
	if len(raw) > UploadLimit {
		return nil, fmt.Errorf("%s: file is %.1f MB, the limit is %d MB", req.Name, float64(len(raw))/(1<<20), UploadLimit>>20)
	}
	res := &wire.ParseResult{Format: data.FormatOf(req.Name)}
	fail := func(err error) (*wire.ParseResult, error) {
		var pe *data.ParseError
		if errors.As(err, &pe) && pe.File == "" {
			pe.File = req.Name
		}
		if pe != nil && res.Format == "csv" && pe.Col > 0 && pe.Col <= len(res.Roles) && strings.HasSuffix(pe.Msg, "is not a number") {
			// a text column read as a feature: say which role would read it
			pe.Msg += fmt.Sprintf(" — if column %q holds the class names, set its role to “class”, otherwise to “ignore”", res.Header[pe.Col-1])
		}
		res.Errors = append(res.Errors, err.Error())
		return res, nil
	}
	opt := data.ReadOptions{Name: baseName(req.Name), MaxBytes: UploadLimit}
	if req.TwoView {
		opt.Kind = data.KindTwoView
	}
	switch res.Format {
	case "":
		res.Errors = []string{req.Name + ": unknown file type (use .csv, .txt, .libsvm, .svm or .arff)"}
		return res, nil
	case "csv":
		h, rows, err := csvPreview(raw, previewRows)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", req.Name, err))
		}
		res.Header, res.Preview = h, rows
		res.Roles = make([]string, len(h))
		opt.Roles = map[string]data.Role{}
		for i, c := range h {
			r := defaultRole(c)
			if i < len(req.Roles) && req.Roles[i] != "" {
				r = data.Role(req.Roles[i])
			}
			res.Roles[i] = string(r)
			opt.Roles[c] = r
		}
		if len(req.Roles) == 0 {
			if j := textClassColumn(res.Roles, rows); j >= 0 {
				res.Roles[j] = string(data.RoleClass)
				opt.Roles[h[j]] = data.RoleClass
			}
		}
	case "libsvm":
		res.Preview = textPreview(raw, previewRows)
		z, err := bin.Raw(req.ZFile)
		if err != nil {
			return nil, err
		}
		if z != nil {
			opt.Z = bytes.NewReader(z)
		}
	case "arff":
		res.Preview = textPreview(raw, previewRows)
		s := strings.TrimSpace(req.Labels)
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
	ds, err := data.Read(bytes.NewReader(raw), res.Format, opt)
	if err != nil {
		return fail(err)
	}
	ds.Name = baseName(req.Name)
	var buf bytes.Buffer
	if err := data.WriteCSV(&buf, ds); err != nil {
		return fail(err)
	}
	res.CSV, res.Summary = buf.String(), describe(ds)
	res.Rows, res.Dim, res.ZDim, res.Classes, res.Tags = ds.Rows(), ds.Dim(), ds.ZDim(), ds.Classes, ds.TagNames
	return res, nil
}

// defaultRole mirrors the CSV reader's naming rule (data.ReadCSV): "y" or
// "label" is the class, "z_*" second block, "tag_*" a tag, anything else a
// main feature.
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

// textClassColumn proposes the class column of a CSV file whose header
// names none: the last main-feature column whose previewed cells are all
// text (no cell a number), as a column of class names ("dog", "cat") is;
// -1 when the file already has a class column, has tag columns (tag data
// has no class), or has no such column.
func textClassColumn(roles []string, preview [][]string) int {
	for _, r := range roles {
		if r == string(data.RoleClass) || r == string(data.RoleTag) {
			return -1
		}
	}
	if len(preview) == 0 {
		return -1
	}
	for j := len(roles) - 1; j >= 0; j-- {
		if roles[j] != string(data.RoleMain) {
			continue
		}
		text := true
		for _, row := range preview {
			if j >= len(row) {
				text = false
				break
			}
			c := strings.TrimSpace(row[j])
			if _, err := strconv.ParseFloat(c, 64); err == nil || c == "" || c == "?" {
				text = false
				break
			}
		}
		if text {
			return j
		}
	}
	return -1
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

func baseName(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return name
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
