package data

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ReadLIBSVM reads LIBSVM / SVMlight sparse text: one sample per line,
// "label index:value index:value …", 1-based strictly increasing indices,
// "#" starts a comment, blank lines are skipped. Features become the main
// block X (column names "x_1" … "x_d", d the largest index; absent entries
// are 0). A label with commas ("1,3") makes the file multi-label: the tags
// are the label values seen (names "tag_<value>"), and a line whose first
// token is a feature has no tags.
//
// If opt.Z is set it is read the same way as the second block Z (names
// "z_1" …); it must have the same number of samples with the same labels.
// Labels follow the numeric / first-appearance rule of ReadCSV.
func ReadLIBSVM(r io.Reader, opt ReadOptions) (*Dataset, error) {
	main, err := parseSparse(r, &opt)
	if err != nil {
		return nil, err
	}
	bl := &builder{n: len(main.rows)}
	bl.xNames = colNames("x_", main.dim)
	bl.x, err = main.dense(&opt)
	if err != nil {
		return nil, err
	}
	if opt.Z != nil {
		zs, err := parseSparse(opt.Z, &opt)
		if err != nil {
			if pe, ok := err.(*ParseError); ok && !strings.HasPrefix(pe.Msg, "Z file") {
				pe.Msg = "Z file: " + pe.Msg
			}
			return nil, err
		}
		if len(zs.rows) != len(main.rows) {
			return nil, &ParseError{Msg: fmt.Sprintf("Z file: %d samples, the main file has %d", len(zs.rows), len(main.rows))}
		}
		numeric := allNumeric(main.labels) && allNumeric(zs.labels)
		for i := range zs.rows {
			if canonLabel(zs.labels[i], numeric) != canonLabel(main.labels[i], numeric) {
				return nil, perr(zs.lines[i], 1, "Z file: label %q differs from the main file's %q (line %d)", short(zs.labels[i]), short(main.labels[i]), main.lines[i])
			}
		}
		bl.zNames = colNames("z_", zs.dim)
		bl.z, err = zs.dense(&opt)
		if err != nil {
			return nil, err
		}
	}
	if main.multi {
		// Tags: the distinct label values, numerically when all numeric.
		var all []string
		for _, l := range main.labels {
			all = append(all, splitTags(l)...)
		}
		_, tagNames := classIndex(all)
		numeric := allNumeric(all)
		pos := map[string]int{}
		for i, t := range tagNames {
			pos[t] = i
			bl.tags_ = append(bl.tags_, "tag_"+t)
		}
		if len(tagNames) > opt.maxCols() {
			return nil, &ParseError{Msg: fmt.Sprintf("%d distinct tags is more than the limit of %d columns", len(tagNames), opt.maxCols())}
		}
		if bl.n*len(tagNames) > opt.maxCells() {
			return nil, &ParseError{Msg: fmt.Sprintf("%d samples × %d tags is more than the limit of %d cells", bl.n, len(tagNames), opt.maxCells())}
		}
		bl.tags = make([]float64, bl.n*len(tagNames))
		for i, l := range main.labels {
			for _, t := range splitTags(l) {
				bl.tags[i*len(tagNames)+pos[canonLabel(t, numeric)]] = 1
			}
		}
	} else {
		bl.labels = main.labels
	}
	// MaxCols and MaxCells bound the whole table (X, Z, tags and the label
	// column), as they do for CSV.
	cols := len(bl.xNames) + len(bl.zNames) + len(bl.tags_)
	if bl.labels != nil {
		cols++
	}
	if cols > opt.maxCols() {
		return nil, &ParseError{Msg: fmt.Sprintf("%d columns (label, features and tags) is more than the limit of %d", cols, opt.maxCols())}
	}
	if bl.n*cols > opt.maxCells() {
		return nil, &ParseError{Msg: fmt.Sprintf("%d samples × %d columns is more than the limit of %d cells", bl.n, cols, opt.maxCells())}
	}
	return bl.dataset(&opt)
}

func splitTags(l string) []string {
	if l == "" {
		return nil
	}
	return strings.Split(l, ",")
}

func colNames(prefix string, d int) []string {
	out := make([]string, d)
	for j := range out {
		out[j] = prefix + strconv.Itoa(j+1)
	}
	return out
}

type sparseEntry struct {
	col int // 0-based
	val float64
}

type sparseFile struct {
	rows   [][]sparseEntry
	labels []string
	lines  []int
	dim    int
	multi  bool
}

func (s *sparseFile) dense(opt *ReadOptions) ([]float64, error) {
	n := len(s.rows)
	if s.dim == 0 {
		return nil, &ParseError{Msg: "no features: every line has only a label"}
	}
	if s.dim > opt.maxCols() {
		return nil, &ParseError{Msg: fmt.Sprintf("feature index %d is more than the limit of %d columns", s.dim, opt.maxCols())}
	}
	if n*s.dim > opt.maxCells() || n*s.dim/s.dim != n {
		return nil, &ParseError{Msg: fmt.Sprintf("%d samples × %d features is more than the limit of %d cells", n, s.dim, opt.maxCells())}
	}
	out := make([]float64, n*s.dim)
	for i, row := range s.rows {
		for _, e := range row {
			out[i*s.dim+e.col] = e.val
		}
	}
	return out, nil
}

