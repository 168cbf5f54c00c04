-- The metric values of a run written by a run writer (a recorded scan), in
-- blocks: one row holds the values of many results, the run's task keys
-- once and each metric's values as (task number, value), instead of a row
-- of metric_values per value with app, evaluation key, run id, metric, task
-- and scorer repeated on each (about 130 bytes a value, and a B-tree insert
-- each). The encoding is pkg/store/internal/runbatch/block.go. Readers of a
-- run's values (Values, Run, the run list's counts, gc, lf store copy) read
-- both tables: a run's values are in one of them. block numbers a run's
-- blocks from 0; n_values is how many values a block holds.
CREATE TABLE IF NOT EXISTS run_value_blocks (
    app            TEXT NOT NULL,
    evaluation_key TEXT NOT NULL,
    run_id         TEXT NOT NULL,
    block          INTEGER NOT NULL,
    n_values       INTEGER NOT NULL,
    data           BLOB NOT NULL,
    PRIMARY KEY (app, evaluation_key, run_id, block)
);
