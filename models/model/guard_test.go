package model

import (
	"errors"
	"strings"
	"testing"
)

func TestGuardTurnsPanicsIntoErrors(t *testing.T) {
	err := Guard("reading the model file", func() error {
		var m []int
		_ = m[3] // index out of range
		return nil
	})
	if err == nil || !IsInternal(err) {
		t.Fatalf("Guard returned %v, want an InternalError", err)
	}
	if !strings.HasPrefix(err.Error(), "internal error while reading the model file: runtime error: index out of range") {
		t.Errorf("message %q", err)
	}
	var ie *InternalError
	if errors.As(err, &ie); len(ie.Stack) == 0 {
		t.Error("no stack recorded")
	}
	plain := errors.New("bad input")
	if err := Guard("x", func() error { return plain }); err != plain || IsInternal(err) {
		t.Errorf("an ordinary error came back as %v", err)
	}
	stage := "reading"
	err = GuardWith(func() string { return stage }, func() error {
		stage = "fitting svm"
		panic("boom")
	})
	if err == nil || err.Error() != "internal error while fitting svm: boom" {
		t.Errorf("GuardWith: %v", err)
	}
	v, err := GuardValue("predicting", func() (int, error) { panic(errors.New("nil model")) })
	if v != 0 || err == nil || err.Error() != "internal error while predicting: nil model" {
		t.Errorf("GuardValue: %v, %v", v, err)
	}
	v, err = GuardValue("predicting", func() (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Errorf("GuardValue without panic: %v, %v", v, err)
	}
}
