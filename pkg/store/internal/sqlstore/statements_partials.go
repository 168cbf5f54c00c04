package sqlstore

import (
	"context"

	"github.com/lfcli/lf/pkg/model"
)

// The statements of backend.RiskPartials (97_risk_partials.sql) that both
// backends run as they are.
var (
	// RiskPartialsOf reads the partials kept under a signature.
	RiskPartialsOf = stmt(`SELECT evaluation_key, run_id, data FROM risk_partials WHERE app = $1 AND signature = $2`)
	// PutRiskPartial keeps one partial; one kept already stays (it is the
	// same: a partial is a function of its signature and the run).
	PutRiskPartial = stmt(`INSERT INTO risk_partials (app, signature, evaluation_key, run_id, data)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`)
	// DeleteRunPartials drops a run's partials with its values.
	DeleteRunPartials = stmt(`DELETE FROM risk_partials WHERE app = $1 AND evaluation_key = $2 AND run_id = $3`)
)

// RiskPartials reads the risk partials kept for app under signature, by
// run, for both backends (writing them stays with each driver: a prepared
// statement on SQLite, one batch on PostgreSQL).
func RiskPartials(ctx context.Context, q Querier, app, signature string) (map[model.RunRef][]byte, error) {
	type kept struct {
		run  model.RunRef
		data []byte
	}
	rows, err := Scan(func(k *kept) []any { return []any{&k.run.EvaluationKey, &k.run.ID, &k.data} })(q.Query(ctx, RiskPartialsOf, app, signature))
	if err != nil {
		return nil, err
	}
	out := make(map[model.RunRef][]byte, len(rows))
	for _, k := range rows {
		out[k.run] = k.data
	}
	return out, nil
}
