package server

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/agentleak"
	"github.com/lfcli/lf/pkg/otelspans"
)

// TestLeaksCompliance: each trace in GET /tenants/{id}/leaks carries the
// compliance mapping exactly as `lf agentleak scan -o json` writes it for
// the same trace, config and vaults: the summary by default, the whole
// section (evidence, matrix, digest at the scan's time) with
// ?compliance=full, none with ?compliance=off; never a matched value.
func TestLeaksCompliance(t *testing.T) {
	oa := loadOpenAPI(t)
	ts := startServer(t, otlpConfig(t, ""))
	td := leakyTrace("", 0x0a)
	if code, _, out := postOTLP(t, ts.base, keyT1Op, ctProto, td, false); code != 200 {
		t.Fatalf("export: %d %q", code, out)
	}
	ts.otlp.waitScans() // the scan runs after the answer
	get := func(query string) (int, []json.RawMessage, LeakRecord, []byte) {
		t.Helper()
		code, out := ts.call(t, keyT1, "GET", "/tenants/t1/leaks"+query, nil)
		oa.check(t, "GET", "/tenants/{tenantId}/leaks", code, out)
		var raw struct {
			Leaks []map[string]json.RawMessage `json:"leaks"`
		}
		var typed LeaksResponse
		if code != 200 {
			return code, nil, LeakRecord{}, out
		}
		if json.Unmarshal(out, &raw) != nil || json.Unmarshal(out, &typed) != nil || len(raw.Leaks) != 1 {
			t.Fatalf("leaks%s: %s", query, out)
		}
		return code, []json.RawMessage{raw.Leaks[0]["compliance"]}, typed.Leaks[0], out
	}
	_, summary, rec, _ := get("")
	_, full, _, fullBody := get("?compliance=full")
	_, full2, _, _ := get("?compliance=full")
	_, off, _, offBody := get("?compliance=off")

	// The reference: the same trace scanned as lf agentleak scan scans it.
	spans := otelspans.FromPdata(td, 0)
	id := rec.TraceID
	st := &otelspans.Trace{RunID: id, File: "otlp", Spans: spans, ScenarioID: id}
	trace := agentleak.TraceFromEvents(st, otelspans.LeakEvents(st, otelspans.MappingLF))
	tsc := ts.Server.otlp.set.scanners["t1"]
	want := func(mode agentleak.ComplianceMode) []byte {
		sc := agentleak.NewScanner(tsc.cfg, tsc.vaults)
		sc.Compliance = mode
		sc.ReportTime = rec.ScannedAt.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05+00:00")
		res, err := sc.Scan(trace)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res.Compliance)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if w := want(agentleak.ComplianceSummary); !bytes.Equal(summary[0], w) {
		t.Errorf("summary:\n got %s\nwant %s", summary[0], w)
	}
	if !strings.Contains(string(summary[0]), `"status":"non_compliant"`) || !strings.Contains(string(summary[0]), `"gdpr"`) {
		t.Errorf("a leaked canary puts no framework at risk: %s", summary[0])
	}
	if w := want(agentleak.ComplianceFull); !bytes.Equal(full[0], w) {
		t.Errorf("full:\n got %s\nwant %s", full[0], w)
	}
	if !strings.Contains(string(full[0]), `"evidence_matrix":[{`) || !strings.Contains(string(full[0]), `"digest":"`) {
		t.Errorf("full section without evidence or digest: %.400s", full[0])
	}
	if !bytes.Equal(full[0], full2[0]) {
		t.Errorf("the full section changes between requests:\n%s\n%s", full[0], full2[0])
	}
	if strings.Contains(string(fullBody), "CANARY-TRV-1") {
		t.Errorf("/leaks?compliance=full shows a raw value")
	}
	if off[0] != nil || strings.Contains(string(offBody), `"compliance"`) {
		t.Errorf("compliance=off: %s", offBody)
	}
	// The summary kept is not replaced by a full request.
	if _, again, _, _ := get(""); !bytes.Equal(again[0], summary[0]) {
		t.Errorf("summary after a full request: %s", again[0])
	}
	if code, _, _, out := get("?compliance=most"); code != 400 || !strings.Contains(string(out), `"field":"compliance"`) {
		t.Errorf("bad mode: %d %s", code, out)
	}
}
