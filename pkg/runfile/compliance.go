package runfile

import (
	"context"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/frameworks"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/store"
)

// runCompliance is the compliance: step: the stored frameworks decided
// from every risk scorer (whatever overview.domain shows), and the step's
// gate. A framework key that no stored framework has is an error located
// in the run file.
func runCompliance(ctx context.Context, spec *Spec, st *store.Store, res *Result) error {
	c := spec.Compliance
	gate, err := frameworks.ParseGate(c.FailOn, c.AllowNoData)
	if err != nil { // the schema allows gap and partial only
		return diag.Internal(err)
	}
	scored := res.RiskScorers
	if spec.Domain != "" {
		if scored, err = project.Overview(ctx, st, project.OverviewFilter{}); err != nil {
			return err
		}
	}
	stored, err := project.StoredFrameworks(ctx, st)
	if err != nil {
		return err
	}
	set := frameworks.Merge(stored, nil)
	if ds := set.Check(scored); ds.HasErrors() {
		return diag.Invalid(ds)
	}
	out, err := set.Evaluate(c.Framework, scored)
	if err != nil {
		return diag.Invalid(diag.List{{File: spec.Rel, Pointer: "/compliance/framework", Msg: err.Error()}})
	}
	res.Compliance = out
	if err := gate.Check(out); err != nil {
		res.complianceGate = "compliance: " + err.Error()
	}
	return nil
}
