package otelspans

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/internal/fuzzcheck"
)

// checkMessages holds fastMessages to encoding/json on s; it reports
// whether the fast path read s.
func checkMessages(t *testing.T, s string) bool {
	t.Helper()
	fast, ok := fastMessages(s)
	if !ok {
		return false
	}
	var want []genMessage
	if err := json.Unmarshal([]byte(s), &want); err != nil {
		t.Fatalf("the fast path read what encoding/json rejects (%v): %q", err, s)
	}
	if !reflect.DeepEqual(fast, want) {
		t.Fatalf("the fast path and encoding/json differ on %q:\nfast %#v\njson %#v", s, fast, want)
	}
	return true
}

// genMessagesText writes a messages attribute as instrumentations do,
// and with odd, now and then what the fast path leaves to encoding/json.
func genMessagesText(r *rand.Rand, odd bool) string {
	g := &otlpGen{r: r, odd: odd}
	part := func() {
		switch r.IntN(4) {
		case 0:
			g.obj("type", func() { g.str("tool_call") }, "name", g.text, "id", g.text,
				"arguments", func() { g.obj("query", g.text, "n", func() { g.num(3) }) })
		case 1:
			g.obj("type", func() { g.str("text") }, "text", g.text)
		default:
			g.obj("type", func() { g.str("text") }, "content", g.text)
		}
	}
	g.arr(r.IntN(4), func() {
		switch r.IntN(5) {
		case 0:
			g.obj("role", g.text, "content", g.text)
		case 1:
			g.obj("role", g.text, "content", func() { g.arr(2, part) })
		default:
			g.obj("role", func() { g.str([]string{"user", "assistant", "system", "tool"}[r.IntN(4)]) },
				"parts", func() { g.arr(r.IntN(3), part) }, "finish_reason", g.text)
		}
	})
	s := g.b.String()
	if odd && g.p(10) {
		s = strings.Replace(s, `"role"`, `"Role"`, 1)
	}
	if odd && g.p(20) {
		s = strings.Replace(s, `"text"`, `null`, 1)
	}
	return s
}

func TestFastMessagesMatchesJSON(t *testing.T) {
	for _, s := range []string{
		`[]`, ` [ ] `, `[{}]`,
		`[{"role":"user","parts":[{"type":"text","content":"Hi \"there\"\n"}]}]`,
		`[{"role":"assistant","parts":[{"type":"tool_call","name":"search","arguments":{"q":"x"}}]}]`,
		`[{"role":"user","content":"plain"}]`,
		`[{"role":"user","content":[{"type":"text","text":"a"}]}]`,
		`[{"role":"user","extra":{"a":[1,2.5e3,true,null]}}]`,
		`[{"role":"caf\u00e9 \ud83d\ude00"}]`,
	} {
		if !checkMessages(t, s) {
			t.Errorf("the fast path left %s to encoding/json", s)
		}
	}
	for _, s := range []string{
		``, `null`, `{}`, `[{"Role":"user"}]`, `[{"role":"a","role":"b"}]`, `[{"role":null}]`,
		`[{"role":1}]`, `[{"parts":{}}]`, `[] x`, `[{"role":"\ud800"}]`, "[{\"role\":\"\xff\"}]",
		`[{"r\u006fle":"user"}]`, `[{"role":"user"`,
	} {
		if _, ok := fastMessages(s); ok {
			t.Errorf("the fast path read %q", s)
		}
		var want []genMessage
		if json.Unmarshal([]byte(s), &want) != nil {
			want = nil
		}
		if got := parseMessages(s); !reflect.DeepEqual(got, want) {
			t.Errorf("parseMessages(%q) = %#v, encoding/json %#v", s, got, want)
		}
	}
	for _, odd := range []bool{false, true} {
		r := rand.New(rand.NewPCG(5, 6))
		fast := 0
		for range 3000 {
			s := genMessagesText(r, odd)
			if checkMessages(t, s) {
				fast++
			} else if !odd {
				t.Fatalf("the fast path left a usual text to encoding/json: %s", s)
			}
		}
		t.Logf("odd=%v: %d of 3000 read by the fast path", odd, fast)
		if fast < 150 {
			t.Errorf("odd=%v: only %d of 3000 read by the fast path", odd, fast)
		}
	}
}

func FuzzFastMessages(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 40 {
		f.Add(genMessagesText(r, i%2 == 1))
	}
	f.Add(`[{"role":"user","parts":[{"type":"text","content":"x"}]}]`)
	f.Fuzz(func(t *testing.T, s string) {
		fuzzcheck.Bounded(t, len(s), func() { checkMessages(t, s) })
	})
}
