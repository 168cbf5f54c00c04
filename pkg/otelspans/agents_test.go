package otelspans

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// randomAgentTrace is a trace whose parents and agent attributes are
// random: repeated span ids, missing and empty parents, cycles, chains
// deeper than Up looks, agent ids and names (some empty, some null,
// some repeated) at any depth, spans with and without a resource.
func randomAgentTrace(r *rand.Rand) *Trace {
	n := 1 + r.IntN(40)
	deep := r.IntN(3) == 0
	if deep {
		n = 60 + r.IntN(80)
	}
	ids := 2 + r.IntN(n+4)
	id := func() string { return "s" + strconv.Itoa(r.IntN(ids)) }
	svc := NewAttrs([]KV{{Key: "service.name", Value: "svc"}})
	other := NewAttrs([]KV{{Key: "service.name", Value: "other"}})
	res := []*Attrs{nil, {}, &svc, &other}
	// In a deep trace agent attributes are rare, so that they are found at
	// every depth, the last ones Up looks at among them.
	odds := 3
	if deep {
		odds = 60
	}
	spans := make([]*Span, n)
	for i := range spans {
		s := &Span{SpanID: id(), Resource: res[r.IntN(len(res))]}
		if r.IntN(15) == 0 {
			s.SpanID = "" // not a parent to anyone, not even to a span without one
		}
		switch {
		case deep && r.IntN(60) != 0:
			// A chain: each span's parent is the one before it.
			s.SpanID = "d" + strconv.Itoa(i)
			if i > 0 {
				s.ParentID = "d" + strconv.Itoa(i-1)
			}
		case r.IntN(5) == 0:
			s.ParentID = ""
		case r.IntN(6) == 0:
			s.ParentID = "missing"
		default:
			s.ParentID = id()
		}
		var kvs []KV
		for _, k := range []string{"gen_ai.agent.id", "gen_ai.agent.name", "agent.name", "gen_ai.agent.id"} {
			if r.IntN(odds) != 0 {
				continue
			}
			var v any = k + "-" + strconv.Itoa(i)
			switch r.IntN(6) {
			case 0:
				v = ""
			case 1:
				v = nil
			}
			kvs = append(kvs, KV{Key: k, Value: v})
		}
		kvs = append(kvs, KV{Key: "gen_ai.operation.name", Value: "chat"})
		s.Attrs = NewAttrs(kvs)
		spans[i] = s
	}
	return &Trace{Spans: spans}
}

// TestAgentFinderMatchesAgent: an AgentFinder answers what Trace.Agent
// answers, for every span of random traces asked in any order (so that
// its memo of parents is used, replaced and missed), before and after it
// builds the map of span ids; and for the repository's span file.
func TestAgentFinderMatchesAgent(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	check := func(spans []*Span, order []int) {
		t.Helper()
		ref := &Trace{Spans: spans}
		f := (&Trace{Spans: spans}).Agents()
		for _, i := range order {
			s := spans[i]
			if got, want := f.Agent(s), ref.Agent(s); got != want {
				t.Fatalf("span %d (%s, parent %q, %v): AgentFinder %q, Trace.Agent %q", i, s.SpanID, s.ParentID, s.Attrs.List(), got, want)
			}
		}
	}
	for range testfiles.Iterations(20000) {
		tr := randomAgentTrace(r)
		order := make([]int, 0, 2*len(tr.Spans))
		for i := range tr.Spans {
			order = append(order, i)
		}
		for range len(tr.Spans) {
			order = append(order, r.IntN(len(tr.Spans)))
		}
		check(tr.Spans, order)
	}
	for _, tr := range spanCorpus(t) {
		order := make([]int, len(tr.Spans))
		for i := range order {
			order[i] = i
		}
		check(tr.Spans, order)
	}
}
