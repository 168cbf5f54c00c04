-- What one completed run gives a family of risk scorers (a partial: the
-- count, exact sum, minimum and maximum of their function's values for the
-- run's values in scope, or the function's error), so that a scorer's
-- history adds up runs instead of reading and evaluating every value again.
-- signature names everything a partial depends on besides the run's values
-- (methodology function and parameters, metric, task and scorer filters;
-- pkg/risk/partials.go), so an edited scorer or methodology simply has new
-- ones; data is pkg/risk's encoding. Partials are derived data: a history
-- computes and keeps the ones it misses (a store written before this table
-- fills it on its first history), lf add keeps those of the runs it adds,
-- a run's are dropped with its values, and lf store copy carries them.
CREATE TABLE IF NOT EXISTS risk_partials (
    app            TEXT NOT NULL,
    signature      TEXT NOT NULL,
    evaluation_key TEXT NOT NULL,
    run_id         TEXT NOT NULL,
    data           BLOB NOT NULL,
    PRIMARY KEY (app, signature, evaluation_key, run_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS risk_partials_run ON risk_partials (app, evaluation_key, run_id);
