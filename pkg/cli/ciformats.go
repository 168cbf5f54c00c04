package cli

import (
	"io"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/report"
	"github.com/lfcli/lf/pkg/risk"
)

// ciFormats are the -o formats for CI systems, offered by lf overview
// risk-scorers, lf agentleak scan and lf run.
var ciFormats = []string{"junit", "sarif", "markdown"}

// newCIWriter returns the writer of format, or nil when format is not a CI
// format (the other formats are written by the command itself).
func newCIWriter(format string, w io.Writer) output.Writer {
	for _, f := range ciFormats {
		if f == format {
			cw, err := output.New(format, w, output.Options{Levels: report.LevelOrder, ToolVersion: version()})
			if err != nil {
				return nil
			}
			return cw
		}
	}
	return nil
}

// writeScorers writes a risk-scorer overview in format, the CI formats
// knowing the gate so that scorers at or above it fail.
// caption names the app and store shown ("" for none).
func writeScorers(env *Env, res []risk.Result, format string, failOn risk.Gate, caption string) error {
	w := newCIWriter(format, env.Stdout)
	if w == nil {
		return writeOverview(env, res, format, caption)
	}
	suite := ""
	if caption != "" {
		suite = "lf overview risk-scorers (" + caption + ")"
	}
	if err := w.Write(report.Scorers{Suite: suite, Results: res, FailOn: failOn}); err != nil {
		return diag.Internal(err)
	}
	return w.Close()
}
