package sqlstore

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
