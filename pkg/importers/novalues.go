package importers

import (
	"fmt"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
)

// NoValuesError is why a run an importer produced is not stored: it is a
// completed run that keeps no metric value (every value was unusable and
// skipped, or the file holds no result). Stored, it would become the latest
// run of its evaluation key and turn the risk scorers of that key to
// no_data, hiding the runs before it. An importer that knows a file yields
// no value may return it itself; Import checks every run anyway.
type NoValuesError struct {
	Path    string // the file, as given
	Run     string // evaluation_key/id
	Results int    // results the run holds (each without a value)
	Skipped int    // values of the file dropped with a warning
}

func (e *NoValuesError) Error() string {
	why := "the file holds no result"
	switch {
	case e.Skipped > 0:
		why = fmt.Sprintf("every value was unusable (%s skipped, see the warnings)", diag.Count(e.Skipped, "value", "values"))
	case e.Results > 0:
		why = fmt.Sprintf("its %s carry no metric", diag.Count(e.Results, "result", "results"))
	}
	return fmt.Sprintf("no value kept: run %s would be a completed run with 0 values because %s; nothing stored", e.Run, why)
}

// keepValued drops the completed runs of a file that keep no value,
// recording a located error (a NoValuesError) for each; the file's other
// runs are kept. When no run is left, fr.Err is the first such error.
func keepValued(fr *FileReport, runs []model.EvaluationRun) []model.EvaluationRun {
	kept := runs[:0:0]
	for _, r := range runs {
		s := summarize(r)
		if r.Status != model.StatusCompleted || s.Metrics > 0 {
			kept = append(kept, r)
			continue
		}
		err := &NoValuesError{Path: fr.Path, Run: r.EvaluationKey + "/" + r.ID, Results: s.Results, Skipped: fr.Skipped}
		fr.Diagnostics = append(fr.Diagnostics, diag.Diagnostic{File: fr.Path, Msg: err.Error()})
		if len(kept) == 0 && fr.Err == nil {
			fr.Err = err
		}
	}
	if len(kept) > 0 {
		fr.Err = nil
	}
	return kept
}
