package model

import "sync"

// Workspace holds the caches that related fits share, so that none of them
// lives in a package variable: the kernel rows of a data set
// (kernel.NewQIn) and SVM2+'s deformed privileged kernel Qλ. The caller
// creates one with NewWorkspace for a family of fits on the same data and
// passes it in Options.Workspace:
//
//   - the tasks of a one-vs-rest or one-vs-one fit (WrapBinary creates one
//     per family when Options.Workspace is nil);
//   - the fits of an experiment, or the points of a grid search (Tune):
//     the folds and grid points fit the same rows again and again.
//
// Fits with different Workspaces (or none) share nothing. What a
// Workspace keeps is bounded by each cache's own rule (the kernel rows of
// the two most recently used data sets of at most 2048 rows, the last Qλ)
// and is freed with the Workspace. It is safe for concurrent use.
type Workspace struct {
	mu    sync.Mutex
	slots map[any]any
}

// NewWorkspace returns an empty workspace.
func NewWorkspace() *Workspace { return &Workspace{} }

// WorkspaceSlot returns the value stored in w under key, creating it with
// create on first use. Packages keep their caches under keys of an
// unexported type (as context.Context values), so that slots never
// collide. A nil w returns nil: nothing is shared.
func WorkspaceSlot[T any](w *Workspace, key any, create func() *T) *T {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if v, ok := w.slots[key]; ok {
		return v.(*T)
	}
	if w.slots == nil {
		w.slots = map[any]any{}
	}
	v := create()
	w.slots[key] = v
	return v
}

// WithWorkspace returns o with a fresh Workspace when it has none: a
// model that fits several sub-models on the same data (one-vs-rest, one
// SVM per tag) calls it so that they share kernel rows even when the caller
// passed no workspace.
func (o Options) WithWorkspace() Options {
	if o.Workspace == nil {
		o.Workspace = NewWorkspace()
	}
	return o
}
