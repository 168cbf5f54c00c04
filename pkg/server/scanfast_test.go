package server

import (
	"math/rand"
	"strings"
	"testing"
)

// TestQuickScanNeverAcceptsMore: whatever quickScan lets through, scanBody
// lets through too (so the fast check never skips an error), and the
// common bodies do take the fast check. The bodies are valid ones of every
// shape and random mutations of them.
func TestQuickScanNeverAcceptsMore(t *testing.T) {
	seq := 0
	events := string(benchEvents(5, &seq))
	type base struct {
		sh     *shape
		stream bool
		body   string
	}
	bases := []base{
		{eventsShape, true, events},
		{eventsShape, false, "[" + strings.ReplaceAll(strings.TrimSpace(events), "\n", ",") + "]"},
		{verdictShape, false, `{"tenantId":"t1","agentId":"a b","method":"tools/call","shadow":true}`},
		{riskConfigShape, false, `{"tenantId":"t1","enabled":true,"highThreshold":70,"criticalAllowedMethods":["ping","x"],"rateLimit":{"limit":10,"windowSeconds":60},"decayHalfLifeHours":1.5e2}`},
		{ruleShape, false, `{"id":"r1","tenantId":"t1","name":"n","tier":"critical","channel":"email","to":["a@b.c"],"threshold":-0.5}`},
	}
	for _, b := range bases {
		if !quickScan([]byte(b.body), b.sh, b.stream) {
			t.Errorf("quickScan refuses the valid body %s", b.body)
		}
		if e := scanBody([]byte(b.body), b.sh, b.stream); e != nil {
			t.Fatalf("scanBody refuses the base body %s: %v", b.body, e)
		}
	}
	extra := []string{
		`{"tenantId":"t1","tenantId":"t1"}`, `{"tenantId":"t\u0001"}`, `{"tenantId":"<b>"}`, `{"TenantId":"x"}`,
		`{"tenantId":"` + strings.Repeat("x", 257) + `"}`, `{"tenantId":"` + strings.Repeat("x", 256) + `"}`,
		`{"tenantId":"été"}`, "{\"tenantId\":\"\xff\"}", `{"tenantId":"\u00e9"}`, `{"agentId":1e}`, `{"agentId":-}`, `{"agentId":01}`,
		`{"agentId":[1,2]}`, `{"agentId":{}}`, `{} {}`, `{}x`, ` `, `[]`, `null`, `{"method":"a"`, `{"shadow":tru}`, `{"shadow":true `,
	}
	rng := rand.New(rand.NewSource(7))
	accepted := 0
	check := func(body string, sh *shape, stream bool) {
		if quickScan([]byte(body), sh, stream) {
			accepted++
			if e := scanBody([]byte(body), sh, stream); e != nil {
				t.Fatalf("quickScan accepts what scanBody refuses (%v):\n%q", e, body)
			}
		}
	}
	for _, x := range extra {
		check(x, verdictShape, false)
	}
	const alphabet = "\"{}[]:,\\ tfnu0123456789.eE-+<>\x00\x7f\xc3\xa9\xffx/"
	for i := 0; i < 40000; i++ {
		b := bases[rng.Intn(len(bases))]
		body := []byte(b.body)
		for k := 0; k <= rng.Intn(4); k++ {
			j := rng.Intn(len(body))
			switch rng.Intn(3) {
			case 0:
				body[j] = alphabet[rng.Intn(len(alphabet))]
			case 1:
				body = append(body[:j], body[j+1:]...)
			default:
				body = append(body[:j], append([]byte{alphabet[rng.Intn(len(alphabet))]}, body[j:]...)...)
			}
			if len(body) == 0 {
				body = []byte{'{'}
			}
		}
		check(string(body), b.sh, b.stream)
	}
	if accepted < 1000 {
		t.Errorf("quickScan accepted only %d of the mutated bodies", accepted)
	}
}
