package model

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// InternalError is an unexpected panic turned into an error at an entry point
// (a CLI command, a browser job or worker message): a bug, never a bad input,
// which must get a clear error of its own before it reaches a panic. What
// says what was being done; Value is what the panic carried; Stack is the
// goroutine's stack at the panic, for a bug report.
type InternalError struct {
	What  string
	Value any
	Stack []byte
}

// Error implements error: "internal error while <what>: <value>".
func (e *InternalError) Error() string {
	return fmt.Sprintf("internal error while %s: %v", e.What, e.Value)
}

// IsInternal reports whether err is (or wraps) an InternalError.
func IsInternal(err error) bool {
	var ie *InternalError
	return errors.As(err, &ie)
}

// Guard runs f and returns its error; a panic in f (on this goroutine)
// becomes an *InternalError saying what was being done. It is the panic
// boundary of every entry point: the CLI's commands and the app's jobs call
// it so that a bug ends one command or one job with a message, never the
// process or the tab. A runtime fatal error (out of memory, a deadlock) is
// not a panic and cannot be recovered: the resource guards (MemoryBudget,
// spec.Estimate) must prevent those before they happen.
func Guard(what string, f func() error) error {
	return GuardWith(func() string { return what }, f)
}

// GuardWith is Guard for an entry point whose activity changes as it goes
// (reading the data, fitting, saving): what is called after a panic to say
// what was being done at that moment.
func GuardWith(what func() string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &InternalError{What: what(), Value: r, Stack: debug.Stack()}
		}
	}()
	return f()
}

// GuardValue is Guard for a function that returns a value too; on a panic
// the value is T's zero value.
func GuardValue[T any](what string, f func() (T, error)) (v T, err error) {
	err = Guard(what, func() error {
		var e error
		v, e = f()
		return e
	})
	return v, err
}
