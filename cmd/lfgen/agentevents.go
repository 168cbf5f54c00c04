// agent-events (lfgen agent-events) writes synthetic agent events (JSONL) for
// benchmarks and demos of lf's per-agent risk scores:
//
//	go run ./cmd/lfgen agent-events -agents 10000 -events 5000000 > events.jsonl
//
// Events cover the days before -end in time order; the same flags give the
// same bytes.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
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
	fs.Parse(args)
	t, err := time.Parse(time.RFC3339, *end)
	if err != nil || *agents < 1 || *tenants < 1 || *days < 1 {
		fmt.Fprintln(os.Stderr, "lfgen agent-events: bad flags (see -h)")
		os.Exit(2)
	}
	rate := float64(*events) / float64(*agents) / float64(*days*24)
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	enc := json.NewEncoder(w)
	agentrisk.Generate(agentrisk.BenchAgents(*agents, *tenants, rate), t, *days, *seed, func(e agentrisk.Event) { _ = enc.Encode(e) })
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "lfgen agent-events:", err)
		os.Exit(1)
	}
}
