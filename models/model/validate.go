package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"lupilab/models/data"
)

// Saved models are input like any data file: a file can be truncated,
// edited, relabelled or hostile. Load therefore checks, before anything is
// built from it, that the file is a LUPI Lab model of a known version and
// size, that every model's JSON holds exactly its own fields (a GPC file
// relabelled "svm" is refused, not read as an SVM without support vectors),
// that kernels are known, and that every shape agrees with the others
// (support vectors and coefficients, bases and planes, both views, every
// sub-model of a multi-class model, the saved scaling). A violation is an
// error that names the model and the field; nothing in a model file can
// make Load or Predict panic (FuzzLoadModel in models/all).

// MaxFileBytes is the largest saved model Load, ReadFile and ReadModel
// accept: 256 MiB of JSON, which holds a kernel model on more training
// rows × features than the data readers accept (data.DefaultMaxCells
// values at the ~12 characters a saved float64 takes).
const MaxFileBytes = 256 << 20

// MaxLoadBytes bounds the memory a loader may spend rebuilding what a saved
// model does not store: a GP's posterior is refactorised from its n
// training rows (n×n matrices), so a file declaring a million rows would
// otherwise exhaust any machine. A file that needs more is refused with
// CheckLoadBytes's error. The CLI sets it from predict's -max-memory; the
// app may set its own budget before loading.
var MaxLoadBytes float64 = 2 << 30

// CheckLoadBytes returns an error when rebuilding what (e.g. "the GPC
// posterior of 50000 training rows") needs more than MaxLoadBytes.
func CheckLoadBytes(what string, bytes float64) error {
	if MaxLoadBytes > 0 && bytes > MaxLoadBytes {
		return fmt.Errorf("rebuilding %s needs about %.1f GB, more than the %.1f GB allowed for loading a model", what, bytes/(1<<30), MaxLoadBytes/(1<<30))
	}
	return nil
}

// ReadModel reads a saved model from r, at most MaxFileBytes, and stops at
// once when what it reads cannot start a JSON object (`lupi predict
// -model-file /dev/zero` fails on the first byte).
func ReadModel(r io.Reader) ([]byte, error) {
	var buf bytes.Buffer
	chunk := make([]byte, 64<<10)
	started := false // a non-space byte has been seen (and it was '{')
	for {
		k, err := r.Read(chunk)
		if k > 0 {
			if !started {
				if c, ok := firstByte(chunk[:k]); ok {
					if c != '{' {
						return nil, fmt.Errorf("not a LUPI Lab model file (it starts with %q, not a JSON object)", c)
					}
					started = true
				}
			}
			if int64(buf.Len())+int64(k) > MaxFileBytes {
				return nil, fmt.Errorf("the model file is larger than the limit of %d MiB", MaxFileBytes>>20)
			}
			buf.Write(chunk[:k])
		}
		if err == io.EOF {
			return buf.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ReadFile reads a saved model file (see ReadModel).
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("the model file is %d MiB, more than the limit of %d MiB", st.Size()>>20, MaxFileBytes>>20)
	}
	return ReadModel(f)
}

// firstByte returns the first byte of b that is not JSON white space
// (false when there is none).
func firstByte(b []byte) (byte, bool) {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c, true
	}
	return 0, false
}

// DecodeStrict decodes the JSON in raw into v, refusing fields v does not
// have and anything after the value: every saved model's loader reads its
// JSON with it, so that a file of another model (or a hand-edited one) is
// refused instead of read with its fields ignored.
func DecodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON value")
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// Shaped is implemented by fitted and binary models that know the input
// they predict from: X's columns and, for models that read Z at
// prediction time (two views), Z's (0 otherwise). Load checks that every
// sub-model of a classifier, and the saved scaling, agree with them.
type Shaped interface {
	InputDims() (x, z int)
}

// CheckFinite returns an error naming what when a value of xs is NaN or
// infinite (a saved model's coefficients, offsets).
func CheckFinite(what string, xs ...float64) error {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s is %v, not a finite number", what, x)
		}
	}
	return nil
}

// CheckBinaryLabels checks the labels of a binary training problem (what
// WrapBinary passes a BinaryFitFunc): each is +1 or −1 and both occur. A
// declared class with no training rows leaves a one-vs-rest or one-vs-one
// task with one class, so models check even behind the wrapper. The error
// names the first bad label by its 1-based row.
func CheckBinaryLabels(y []float64) error {
	pos, neg := 0, 0
	for i, v := range y {
		switch v {
		case 1:
			pos++
		case -1:
			neg++
		default:
			return fmt.Errorf("label %v at row %d is not ±1", v, i+1)
		}
	}
	if pos == 0 || neg == 0 {
		return errors.New("only one class is present: a classifier needs both")
	}
	return nil
}

// SplitClasses returns the row indices of the positive (y > 0) and the
// other (−1) samples of binary labels, each in row order: the two classes
// that twin SVMs fit a plane each to and that stratified folds draw from.
func SplitClasses(y []float64) (pos, neg []int) {
	for i, v := range y {
		if v > 0 {
			pos = append(pos, i)
		} else {
			neg = append(neg, i)
		}
	}
	return pos, neg
}

// CheckFiniteSlice is CheckFinite for a slice.
func CheckFiniteSlice(what string, xs []float64) error { return CheckFinite(what, xs...) }

// CheckShape returns an error when the saved matrix m is missing or not
// rows × cols (a negative rows or cols accepts any).
func (m *Matrix) CheckShape(what string, rows, cols int) error {
	if m == nil {
		return fmt.Errorf("%s is missing", what)
	}
	if _, err := m.Dense(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if (rows >= 0 && m.Rows != rows) || (cols >= 0 && m.Cols != cols) {
		want := func(k int) string {
			if k < 0 {
				return "any"
			}
			return fmt.Sprint(k)
		}
		return fmt.Errorf("%s is %d×%d, it must be %s×%s", what, m.Rows, m.Cols, want(rows), want(cols))
	}
	return nil
}

// checkScaler checks a saved scaling: one shift and one positive, finite
// scale per feature, and the model's input dimensions when it knows them.
func checkScaler(sc *data.Scaler, f Fitted) error {
	if len(sc.XShift) == 0 || len(sc.XShift) != len(sc.XScale) || len(sc.ZShift) != len(sc.ZScale) {
		return fmt.Errorf("the saved scaling has %d/%d main and %d/%d second-block shifts/scales", len(sc.XShift), len(sc.XScale), len(sc.ZShift), len(sc.ZScale))
	}
	switch sc.Method {
	case data.ScaleStandard, data.ScaleMinMax, data.ScaleNone:
	default:
		return fmt.Errorf("the saved scaling method %q is not standard, minmax or none", sc.Method)
	}
	for _, s := range [][]float64{sc.XShift, sc.ZShift} {
		if err := CheckFiniteSlice("a saved scaling shift", s); err != nil {
			return err
		}
	}
	for _, s := range [][]float64{sc.XScale, sc.ZScale} {
		for _, v := range s {
			if !(v > 0) || math.IsInf(v, 0) {
				return fmt.Errorf("a saved scaling scale is %v, it must be a finite number > 0", v)
			}
		}
	}
	if sh, ok := f.(Shaped); ok {
		x, z := sh.InputDims()
		if x > 0 && x != len(sc.XShift) {
			return fmt.Errorf("the saved scaling has %d main features, the model %d", len(sc.XShift), x)
		}
		if z > 0 && z != len(sc.ZShift) {
			return fmt.Errorf("the saved scaling has %d second-block features, the model %d", len(sc.ZShift), z)
		}
	}
	return nil
}
