// Package output holds the Writer interface and one writer per output format
// (table, JSON, JSON Lines, YAML, Markdown, JUnit, SARIF). It is a leaf: it
// knows no domain type, callers hand it views and checks.
package output

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Options tune a Writer. Width is the terminal width tables fit into
// (0: no limit, cells are not wrapped). Levels lists risk levels worst first,
// for the summaries that count them (markdown). ToolVersion names the tool's
// version where a format records it (sarif).
type Options struct {
	Width       int
	Levels      []string
	ToolVersion string
}

// Writer writes command results in one output format. Write may be called
// once per value; Close finishes the output (closing brackets, footers).
type Writer interface {
	Write(v any) error
	Close() error
}

// Dataer is offered by result values for the machine formats (json, yaml,
// and the formats added on top): Data returns the value to encode. Maps are
// encoded with sorted keys; use Fields for a documented key order.
type Dataer interface {
	Data() any
}

// Viewer is offered by result values for the terminal: View returns a *Table
// or a *Document.
type Viewer interface {
	View() any
}

// TableView is a terminal table: a header and rows of cells.
type TableView struct {
	Header []string
	Rows   [][]string
}

// Document is terminal text: lines written as they are.
type Document struct {
	Lines []string
}

// Sections is a terminal view of several parts (*TableView, *Document)
// written one after the other.
type Sections []any

// Field is one key of a Fields value.
type Field struct {
	Key   string
	Value any
}

// Fields is a mapping whose keys keep their documented order in json and yaml.
type Fields []Field

// Factory makes a Writer for one format.
type Factory func(w io.Writer, o Options) Writer

// Formats lists the accepted format names, sorted.
func Formats() []string {
	names := make([]string, 0, len(formats))
	for n := range formats {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New returns the Writer for format, or an error listing the accepted formats.
func New(format string, w io.Writer, o Options) (Writer, error) {
	f, ok := formats[format]
	if !ok {
		return nil, fmt.Errorf("unknown output format %q (accepted: %s)", format, strings.Join(Formats(), ", "))
	}
	return f(w, o), nil
}

// data returns what the machine formats encode for v.
func data(v any) any {
	if d, ok := v.(Dataer); ok {
		return d.Data()
	}
	return v
}

// Time formats t as RFC 3339 in UTC, with seconds unless t has a fraction.
func Time(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond() == 0 {
		return t.Format(time.RFC3339)
	}
	return t.Format(time.RFC3339Nano)
}
