package otelspans

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unsafe"

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

// within reports whether part lies in s's memory (is not a copy).
func within(part, s string) bool {
	if part == "" {
		return true
	}
	p, b := uintptr(unsafe.Pointer(unsafe.StringData(part))), uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return p >= b && p+uintptr(len(part)) <= b+uintptr(len(s))
}

// TestMessagesAliasAttribute: what the fast path reads of a messages
// attribute (strings, raw values, an output's text and tool calls) is
// part of the attribute's text, not a copy, and a raw value's capacity
// ends with it, so that appending to it cannot write into the attribute.
func TestMessagesAliasAttribute(t *testing.T) {
	s := `[{"role":"assistant","parts":[{"type":"text","content":"the plan for ada@example.com"},{"type":"text","text":"second"},` +
		`{"type":"tool_call","name":"send","arguments":"{\"to\":1}"}],"finish_reason":"stop"},{"role":"tool","content":"plain content"}]`
	msgs, ok := fastMessages(s)
	if !ok || len(msgs) != 2 {
		t.Fatalf("fastMessages: %v %d", ok, len(msgs))
	}
	raws := []json.RawMessage{msgs[0].Parts[0].Content, msgs[0].Parts[2].Arguments, msgs[1].Content}
	strs := []string{msgs[0].Role, msgs[0].Parts[0].Type, msgs[0].Parts[1].Text, msgs[0].Parts[2].Name, msgs[1].Role}
	for _, r := range raws {
		strs = append(strs, string(r)) // a copy: only its length and content are checked here
		if cap(r) != len(r) {
			t.Errorf("raw value %s has room after it (cap %d, len %d)", r, cap(r), len(r))
		}
		if !within(unsafe.String(unsafe.SliceData(r), len(r)), s) {
			t.Errorf("raw value %s is a copy", r)
		}
	}
	for _, x := range strs[:5] {
		if !within(x, s) {
			t.Errorf("string %q is a copy", x)
		}
	}
	if txt := msgs[1].text(); txt != "plain content" || !within(txt, s) {
		t.Errorf("message text %q: a copy, or not the content", txt)
	}
	at := NewAttrs([]KV{{Key: "gen_ai.output.messages", Value: s}})
	calls, text := lfOutputMessages(at)
	if text != "plain content" || !within(text, s) {
		t.Errorf("output text %q: a copy, or not the last message's", text)
	}
	if len(calls) != 1 || calls[0].name != "send" || calls[0].args != `{"to":1}` || !within(calls[0].name, s) {
		t.Errorf("tool calls %+v", calls)
	}
}
