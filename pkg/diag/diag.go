// Package diag carries located diagnostics and the exit codes of lf.
//
// Every problem lf reports about user input is a Diagnostic: the file (relative
// to the project), line and column, a JSON pointer into the document and a plain
// message. Errors that end a command carry their exit code, so that only main
// calls os.Exit.
package diag

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Exit codes of the lf command, documented in `lf --help`.
const (
	ExitOK       = 0 // success
	ExitGate     = 1 // a --fail-on gate tripped, a trace was blocked, ...
	ExitUsage    = 2 // the command line was wrong
	ExitInvalid  = 3 // the input (YAML, JSON, events, ...) is invalid
	ExitInternal = 4 // internal, store or I/O error
)

// Severity tells errors from warnings.
type Severity int

const (
	// SevError makes the input invalid.
	SevError Severity = iota
	// SevWarning is reported but does not make the input invalid.
	SevWarning
)

// Diagnostic is one located problem in user input.
type Diagnostic struct {
	File     string // path relative to the project, or as given
	Line     int    // 1-based; 0 when unknown
	Col      int    // 1-based; 0 when unknown
	Pointer  string // JSON pointer into the document, "" when not applicable
	Msg      string
	Severity Severity
}

// String renders the diagnostic as `file:line:col: /pointer: message`.
func (d Diagnostic) String() string {
	var b strings.Builder
	if d.File != "" {
		b.WriteString(d.File)
		if d.Line > 0 {
			fmt.Fprintf(&b, ":%d", d.Line)
			if d.Col > 0 {
				fmt.Fprintf(&b, ":%d", d.Col)
			}
		}
		b.WriteString(": ")
	}
	if d.Severity == SevWarning {
		b.WriteString("warning: ")
	}
	if d.Pointer != "" {
		b.WriteString(d.Pointer)
		b.WriteString(": ")
	}
	b.WriteString(d.Msg)
	return b.String()
}

// List is a set of diagnostics.
type List []Diagnostic

// Sort orders diagnostics by file, line, column, pointer and message.
func (l List) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		if a.Pointer != b.Pointer {
			return a.Pointer < b.Pointer
		}
		return a.Msg < b.Msg
	})
}

// Errors returns only the error-severity diagnostics.
func (l List) Errors() List {
	var out List
	for _, d := range l {
		if d.Severity == SevError {
			out = append(out, d)
		}
	}
	return out
}

// Warnings returns only the warning-severity diagnostics.
func (l List) Warnings() List {
	var out List
	for _, d := range l {
		if d.Severity == SevWarning {
			out = append(out, d)
		}
	}
	return out
}

// HasErrors reports whether any diagnostic is an error.
func (l List) HasErrors() bool {
	for _, d := range l {
		if d.Severity == SevError {
			return true
		}
	}
	return false
}

// Error is an error that ends a command with an exit code. Diags, when set,
// are printed one per line followed by a count.
type Error struct {
	Code  int
	Err   error
	Diags List
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	if len(e.Diags) > 0 {
		return fmt.Sprintf("%d problem(s) found", len(e.Diags.Errors()))
	}
	return "error"
}

func (e *Error) Unwrap() error { return e.Err }

// Invalid wraps diagnostics into an ExitInvalid error.
func Invalid(diags List) error {
	diags.Sort()
	return &Error{Code: ExitInvalid, Diags: diags}
}

// Invalidf is an ExitInvalid error with a plain message.
func Invalidf(format string, args ...any) error {
	return &Error{Code: ExitInvalid, Err: fmt.Errorf(format, args...)}
}

// Usagef is an ExitUsage error.
func Usagef(format string, args ...any) error {
	return &Error{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// Internal wraps err as an ExitInternal error (store, I/O, bugs).
func Internal(err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Code: ExitInternal, Err: err}
}

// IOf is a file-system failure (a file or folder that cannot be read or
// written, an output path that is a folder): exit 4, the code of internal
// and store errors, whichever command hits it.
func IOf(format string, args ...any) error {
	return &Error{Code: ExitInternal, Err: fmt.Errorf(format, args...)}
}

// Gatef is an ExitGate error: the command worked, and its result trips a gate.
func Gatef(format string, args ...any) error {
	return &Error{Code: ExitGate, Err: fmt.Errorf(format, args...)}
}

// ExitCode returns the exit code an error should end the process with.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ExitInternal
}
