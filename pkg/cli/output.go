package cli

import "github.com/lfcli/lf/pkg/output"

// commandOutput is what a command hands the report writer (Env.writeReport): the
// value the machine formats encode and the terminal view, tables and lines
// in the order they are shown.
type commandOutput struct {
	data  any
	parts output.Sections
}

func (o commandOutput) Data() any { return o.data }
func (o commandOutput) View() any { return o.parts }

// table is one terminal table of a commandOutput.
func table(header []string, rows [][]string) *output.TableView {
	return &output.TableView{Header: header, Rows: rows}
}

// lines is terminal text of a commandOutput, one string per line.
func lines(l ...string) *output.Document { return &output.Document{Lines: l} }
