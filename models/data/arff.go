package data

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

type arffAttr struct {
	name    string
	typ     string   // "numeric", "nominal", "string", "date"
	values  []string // nominal values
	line    int
	role    Role
	outCols []int // for main/second: output column(s) in X or Z
}

// mekaLabelCount reads MEKA's "-C n" option from a @relation name: the first
// "-C", one or more spaces, an optional minus and digits (the regular
// expression `-C\s+(-?\d+)`, written out: package regexp would add 0.26 MB
// to the browser's compute build for this one pattern).
func mekaLabelCount(relation string) (int, bool) {
	for i := 0; i+2 <= len(relation); i++ {
		if relation[i] != '-' || relation[i+1] != 'C' {
			continue
		}
		j := i + 2
		for j < len(relation) && isSpaceASCII(relation[j]) {
			j++
		}
		if j == i+2 {
			continue
		}
		k := j
		if k < len(relation) && relation[k] == '-' {
			k++
		}
		d := k
		for d < len(relation) && relation[d] >= '0' && relation[d] <= '9' {
			d++
		}
		if d == k {
			continue
		}
		n, err := strconv.Atoi(relation[j:d])
		return n, err == nil
	}
	return 0, false
}

// isSpaceASCII is regexp's \s: tab, newline, form feed, carriage return, space.
func isSpaceASCII(c byte) bool {
	return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '
}

// ReadARFF reads a Weka ARFF file, dense or sparse ("{index value, …}",
// 0-based indices, absent entries 0 — for a nominal attribute its first
// value). Label attributes are chosen by opt.ARFFLabels (names, as Mulan's
// XML does), opt.ARFFLabelCount (MEKA's -C n: first n, or last |n| when
// negative), a "-C n" in the @relation name, or by default the attribute
// named "class" (any case), else the last nominal attribute. One label
// attribute is the class; several are 0/1 tags (values must be 0 or 1).
// Other attributes: names starting with "z_" go to Z, "tag_" are tags, the
// rest are main features; opt.Roles overrides any of this by name. Numeric
// features are read as numbers; nominal features with two values become one
// 0/1 column (the value's index), with more values one 0/1 column per value
// ("name=value"). String and date attributes must be the class or ignored.
// Relational attributes are not supported. Missing values ("?") are errors.
func ReadARFF(r io.Reader, opt ReadOptions) (*Dataset, error) {
	b, err := readAll(r, &opt)
	if err != nil {
		return nil, err
	}
	ls := lines(b)
	attrs, relation, dataLine, err := readARFFHeader(ls, &opt)
	if err != nil {
		return nil, err
	}
	if err := assignARFFRoles(attrs, relation, &opt); err != nil {
		return nil, err
	}
	bl := &builder{}
	width := bl.arffColumns(attrs)
	if width > opt.maxCols() {
		return nil, &ParseError{Msg: fmt.Sprintf("%d columns after expanding nominal attributes is more than the limit of %d", width, opt.maxCols())}
	}
	maxRows, maxCells := opt.maxRows(), opt.maxCells()
	vals := make([]string, len(attrs))
	given := make([]bool, len(attrs))
	for i := dataLine + 1; i < len(ls); i++ {
		ln := i + 1
		line := strings.TrimSpace(ls[i])
		if line == "" || line[0] == '%' {
			continue
		}
		if bl.n+1 > maxRows {
			return nil, perr(ln, 0, "more than the limit of %d rows", maxRows)
		}
		if (bl.n+1)*width > maxCells {
			return nil, perr(ln, 0, "more than the limit of %d cells", maxCells)
		}
		if line[0] == '{' {
			if err := sparseARFFRow(line, ln, attrs, vals, given); err != nil {
				return nil, err
			}
		} else {
			fields, err := splitARFF(line, ln)
			if err != nil {
				return nil, err
			}
			if len(fields) != len(attrs) {
				return nil, perr(ln, min(len(fields), len(attrs))+1, "%d values, but there are %d attributes (ragged row)", len(fields), len(attrs))
			}
			for j, f := range fields {
				vals[j] = f.text
			}
		}
		if err := bl.addARFFRow(attrs, vals, ln); err != nil {
			return nil, err
		}
		bl.n++
	}
	return bl.dataset(&opt)
}

