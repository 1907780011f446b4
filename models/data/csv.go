package data

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ReadCSV reads a CSV file with a header row. The delimiter is a comma, or a
// tab or semicolon when the header has no comma. Columns get their role from
// their header name — "y" or "label" (any case) is the class, "x_*" a main
// feature, "z_*" a feature of the second block, "tag_*" a 0/1 tag, anything
// else a main feature — unless opt.Roles says otherwise. Column names are
// kept as written.
//
// Class labels keep their text (trimmed). If every label is a number, they
// are canonicalised ("1.0" and "+1" become "1") and Classes is sorted
// numerically; otherwise Classes is in order of first appearance. A file
// with tag columns and no class column is multi-label; one with "z_*"
// columns has Kind opt.Kind (KindLUPI by default).
//
// It is an error (a *ParseError with line and column where they apply) when
// the file is empty or over a limit, a header name is empty or repeated, a
// row has a different number of fields than the header, a feature is not a
// finite number, a tag is not 0 or 1, or all rows have one class (unless
// opt.AllowOneClass).
func ReadCSV(r io.Reader, opt ReadOptions) (*Dataset, error) {
	b, err := readAll(r, &opt)
	if err != nil {
		return nil, err
	}
	cr := csv.NewReader(bytes.NewReader(b))
	cr.Comma = sniffDelimiter(b)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true

	header, err := cr.Read()
	if err == io.EOF {
		return nil, &ParseError{Msg: ErrEmpty.Error()}
	}
	if err != nil {
		return nil, csvErr(err)
	}
	hline, _ := cr.FieldPos(0)
	if len(header) > opt.maxCols() {
		return nil, perr(hline, 0, "%d columns is more than the limit of %d", len(header), opt.maxCols())
	}
	names, roles, classCol, err := csvColumns(header, hline, opt.Roles)
	if err != nil {
		return nil, err
	}
	bl := &builder{}
	for j, r := range roles {
		switch r {
		case RoleMain:
			bl.xNames = append(bl.xNames, names[j])
		case RoleSecond:
			bl.zNames = append(bl.zNames, names[j])
		case RoleTag:
			bl.tags_ = append(bl.tags_, names[j])
		}
	}
	if classCol >= 0 {
		bl.labels = []string{}
	}
	maxRows, maxCells := opt.maxRows(), opt.maxCells()
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvErr(err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			return nil, perr(line, min(len(rec), len(header))+1, "%d fields, but the header has %d (ragged row)", len(rec), len(header))
		}
		if bl.n+1 > maxRows {
			return nil, perr(line, 0, "more than the limit of %d rows", maxRows)
		}
		if (bl.n+1)*len(header) > maxCells {
			return nil, perr(line, 0, "more than the limit of %d cells", maxCells)
		}
		if err := bl.addCSVRow(rec, names, roles, line); err != nil {
			return nil, err
		}
		bl.n++
	}
	return bl.dataset(&opt)
}

// csvColumns reads the header: trimmed column names (none empty or
// repeated), their roles (by name prefix, or as chosen) and the class
// column (-1 without one).
func csvColumns(header []string, hline int, chosen map[string]Role) (names []string, roles []Role, classCol int, err error) {
	names = make([]string, len(header))
	roles = make([]Role, len(header))
	seen := map[string]int{}
	classCol = -1
	for j, h := range header {
		name := strings.TrimSpace(h)
		if name == "" {
			return nil, nil, 0, perr(hline, j+1, "empty column name in the header")
		}
		if k, dup := seen[name]; dup {
			return nil, nil, 0, perr(hline, j+1, "duplicate column name %q (also column %d)", short(name), k+1)
		}
		seen[name] = j
		names[j] = name
		roles[j] = defaultRole(name)
		if r, ok := chosen[name]; ok {
			if !validRole(r) {
				return nil, nil, 0, perr(hline, j+1, "column %q: unknown role %q", short(name), r)
			}
			roles[j] = r
		}
		if roles[j] == RoleClass {
			if classCol >= 0 {
				return nil, nil, 0, perr(hline, j+1, "two class columns (%q and %q): choose one", short(names[classCol]), short(name))
			}
			classCol = j
		}
	}
	for name := range chosen {
		if _, ok := seen[name]; !ok {
			return nil, nil, 0, perr(hline, 0, "a role is set for column %q, which the header does not have", short(name))
		}
	}
	return names, roles, classCol, nil
}

// addCSVRow appends one record's class label, features and tags.
func (bl *builder) addCSVRow(rec, names []string, roles []Role, line int) error {
	for j, f := range rec {
		switch roles[j] {
		case RoleClass:
			l := strings.TrimSpace(f)
			if l == "" || l == "?" {
				return perr(line, j+1, "missing class label")
			}
			bl.labels = append(bl.labels, l)
		case RoleMain, RoleSecond, RoleTag:
			v, err := parseNumber(f, line, j+1)
			if err != nil {
				return err
			}
			switch roles[j] {
			case RoleMain:
				bl.x = append(bl.x, v)
			case RoleSecond:
				bl.z = append(bl.z, v)
			default:
				if v != 0 && v != 1 {
					return perr(line, j+1, "tag %q: value %q is not 0 or 1", short(names[j]), short(f))
				}
				bl.tags = append(bl.tags, v)
			}
		}
	}
	return nil
}

func sniffDelimiter(b []byte) rune {
	first := b
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		first = b[:i]
	}
	switch {
	case bytes.IndexByte(first, ',') >= 0:
		return ','
	case bytes.IndexByte(first, '\t') >= 0:
		return '\t'
	case bytes.IndexByte(first, ';') >= 0:
		return ';'
	}
	return ','
}

func csvErr(err error) error {
	var ce *csv.ParseError
	if errors.As(err, &ce) {
		return perr(ce.Line, ce.Column, "%v", ce.Err)
	}
	return fmt.Errorf("data: %w", err)
}
