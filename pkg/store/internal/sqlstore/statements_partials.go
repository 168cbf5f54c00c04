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
	// RiskPartialsOfKey reads those of one evaluation key's runs.
	RiskPartialsOfKey = stmt(`SELECT evaluation_key, run_id, data FROM risk_partials
		WHERE app = $1 AND signature = $2 AND evaluation_key = $3`)
	// PutRiskPartial keeps one partial; one kept already stays (it is the
	// same: a partial is a function of its signature and the run).
	PutRiskPartial = stmt(`INSERT INTO risk_partials (app, signature, evaluation_key, run_id, data)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`)
	// DeleteRunPartials drops a run's partials with its values.
	DeleteRunPartials = stmt(`DELETE FROM risk_partials WHERE app = $1 AND evaluation_key = $2 AND run_id = $3`)
)

// RiskPartials reads the risk partials kept for app under signature, by
// run (of the runs of keys, or of every run when keys is nil), for both
// backends (writing them stays with each driver: a prepared statement on
// SQLite, one batch on PostgreSQL).
func RiskPartials(ctx context.Context, q Querier, app, signature string, keys []string) (map[model.RunRef][]byte, error) {
	out := map[model.RunRef][]byte{}
	read := func(rows Rows, err error) error {
		if err != nil {
			return err
		}
		defer Close(rows)
		for rows.Next() {
			var run model.RunRef
			var data []byte
			if err := rows.Scan(&run.EvaluationKey, &run.ID, &data); err != nil {
				return err
			}
			out[run] = data
		}
		return rows.Err()
	}
	if keys == nil {
		return out, read(q.Query(ctx, RiskPartialsOf, app, signature))
	}
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		if err := read(q.Query(ctx, RiskPartialsOfKey, app, signature, k)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
