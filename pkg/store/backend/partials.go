package backend

import (
	"context"

	"github.com/lfcli/lf/pkg/model"
)

// RiskPartials keeps derived data for risk scorer histories: what one run
// gives the scorers of a signature, as bytes the domain (pkg/risk) encodes.
// The store drops a run's partials when its values are removed or replaced
// (DeleteValues paths), so a kept partial always matches the run's values.
type RiskPartials interface {
	// RiskPartials returns the partials kept under signature, by run: of
	// the runs of the evaluation keys in keys, or of every run when keys
	// is nil.
	RiskPartials(ctx context.Context, signature string, keys []string) (map[model.RunRef][]byte, error)
	// PutRiskPartials keeps partials under signature in one transaction;
	// one kept already for a run stays.
	PutRiskPartials(ctx context.Context, signature string, partials map[model.RunRef][]byte) error
}