func parseSparse(r io.Reader, opt *ReadOptions) (*sparseFile, error) {
	b, err := readAll(r, opt)
	if err != nil {
		return nil, err
	}
	s := &sparseFile{}
	maxRows, maxCols := opt.maxRows(), opt.maxCols()
	anyTagless := false
	for ln, line := range lines(b) {
		lineNo := ln + 1
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		tok := strings.Fields(line)
		if len(tok) == 0 {
			continue
		}
		if len(s.rows)+1 > maxRows {
			return nil, perr(lineNo, 0, "more than the limit of %d rows", maxRows)
		}
		label := ""
		start := 0
		if strings.Contains(tok[0], ":") {
			anyTagless = true // a multi-label line without tags (checked below)
		} else {
			label = tok[0]
			start = 1
			if label == "?" {
				return nil, perr(lineNo, 1, "missing class label \"?\"")
			}
			if strings.Contains(label, ",") {
				s.multi = true
			}
		}
		row := make([]sparseEntry, 0, len(tok)-start)
		prev := 0
		for k := start; k < len(tok); k++ {
			t := tok[k]
			colon := strings.IndexByte(t, ':')
			if colon < 0 {
				return nil, perr(lineNo, k+1, "%q is not index:value", short(t))
			}
			idx, err := strconv.Atoi(t[:colon])
			if err != nil || idx < 1 {
				return nil, perr(lineNo, k+1, "feature index %q is not a positive integer", short(t[:colon]))
			}
			if idx <= prev {
				return nil, perr(lineNo, k+1, "feature index %d after %d: indices must increase", idx, prev)
			}
			if idx > maxCols {
				return nil, perr(lineNo, k+1, "feature index %d is more than the limit of %d columns", idx, maxCols)
			}
			prev = idx
			v, err := parseNumber(t[colon+1:], lineNo, k+1)
			if err != nil {
				return nil, err
			}
			if v != 0 {
				row = append(row, sparseEntry{col: idx - 1, val: v})
			}
			if idx > s.dim {
				s.dim = idx
			}
		}
		s.rows = append(s.rows, row)
		s.labels = append(s.labels, label)
		s.lines = append(s.lines, lineNo)
	}
	if len(s.rows) == 0 {
		return nil, &ParseError{Msg: ErrEmpty.Error()}
	}
	if anyTagless && !s.multi {
		for i, l := range s.labels {
			if l == "" {
				return nil, perr(s.lines[i], 1, "the line has no label")
			}
		}
	}
	if s.multi {
		for i, l := range s.labels {
			for _, t := range splitTags(l) {
				if strings.TrimSpace(t) == "" {
					return nil, perr(s.lines[i], 1, "empty tag in label list %q", short(l))
				}
			}
		}
	}
	return s, nil
}

// WriteLIBSVM writes the main block X in LIBSVM format (zeros omitted) to w
// and, when zw is not nil and the dataset has Z, the Z block to zw with the
// same labels. Labels are class names, or comma-separated tag indices
// (1-based) for multi-label data.
func WriteLIBSVM(w, zw io.Writer, ds *Dataset) error {
	if err := ds.Validate(); err != nil {
		return err
	}
	labels := make([]string, ds.Rows())
	for i := range labels {
		if ds.Y != nil {
			labels[i] = strings.ReplaceAll(ds.Classes[ds.Y[i]], " ", "_")
		} else {
			var ts []string
			for j := 0; j < ds.NumTags(); j++ {
				if ds.Tags.At(i, j) == 1 {
					ts = append(ts, strconv.Itoa(j+1))
				}
			}
			labels[i] = strings.Join(ts, ",")
		}
	}
	write := func(w io.Writer, m interface {
		At(i, j int) float64
		Dims() (int, int)
	}) error {
		n, d := m.Dims()
		var sb strings.Builder
		for i := 0; i < n; i++ {
			sb.Reset()
			sb.WriteString(labels[i])
			for j := 0; j < d; j++ {
				if v := m.At(i, j); v != 0 {
					sb.WriteByte(' ')
					sb.WriteString(strconv.Itoa(j + 1))
					sb.WriteByte(':')
					sb.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
				}
			}
			if sb.Len() == 0 {
				sb.WriteString("1:0") // keep the row: a line with neither tags nor features would be skipped
			}
			sb.WriteByte('\n')
			if _, err := io.WriteString(w, sb.String()); err != nil {
				return err
			}
		}
		return nil
	}
	if err := write(w, ds.X); err != nil {
		return err
	}
	if zw != nil && ds.Z != nil {
		return write(zw, ds.Z)
	}
	return nil
}

func allNumeric(labels []string) bool {
	for _, l := range labels {
		v, err := strconv.ParseFloat(l, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return len(labels) > 0
}

// canonLabel is the class name classIndex gives a label.
func canonLabel(l string, numeric bool) string {
	if !numeric {
		return l
	}
	v, _ := strconv.ParseFloat(l, 64)
	if v == 0 {
		v = 0
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