// readARFFHeader reads the declarations up to @data: the attributes, the
// relation name and the index of the @data line.
func readARFFHeader(ls []string, opt *ReadOptions) (attrs []*arffAttr, relation string, dataLine int, err error) {
	dataLine = -1
	for i, raw := range ls {
		ln := i + 1
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == '%' {
			continue
		}
		if line[0] != '@' {
			return nil, "", 0, perr(ln, 0, "expected @relation, @attribute or @data, found %q", short(line))
		}
		kw, rest := cutSpace(line)
		switch strings.ToLower(kw) {
		case "@relation":
			relation = rest
		case "@attribute":
			a, err := parseAttribute(rest, ln)
			if err != nil {
				return nil, "", 0, err
			}
			for _, b := range attrs {
				if b.name == a.name {
					return nil, "", 0, perr(ln, 0, "duplicate attribute name %q (also line %d)", short(a.name), b.line)
				}
			}
			attrs = append(attrs, a)
			if len(attrs) > opt.maxCols() {
				return nil, "", 0, perr(ln, 0, "more than the limit of %d attributes", opt.maxCols())
			}
		case "@data":
			dataLine = i
		case "@end":
			// Some writers close relational attributes with @end; unsupported there.
			return nil, "", 0, perr(ln, 0, "relational attributes (@end) are not supported")
		default:
			return nil, "", 0, perr(ln, 0, "unknown declaration %q", short(kw))
		}
		if dataLine >= 0 {
			break
		}
	}
	if len(attrs) == 0 {
		return nil, "", 0, &ParseError{Msg: "no @attribute declarations"}
	}
	if dataLine < 0 {
		return nil, "", 0, &ParseError{Msg: "no @data section"}
	}
	return attrs, relation, dataLine, nil
}

// arffColumns lays out the output columns of the attributes by role (a
// nominal feature with more than two values gives one 0/1 column per value)
// and returns the number of columns a row fills.
func (bl *builder) arffColumns(attrs []*arffAttr) int {
	for _, a := range attrs {
		switch a.role {
		case RoleMain, RoleSecond:
			names := []string{a.name}
			if a.typ == "nominal" && len(a.values) > 2 {
				names = names[:0]
				for _, v := range a.values {
					names = append(names, a.name+"="+v)
				}
			}
			dst := &bl.xNames
			if a.role == RoleSecond {
				dst = &bl.zNames
			}
			for _, nm := range names {
				a.outCols = append(a.outCols, len(*dst))
				*dst = append(*dst, nm)
			}
		case RoleTag:
			a.outCols = []int{len(bl.tags_)}
			bl.tags_ = append(bl.tags_, a.name)
		case RoleClass:
			bl.labels = []string{}
		}
	}
	width := len(bl.xNames) + len(bl.zNames) + len(bl.tags_)
	if bl.labels != nil {
		width++
	}
	return width
}

// sparseARFFRow reads a sparse row "{i v, j w, …}" into vals (given marks
// the attributes it names); the others take 0, or a nominal attribute its
// first value.
func sparseARFFRow(line string, ln int, attrs []*arffAttr, vals []string, given []bool) error {
	if !strings.HasSuffix(line, "}") {
		return perr(ln, 0, "sparse row without a closing \"}\"")
	}
	for j := range given {
		given[j] = false
	}
	fields, err := splitARFF(line[1:len(line)-1], ln)
	if err != nil {
		return err
	}
	prev := -1
	for k, f := range fields {
		if f.text == "" && len(fields) == 1 && !f.quoted {
			break // "{}": all zero
		}
		is, v := cutSpace(f.text)
		idx, err := strconv.Atoi(is)
		if err != nil || idx < 0 || idx >= len(attrs) {
			return perr(ln, k+1, "sparse index %q is not an attribute number in [0,%d)", short(is), len(attrs))
		}
		if idx <= prev {
			return perr(ln, k+1, "sparse index %d after %d: indices must increase", idx, prev)
		}
		prev = idx
		vals[idx] = unquote(v)
		given[idx] = true
	}
	for j, a := range attrs {
		if !given[j] {
			vals[j] = "0"
			if a.typ == "nominal" && len(a.values) > 0 {
				vals[j] = a.values[0]
			}
		}
	}
	return nil
}

