package rowset

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
