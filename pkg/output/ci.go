package output

import "fmt"

// Check is one pass-or-fail item of a command's result, the unit of the CI
// formats: a JUnit test case, a row of the Markdown summary. Values that the
// CI writers accept offer their checks through Checker, so the writers never
// know a domain type.
type Check struct {
	// Class groups checks inside a suite (JUnit classname), for example a
	// risk scorer's domain or a trace file.
	Class string
	// Name identifies the check (a risk scorer's key, a trace's scenario and run).
	Name string
	// Level is the label counted in summaries (a risk level, a verdict).
	Level string
	// Failed is true when the check fails the gate.
	Failed bool
	// Message is the one-line reason of a failure.
	Message string
	// Detail is longer text shown with a failure.
	Detail string
	// Columns are the facts shown in a summary table, in order.
	Columns []Cell
}

// Cell is one named value of a Check's summary row.
type Cell struct {
	Name  string
	Value string
}

// Suite is a named list of checks: one per command.
type Suite struct {
	Name   string
	Checks []Check
}

// Checker is a result that can be written as checks (JUnit, Markdown).
type Checker interface {
	Checks() Suite
}

// Finding is one located result for SARIF: a rule, a severity, a message and
// where it was found.
type Finding struct {
	RuleID      string
	RuleName    string
	Description string
	// Level is a SARIF level: error, warning or note.
	Level   string
	Message string
	// URI is the file the finding is in, relative to the working directory.
	URI string
	// Line is the 1-based line in URI, 0 when unknown.
	Line int
	// Pointer is a JSON pointer into URI when the line is not enough.
	Pointer    string
	Properties map[string]any
}

// Finder is a result that can be written as located findings (SARIF).
type Finder interface {
	Findings() []Finding
}

func notSupported(format string, v any) error {
	return fmt.Errorf("-o %s is not available for %T", format, v)
}
