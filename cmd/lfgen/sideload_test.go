package main

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"
)

// TestSideBatchIsNDJSON: the hand-written batch is one valid event per
// line, with distinct request ids.
func TestSideBatchIsNDJSON(t *testing.T) {
	s := &sideLoad{ingestBatch: 200, tenant: `ac"me`, agents: 5}
	seq := 0
	b := s.batch(rand.New(rand.NewSource(1)), &seq)
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	if len(lines) != 200 {
		t.Fatalf("%d lines", len(lines))
	}
	ids := map[string]bool{}
	for _, l := range lines {
		var ev sideEvent
		dec := json.NewDecoder(bytes.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		if ev.TenantID != `ac"me` || ev.AgentID == "" || ev.Decision == "" || ids[ev.RequestID] {
			t.Fatalf("bad event %s", l)
		}
		ids[ev.RequestID] = true
	}
}
