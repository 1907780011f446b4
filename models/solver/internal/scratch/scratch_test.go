package scratch

import "testing"

// TestFloatsReuse: a slice given back is handed out again, zeroed, for
// any length of its size class; small and foreign slices are not pooled.
func TestFloatsReuse(t *testing.T) {
	a := Floats(3000)
	if len(a) != 3000 || cap(a) != 4096 {
		t.Fatalf("len %d cap %d, want 3000 and 4096", len(a), cap(a))
	}
	for i := range a {
		a[i] = float64(i + 1)
	}
	Put(a)
	// sync.Pool may drop what it holds (a GC between Put and Get); try
	// a few times before calling it a failure.
	reused := false
	for try := 0; try < 10 && !reused; try++ {
		b := Floats(2500)
		if len(b) != 2500 {
			t.Fatalf("len %d, want 2500", len(b))
		}
		for i, v := range b {
			if v != 0 {
				t.Fatalf("entry %d is %v after reuse, want 0", i, v)
			}
		}
		reused = &b[0] == &a[0]
		Put(b)
	}
	if !reused {
		t.Error("the slice given back was never handed out again")
	}
	if s := Floats(10); cap(s) != 10 {
		t.Errorf("a small slice has capacity %d, want its length", cap(s))
	}
	Put(make([]float64, 3000)) // foreign capacity: ignored
	if b := Floats(3000); cap(b) != 4096 {
		t.Errorf("cap %d after a foreign Put, want 4096", cap(b))
	}
}
