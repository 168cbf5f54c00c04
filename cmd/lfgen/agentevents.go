// agent-events (lfgen agent-events) writes synthetic agent events (JSONL) for
// benchmarks and demos of lf's per-agent risk scores:
//
//	go run ./cmd/lfgen agent-events -agents 10000 -events 5000000 > events.jsonl
//	go run ./cmd/lfgen agent-events -events 1000000 -format csv > events.csv   # the same events as CSV (PostgreSQL COPY baseline)
//
// Events cover the days before -end in time order; the same flags give the
// same bytes.
package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/lfcli/lf/pkg/agentrisk"
)

func agentEventsCmd(args []string) {
	fs := flag.NewFlagSet("agent-events", flag.ExitOnError)
	agents := fs.Int("agents", 10000, "number of agents")
	tenants := fs.Int("tenants", 20, "number of tenants")
	events := fs.Int("events", 5000000, "approximate number of events")
	days := fs.Int("days", 7, "days of history")
	end := fs.String("end", "2026-04-16T14:00:00Z", "end of the history (RFC 3339)")
	seed := fs.Int64("seed", 1, "random seed")
	format := fs.String("format", "jsonl", "jsonl, or csv: one typed column per field, for PostgreSQL COPY (see Taskfile bench:ingest)")
	fs.Parse(args)
	t, err := time.Parse(time.RFC3339, *end)
	if err != nil || *agents < 1 || *tenants < 1 || *days < 1 || (*format != "jsonl" && *format != "csv") {
		fmt.Fprintln(os.Stderr, "lfgen agent-events: bad flags (see -h)")
		os.Exit(2)
	}
	rate := float64(*events) / float64(*agents) / float64(*days*24)
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	enc := json.NewEncoder(w)
	emit := func(e agentrisk.Event) { _ = enc.Encode(e) }
	cw := csv.NewWriter(w)
	if *format == "csv" {
		emit = func(e agentrisk.Event) { _ = cw.Write(eventCSV(e)) }
	}
	agentrisk.Generate(agentrisk.BenchAgents(*agents, *tenants, rate), t, *days, *seed, emit)
	cw.Flush()
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "lfgen agent-events:", err)
		os.Exit(1)
	}
}

// eventCSV is one event as the columns of the COPY baseline's table:
// timestamp, tenant_id, agent_id, agent_name, session_id, method, tool,
// resource, high_impact, decision, rule, injection_score (empty: NULL),
// request_id.
func eventCSV(e agentrisk.Event) []string {
	score := ""
	if e.InjectionScore != nil {
		score = strconv.FormatFloat(*e.InjectionScore, 'g', -1, 64)
	}
	return []string{
		e.Timestamp.Format(time.RFC3339Nano), e.TenantID, e.AgentID, e.AgentName, e.SessionID, e.Method, e.Tool,
		e.Resource, strconv.FormatBool(e.HighImpact), e.Decision, e.Rule, score, e.RequestID,
	}
}
