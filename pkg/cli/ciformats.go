package cli

import (
	"io"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/report"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/riskreport"
)

// ciFormats are the -o formats for CI systems, offered by lf overview
// risk-scorers, lf agentleak scan and lf run.
var ciFormats = []string{"junit", "sarif", "markdown"}

// ciWriter is a writer of a CI format: values in, one document out on Close.
type ciWriter interface {
	Write(v any) error
	Close() error
}

// newCIWriter returns the writer of format, or nil when format is not a CI format.
func newCIWriter(format string, w io.Writer) ciWriter {
	switch format {
	case "junit":
		return report.NewJUnit(w)
	case "sarif":
		return report.NewSARIF(w, "")
	case "markdown":
		md := report.NewMarkdown(w)
		md.Order = riskreport.LevelOrder
		return md
	}
	return nil
}

// writeScorers writes a risk-scorer overview in format, the CI formats
// knowing the gate so that scorers at or above it fail.
func writeScorers(env *Env, res []risk.Result, format string, failOn risk.Gate) error {
	w := newCIWriter(format, env.Stdout)
	if w == nil {
		return writeOverview(env, res, format)
	}
	if err := w.Write(riskreport.Scorers{Results: res, FailOn: failOn}); err != nil {
		return diag.Internal(err)
	}
	return w.Close()
}
