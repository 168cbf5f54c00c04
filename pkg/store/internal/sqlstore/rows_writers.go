package sqlstore

import (
	"time"

	"github.com/lfcli/lf/pkg/store/backend"
)

// Writer is a run still marked running and who writes it.
type Writer struct {
	App, Key, ID    string
	PID             int
	Host, Heartbeat string
}

// writers scans (app, evaluation key, id, writer pid, writer host,
// heartbeat) rows.
var writers = Scan(func(w *Writer) []any { return []any{&w.App, &w.Key, &w.ID, &w.PID, &w.Host, &w.Heartbeat} })

// Abandoned reads the writer rows of a query's result and keeps those
// whose writer is gone (backend.Abandoned), seen from host at now.
func Abandoned(host string, now time.Time) func(Rows, error) ([]Writer, error) {
	return func(rows Rows, err error) ([]Writer, error) {
		all, err := writers(rows, err)
		if err != nil {
			return nil, err
		}
		var dead []Writer
		for _, w := range all {
			if backend.Abandoned(w.PID, w.Host, w.Heartbeat, host, now) {
				dead = append(dead, w)
			}
		}
		return dead, nil
	}
}

// Deliveries scans alert delivery rows (seq, tenant, rule, agent, alert,
// channel, target, attempt, status, status code, error, created at).
func Deliveries(rows Rows, err error) ([]backend.AlertDelivery, error) {
	type row struct {
		d  backend.AlertDelivery
		at string
	}
	rs, err := Scan(func(r *row) []any {
		d := &r.d
		return []any{&d.Seq, &d.TenantID, &d.RuleID, &d.AgentID, &d.AlertID, &d.Channel, &d.Target, &d.Attempt, &d.Status, &d.StatusCode, &d.Error, &r.at}
	})(rows, err)
	if err != nil {
		return nil, err
	}
	var out []backend.AlertDelivery // nil when there are none, as before
	for _, r := range rs {
		r.d.Time, _ = time.Parse(backend.TimeFormat, r.at)
		out = append(out, r.d)
	}
	return out, nil
}