func (bl *builder) addARFFRow(attrs []*arffAttr, vals []string, ln int) error {
	nx, nz := len(bl.xNames), len(bl.zNames)
	xs := make([]float64, nx)
	zs := make([]float64, nz)
	for j, a := range attrs {
		v := vals[j]
		col := j + 1
		switch a.role {
		case RoleIgnore:
			continue
		case RoleClass:
			if v == "" || v == "?" {
				return perr(ln, col, "missing class label")
			}
			if a.typ == "nominal" && indexOf(a.values, v) < 0 {
				return perr(ln, col, "%q is not one of the values of %q", short(v), short(a.name))
			}
			bl.labels = append(bl.labels, v)
			continue
		}
		dst := xs
		if a.role == RoleSecond {
			dst = zs
		}
		switch {
		case a.role == RoleTag:
			f, err := parseNumber(v, ln, col)
			if err != nil {
				return err
			}
			if f != 0 && f != 1 {
				return perr(ln, col, "tag %q: value %q is not 0 or 1", short(a.name), short(v))
			}
			bl.tags = append(bl.tags, f)
		case a.typ == "numeric":
			f, err := parseNumber(v, ln, col)
			if err != nil {
				return err
			}
			dst[a.outCols[0]] = f
		case a.typ == "nominal":
			if v == "?" {
				return perr(ln, col, "missing value \"?\"")
			}
			k := indexOf(a.values, v)
			if k < 0 {
				return perr(ln, col, "%q is not one of the values of %q", short(v), short(a.name))
			}
			if len(a.outCols) == 1 {
				dst[a.outCols[0]] = float64(k)
			} else {
				dst[a.outCols[k]] = 1
			}
		default:
			return perr(ln, col, "attribute %q is a %s: only numbers and nominal values can be features", short(a.name), a.typ)
		}
	}
	bl.x = append(bl.x, xs...)
	bl.z = append(bl.z, zs...)
	return nil
}

func indexOf(list []string, v string) int {
	for i, x := range list {
		if x == v {
			return i
		}
	}
	return -1
}

func assignARFFRoles(attrs []*arffAttr, relation string, opt *ReadOptions) error {
	labels, err := arffLabelAttrs(attrs, relation, opt)
	if err != nil {
		return err
	}
	isLabel := make([]bool, len(attrs))
	for _, k := range labels {
		isLabel[k] = true
	}
	classSet := false
	for j, a := range attrs {
		switch {
		case isLabel[j] && len(labels) == 1:
			a.role = RoleClass
			classSet = true
		case isLabel[j]:
			a.role = RoleTag
		default:
			a.role = defaultRole(a.name)
			if a.role == RoleClass {
				a.role = RoleMain // decided below
			}
		}
	}
	if !classSet && len(labels) == 0 {
		if err := guessARFFClass(attrs, opt); err != nil {
			return err
		}
	}
	if err := applyARFFRoles(attrs, opt.Roles); err != nil {
		return err
	}
	return checkARFFRoles(attrs)
}

