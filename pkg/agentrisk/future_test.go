package agentrisk

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/diag"
)

// One event dated years ahead used to move the tenant's dedup window (and
// score window) to the present, so that its real, older events were then
// dropped as "older than the dedup window". An event beyond the tenant's
// maxClockSkewSeconds into the future is refused, located, and nothing of
// the ingest is stored.
func TestIngestRefusesFutureEvents(t *testing.T) {
	defer func(f func() time.Time) { nowTime = f }(nowTime)
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	nowTime = func() time.Time { return now }
	// hashHours reads the store file.
	e := openFileTest(t)
	month := func(i int) Event { // real events, a month before now
		return Event{Timestamp: now.AddDate(0, -1, 0).Add(time.Duration(i) * time.Minute), TenantID: "acme", AgentID: "a1", Tool: "read_file"}
	}
	future := Event{Timestamp: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC), TenantID: "acme", AgentID: "a1", Tool: "read_file"}

	_, d, err := e.IngestSources(context.Background(), []Source{
		{Name: "ok.jsonl", R: strings.NewReader(jsonl(t, []Event{month(0)}))},
		{Name: "future.jsonl", R: strings.NewReader(jsonl(t, []Event{month(1), future, month(2)}))},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := diagText(d)
	if !strings.Contains(got, "future.jsonl:2: /timestamp: timestamp 2099-01-01T00:00:00Z is 26324 days ahead") || !strings.Contains(got, "maxClockSkewSeconds 300") {
		t.Fatalf("diagnostics: %s", got)
	}
	if n := len(aggRows(t, e)); n != 0 {
		t.Fatalf("%d agents stored with a future event in the files", n)
	}
	if n := len(hashHours(t, e)); n != 0 {
		t.Fatal("hash sets stored with a future event in the files")
	}

	// A JSON array locates the event by its index.
	_, d, _ = e.IngestSources(context.Background(), []Source{{Name: "a.json", R: strings.NewReader(`[` + strings.TrimSpace(jsonl(t, []Event{month(3)})) + ",\n" + strings.TrimSpace(jsonl(t, []Event{future})) + `]`)}})
	if got := diagText(d); !strings.Contains(got, "a.json:2: /1/timestamp: timestamp 2099") {
		t.Fatalf("array diagnostics: %s", got)
	}

	// Over the events path (Engine.Ingest: HTTP, event stream) the event is
	// located by its index, and nothing is stored either.
	_, err = e.Ingest(context.Background(), []Event{month(4), future})
	var de *diag.Error
	var fe *FutureEventError
	if !errors.As(err, &de) || de.Code != diag.ExitInvalid || len(de.Diags) != 1 || de.Diags[0].Pointer != "/1/timestamp" || !errors.As(err, &fe) || fe.Index != 1 {
		t.Fatalf("Ingest: %v", err)
	}

	// The real events are all stored afterwards: nothing moved the window.
	var real []Event
	for i := range 50 {
		real = append(real, month(i))
	}
	if res := ingestText(t, e, jsonl(t, real)); res.New != 50 || res.Expired != 0 {
		t.Fatalf("real events after the refused ones: %+v", res)
	}

	// Within the skew an event is accepted; the tenant's risk config sets it.
	if res := ingestText(t, e, jsonl(t, []Event{{Timestamp: now.Add(4 * time.Minute), TenantID: "acme", AgentID: "a1"}})); res.New != 1 {
		t.Fatalf("an event 4 minutes ahead: %+v", res)
	}
	late := []Event{{Timestamp: now.Add(30 * time.Minute), TenantID: "acme", AgentID: "a1"}}
	if _, d, _ := e.IngestSources(context.Background(), []Source{{Name: "f.jsonl", R: strings.NewReader(jsonl(t, late))}}); !d.HasErrors() {
		t.Fatal("an event 30 minutes ahead was accepted with the default skew")
	}
	cfg := defaultRiskConfig()
	cfg.MaxClockSkewSeconds = 3600
	if err := e.PutRiskConfig(context.Background(), "acme", cfg); err != nil {
		t.Fatal(err)
	}
	if res := ingestText(t, e, jsonl(t, late)); res.New != 1 {
		t.Fatalf("an event 30 minutes ahead with maxClockSkewSeconds 3600: %+v", res)
	}
}

func TestMaxClockSkewSecondsBounds(t *testing.T) {
	for body, want := range map[string]string{
		`{"maxClockSkewSeconds": -1}`:     "/maxClockSkewSeconds",
		`{"maxClockSkewSeconds": 100000}`: "/maxClockSkewSeconds",
	} {
		_, d := parseRiskConfig("body", []byte(body))
		if !d.HasErrors() || !strings.Contains(diagText(d), want) {
			t.Errorf("%s: %s", body, diagText(d))
		}
	}
	if cfg, d := parseRiskConfig("body", []byte(`{}`)); d.HasErrors() || cfg.MaxClockSkewSeconds != 300 {
		t.Errorf("default maxClockSkewSeconds = %d, %v; want 300", cfg.MaxClockSkewSeconds, d)
	}
}
