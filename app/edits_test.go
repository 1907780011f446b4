package app

import (
	"testing"

	"lupilab/models/wire"
)

// Undo and redo move edits between the two stacks one at a time, last
// first, and do nothing on an empty stack.
func TestMoveLast(t *testing.T) {
	a, b, c := wire.Edit{Op: "add", Class: 1}, wire.Edit{Op: "erase", Index: 2}, wire.Edit{Op: "move", Index: 3}
	edits, redo := []wire.Edit{a, b, c}, []wire.Edit(nil)
	for i := 0; i < 2; i++ {
		if !moveLast(&edits, &redo) {
			t.Fatal("undo of a non-empty list refused")
		}
	}
	if len(edits) != 1 || edits[0] != a || len(redo) != 2 || redo[0] != c || redo[1] != b {
		t.Fatalf("after two undos: edits %v, redo %v", edits, redo)
	}
	if !moveLast(&redo, &edits) || len(edits) != 2 || edits[1] != b || len(redo) != 1 || redo[0] != c {
		t.Fatalf("after a redo: edits %v, redo %v", edits, redo)
	}
	var empty []wire.Edit
	if moveLast(&empty, &edits) || len(edits) != 2 {
		t.Error("redo with nothing to redo changed the edits")
	}
}

// Ctrl+Z / ⌘Z undo, Ctrl+Shift+Z / ⇧⌘Z / Ctrl+Y redo; other keys, Alt
// combinations and plain letters are not shortcuts.
func TestShortcut(t *testing.T) {
	for _, c := range []struct {
		key                    string
		ctrl, meta, shift, alt bool
		want                   string
	}{
		{"z", true, false, false, false, "undo"},
		{"z", false, true, false, false, "undo"},
		{"Z", true, false, true, false, "redo"},
		{"Z", false, true, true, false, "redo"},
		{"y", true, false, false, false, "redo"},
		{"y", false, true, false, false, ""}, // ⌘Y is not redo on a Mac
		{"z", false, false, false, false, ""},
		{"z", true, false, false, true, ""},
		{"x", true, false, false, false, ""},
	} {
		if got := shortcut(c.key, c.ctrl, c.meta, c.shift, c.alt); got != c.want {
			t.Errorf("shortcut(%q, ctrl %v, meta %v, shift %v, alt %v) = %q, want %q", c.key, c.ctrl, c.meta, c.shift, c.alt, got, c.want)
		}
	}
}

// The shortcuts leave text fields to the browser's own undo, and work on
// the page's buttons, sliders and radio buttons.
func TestTypesText(t *testing.T) {
	for _, c := range []struct {
		tag, typ string
		editable bool
		want     bool
	}{
		{"INPUT", "text", false, true}, {"INPUT", "number", false, true}, {"INPUT", "search", false, true},
		{"TEXTAREA", "textarea", false, true}, {"DIV", "", true, true},
		{"INPUT", "range", false, false}, {"INPUT", "radio", false, false}, {"INPUT", "checkbox", false, false},
		{"BUTTON", "submit", false, false}, {"SELECT", "select-one", false, false}, {"BODY", "", false, false},
		{"CANVAS", "", false, false},
	} {
		if got := typesText(c.tag, c.typ, c.editable); got != c.want {
			t.Errorf("typesText(%s, %s, %v) = %v, want %v", c.tag, c.typ, c.editable, got, c.want)
		}
	}
}