// arffLabelAttrs are the indices of the label attributes: those opt names,
// else the first ARFFLabelCount (the last ones when negative), else as many
// as a MEKA relation's "-C n" declares.
func arffLabelAttrs(attrs []*arffAttr, relation string, opt *ReadOptions) ([]int, error) {
	var labels []int
	if len(opt.ARFFLabels) > 0 {
		for _, name := range opt.ARFFLabels {
			k := -1
			for j, a := range attrs {
				if a.name == name {
					k = j
				}
			}
			if k < 0 {
				return nil, &ParseError{Msg: fmt.Sprintf("label attribute %q is not declared", short(name))}
			}
			labels = append(labels, k)
		}
		return labels, nil
	}
	n := opt.ARFFLabelCount
	if n == 0 {
		n, _ = mekaLabelCount(relation)
	}
	if n > len(attrs) || -n > len(attrs) {
		return nil, &ParseError{Msg: fmt.Sprintf("%d label attributes requested, the file has %d attributes", n, len(attrs))}
	}
	for k := 0; k < n; k++ {
		labels = append(labels, k)
	}
	for k := len(attrs) + n; k < len(attrs) && n < 0; k++ {
		labels = append(labels, k)
	}
	return labels, nil
}

// guessARFFClass makes the class the last attribute named "class", else the
// last named "y" or "label", else the last nominal main one; without any it
// is an error unless the file has tags, roles are chosen or unlabelled data
// is allowed.
func guessARFFClass(attrs []*arffAttr, opt *ReadOptions) error {
	k := lastAttr(attrs, func(a *arffAttr) bool { return strings.EqualFold(a.name, "class") })
	if k < 0 {
		k = lastAttr(attrs, func(a *arffAttr) bool { return strings.EqualFold(a.name, "y") || strings.EqualFold(a.name, "label") })
	}
	if k < 0 {
		k = lastAttr(attrs, func(a *arffAttr) bool { return a.typ == "nominal" && a.role == RoleMain })
	}
	hasTags := lastAttr(attrs, func(a *arffAttr) bool { return a.role == RoleTag }) >= 0
	if k >= 0 {
		attrs[k].role = RoleClass
	} else if !hasTags && len(opt.Roles) == 0 && !opt.AllowUnlabelled {
		return &ParseError{Msg: "no class attribute: name one \"class\", make it nominal, or choose the labels"}
	}
	return nil
}

// lastAttr is the index of the last attribute for which ok holds, or -1.
func lastAttr(attrs []*arffAttr, ok func(*arffAttr) bool) int {
	k := -1
	for j, a := range attrs {
		if ok(a) {
			k = j
		}
	}
	return k
}

// applyARFFRoles sets the roles the caller chose by attribute name.
func applyARFFRoles(attrs []*arffAttr, roles map[string]Role) error {
	known := map[string]bool{}
	for _, a := range attrs {
		known[a.name] = true
		if r, ok := roles[a.name]; ok {
			if !validRole(r) {
				return perr(a.line, 0, "attribute %q: unknown role %q", short(a.name), r)
			}
			a.role = r
		}
	}
	for name := range roles {
		if !known[name] {
			return &ParseError{Msg: fmt.Sprintf("a role is set for attribute %q, which the file does not declare", short(name))}
		}
	}
	return nil
}

// checkARFFRoles refuses two classes, feature columns that are neither
// numeric nor nominal and tags that are not 0/1.
func checkARFFRoles(attrs []*arffAttr) error {
	class := -1
	for j, a := range attrs {
		if a.role == RoleClass {
			if class >= 0 {
				return perr(a.line, 0, "two class attributes (%q and %q): choose one", short(attrs[class].name), short(a.name))
			}
			class = j
		}
		if (a.role == RoleMain || a.role == RoleSecond) && a.typ != "numeric" && a.typ != "nominal" {
			return perr(a.line, 0, "attribute %q is a %s: make it the class or ignore it", short(a.name), a.typ)
		}
		if a.role == RoleTag && a.typ == "nominal" {
			for _, v := range a.values {
				if v != "0" && v != "1" {
					return perr(a.line, 0, "tag attribute %q must have the values {0,1}, has %q", short(a.name), short(v))
				}
			}
		}
		if a.role == RoleTag && a.typ != "nominal" && a.typ != "numeric" {
			return perr(a.line, 0, "tag attribute %q is a %s, not 0/1", short(a.name), a.typ)
		}
	}
	return nil
}

func cutSpace(s string) (string, string) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}

