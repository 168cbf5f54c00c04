package otelspans

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestArgResource: the resource a tool call's arguments name, also when the
// key is spelled with \u escapes (the fast path that skips decoding
// arguments without any of the keys must not miss it).
func TestArgResource(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{`{"query":"the path to the file"}`, ""},
		{`{"path":"/etc/hosts"}`, "/etc/hosts"},
		{`{"url":"https://x.test","uri":"mcp://a"}`, "mcp://a"},
		{`{"\u0070ath":"/etc/passwd"}`, "/etc/passwd"},
		{`{"file":"a.txt", "x": [1, 2]}`, "a.txt"},
		{`{"path":"/a"`, ""},        // not JSON
		{`{"path":3}`, ""},          // not a string
		{`["path", "/a"]`, ""},      // not an object
		{`{"q":{"path":"/a"}}`, ""}, // not top-level
	} {
		at := NewAttrs([]KV{{Key: "gen_ai.tool.call.arguments", Value: c.args}})
		if got := argResource(at); got != c.want {
			t.Errorf("%s: %q, want %q", c.args, got, c.want)
		}
	}
}

// TestEventIDAndRawText: the fast forms give what fmt and encoding/json
// give.
func TestEventIDAndRawText(t *testing.T) {
	for _, n := range []int{1, 9, 10, 99, 100, 999, 1000, 123456} {
		if got, want := eventID(n), fmt.Sprintf("evt_%03d", n); got != want {
			t.Errorf("eventID(%d) = %q, want %q", n, got, want)
		}
	}
	for _, r := range []string{`"plain text"`, `""`, `"a\"b"`, `"\u00e9t\u00e9"`, "\"caf\xc3\xa9\"", "\"bad \xff utf-8\"", `"tab\tx"`, `12`, `null`, `{"a":1}`} {
		var want string
		if err := json.Unmarshal([]byte(r), &want); err != nil {
			want = ""
		}
		if got := rawText(json.RawMessage(r)); got != want {
			t.Errorf("rawText(%s) = %q, want %q", r, got, want)
		}
	}
}
