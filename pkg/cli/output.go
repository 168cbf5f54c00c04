package cli

import "github.com/lfcli/lf/pkg/report"

// output is what a command hands the report writer (Env.writeReport): the
// value the machine formats encode and the terminal view, tables and lines
// in the order they are shown.
type output struct {
	data  any
	parts report.Sections
}

func (o output) Data() any { return o.data }
func (o output) View() any { return o.parts }

// table is one terminal table of an output.
func table(header []string, rows [][]string) *report.TableView {
	return &report.TableView{Header: header, Rows: rows}
}

// lines is terminal text of an output, one string per line.
func lines(l ...string) *report.Document { return &report.Document{Lines: l} }