func parseAttribute(rest string, ln int) (*arffAttr, error) {
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return nil, perr(ln, 0, "@attribute without a name")
	}
	var name, typ string
	if rest[0] == '\'' || rest[0] == '"' {
		q := rest[0]
		end := -1
		for i := 1; i < len(rest); i++ {
			if rest[i] == '\\' {
				i++
				continue
			}
			if rest[i] == q {
				end = i
				break
			}
		}
		if end < 0 {
			return nil, perr(ln, 0, "unterminated quoted attribute name")
		}
		name = unquote(rest[:end+1])
		typ = strings.TrimSpace(rest[end+1:])
	} else {
		name, typ = cutSpace(rest)
	}
	if name == "" {
		return nil, perr(ln, 0, "@attribute with an empty name")
	}
	a := &arffAttr{name: name, line: ln}
	lt := strings.ToLower(typ)
	switch {
	case lt == "numeric" || lt == "real" || lt == "integer":
		a.typ = "numeric"
	case lt == "string":
		a.typ = "string"
	case strings.HasPrefix(lt, "date"):
		a.typ = "date"
	case strings.HasPrefix(lt, "relational"):
		return nil, perr(ln, 0, "relational attribute %q is not supported", short(name))
	case strings.HasPrefix(typ, "{"):
		if !strings.HasSuffix(typ, "}") {
			return nil, perr(ln, 0, "nominal attribute %q: missing \"}\"", short(name))
		}
		fields, err := splitARFF(typ[1:len(typ)-1], ln)
		if err != nil {
			return nil, err
		}
		a.typ = "nominal"
		for _, f := range fields {
			if f.text == "" && !f.quoted {
				if len(fields) == 1 {
					break
				}
				return nil, perr(ln, 0, "nominal attribute %q: empty value", short(name))
			}
			if indexOf(a.values, f.text) >= 0 {
				return nil, perr(ln, 0, "nominal attribute %q: value %q repeated", short(name), short(f.text))
			}
			a.values = append(a.values, f.text)
		}
		if len(a.values) == 0 {
			return nil, perr(ln, 0, "nominal attribute %q has no values", short(name))
		}
	case typ == "":
		return nil, perr(ln, 0, "attribute %q has no type", short(name))
	default:
		return nil, perr(ln, 0, "attribute %q: unknown type %q", short(name), short(typ))
	}
	return a, nil
}

type arffField struct {
	text   string
	quoted bool
}

// splitARFF splits comma-separated values, honouring '…' and "…" quotes
// with backslash escapes; unquoted values are trimmed.
func splitARFF(s string, ln int) ([]arffField, error) {
	var out []arffField
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		var f arffField
		if i < len(s) && (s[i] == '\'' || s[i] == '"') {
			q := s[i]
			var sb strings.Builder
			i++
			closed := false
			for i < len(s) {
				c := s[i]
				if c == '\\' && i+1 < len(s) {
					sb.WriteByte(unescape(s[i+1]))
					i += 2
					continue
				}
				if c == q {
					closed = true
					i++
					break
				}
				sb.WriteByte(c)
				i++
			}
			if !closed {
				return nil, perr(ln, len(out)+1, "unterminated quoted value")
			}
			f = arffField{text: sb.String(), quoted: true}
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			if i < len(s) && s[i] != ',' {
				return nil, perr(ln, len(out)+1, "unexpected text after a quoted value")
			}
		} else {
			j := strings.IndexByte(s[i:], ',')
			end := len(s)
			if j >= 0 {
				end = i + j
			}
			f = arffField{text: strings.TrimSpace(s[i:end])}
			i = end
		}
		out = append(out, f)
		if i >= len(s) {
			return out, nil
		}
		i++ // skip the comma
	}
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	}
	return c
}

func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		var sb strings.Builder
		for i := 1; i < len(s)-1; i++ {
			if s[i] == '\\' && i+1 < len(s)-1 {
				sb.WriteByte(unescape(s[i+1]))
				i++
				continue
			}
			sb.WriteByte(s[i])
		}
		return sb.String()
	}
	return s
}
