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
