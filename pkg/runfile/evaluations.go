package runfile

import (
	"sort"

	"github.com/lfcli/lf/pkg/agentleak"
	"github.com/lfcli/lf/pkg/agentrisk"
	"github.com/lfcli/lf/pkg/evaluation"
	"github.com/lfcli/lf/pkg/importers"
)

// evaluations are every evaluation a run file may name under evaluations:,
// listed here and nowhere else (the run file's schema names the same keys).
// A new evaluation (an importer, say) is one library value added here.
var evaluations = []evaluation.Evaluation{
	agentleak.Evaluation,
	agentrisk.Evaluation,
	importers.Evaluation,
}

// Lookup returns the evaluation a run file names name.
func Lookup(name string) (evaluation.Evaluation, bool) {
	for _, ev := range evaluations {
		if ev.Name == name {
			return ev, true
		}
	}
	return evaluation.Evaluation{}, false
}

// Names lists the evaluations run files may name, sorted.
func Names() []string {
	out := make([]string, 0, len(evaluations))
	for _, ev := range evaluations {
		out = append(out, ev.Name)
	}
	sort.Strings(out)
	return out
}
