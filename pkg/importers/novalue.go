package importers

import (
	"errors"
	"fmt"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
)

// ErrNoValues is wrapped by the error of a file that yields a completed run
// without a single value (see NoValuesError); test for it with errors.Is.
var ErrNoValues = errors.New("no value to store")

// NoValuesError is the error of a file whose completed run holds no metric
// value: every value was skipped (non-finite, "N/A", a rate over 0), or the
// file holds none that lf reads. Such a file stores nothing and counts as a
// file that could not be imported, so that an empty run never becomes the
// latest completed run a risk scorer reads (which would turn its gate to
// no_data without a word). A run that is still going or that failed may be
// empty: risk scorers never read those, so they are stored with a warning.
type NoValuesError struct {
	Path    string // the file as given
	Run     string // evaluation_key/id of the empty run
	Skipped int    // values skipped in the file (each has its warning)
}

// Error is the message lf import prints: the file, the empty run and how
// many values were skipped.
func (e *NoValuesError) Error() string {
	return e.diagnostic().String()
}

// Unwrap makes errors.Is(err, ErrNoValues) hold.
func (e *NoValuesError) Unwrap() error { return ErrNoValues }

func (e *NoValuesError) diagnostic() diag.Diagnostic {
	msg := fmt.Sprintf("no value to store: run %s is completed but holds no metric value", e.Run)
	switch e.Skipped {
	case 0:
	case 1:
		msg += " (1 value was skipped, see the warning)"
	default:
		msg += fmt.Sprintf(" (%d values were skipped, see the warnings)", e.Skipped)
	}
	return diag.Diagnostic{File: e.Path, Msg: msg + "; nothing of the file was stored"}
}

// NoValues tells whether the file was refused because it yields no value.
func (f FileReport) NoValues() bool {
	return errors.Is(f.Err, ErrNoValues)
}

// checkValues refuses a file whose completed runs hold no value (see
// NoValuesError), and warns about a running or failed run without value.
func checkValues(src *source, runs []model.EvaluationRun) error {
	for _, r := range runs {
		n := 0
		for _, res := range r.Results {
			n += len(res.Metrics)
		}
		if n > 0 {
			continue
		}
		name := r.EvaluationKey + "/" + r.ID
		if r.Status != model.StatusCompleted {
			src.warnf(0, 0, "", "run %s (%s) holds no metric value yet; it is stored, and risk scorers read only completed runs", name, r.Status)
			continue
		}
		e := &NoValuesError{Path: src.path, Run: name, Skipped: src.skipped}
		src.fr.Diagnostics = append(src.fr.Diagnostics, e.diagnostic())
		return e
	}
	return nil
}
