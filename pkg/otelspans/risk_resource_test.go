package otelspans

import "testing"

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
