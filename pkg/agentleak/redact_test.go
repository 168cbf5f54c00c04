package agentleak

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/lfcli/lf/pkg/agentleak/detect"
)

// TestIsASCIIEveryPosition: a byte above 0x7f at any position of strings
// of every length up to 40 is seen, whatever the other bytes are.
func TestIsASCIIEveryPosition(t *testing.T) {
	for n := 0; n <= 40; n++ {
		base := []byte(strings.Repeat("\x7fa~ 0", 9)[:n])
		if !detect.IsASCII(string(base)) {
			t.Errorf("detect.IsASCII(%q) = false", base)
		}
		for p := 0; p < n; p++ {
			for _, c := range []byte{0x80, 0xc3, 0xff} {
				b := append([]byte(nil), base...)
				b[p] = c
				if detect.IsASCII(string(b)) {
					t.Errorf("detect.IsASCII(%q) = true (byte %d is %#x)", b, p, c)
				}
			}
		}
	}
}

// TestRedactLong: values far longer than the stars constant redact like
// short ones.
func TestRedactLong(t *testing.T) {
	for _, n := range []int{5, 63, 64, 67, 68, 69, 131, 1000} {
		v := "ab" + strings.Repeat("x", n-4) + "yz"
		if got, want := Redact(v), "ab"+strings.Repeat("*", n-4)+"yz"; got != want {
			t.Errorf("Redact of %d bytes = %q", n, got)
		}
	}
}

// TestRedactFindingsShared: findings redacted together (sharing one
// allocation) read as each redacted alone, with and without raw values.
func TestRedactFindingsShared(t *testing.T) {
	vals := []string{"", "abc", "abcd", "abcde", "jöhn.doe@example.org", strings.Repeat("7", 70), "4111 1111 1111 1111", "日本語テキスト", "x\xffyz12"}
	for _, keep := range []bool{false, true} {
		res := &Result{}
		for _, v := range vals {
			res.Findings = append(res.Findings, Finding{Value: v})
		}
		RedactFindings(res, keep)
		for i, v := range vals {
			f := res.Findings[i]
			if f.Redacted != Redact(v) {
				t.Errorf("finding %d: redacted %q, want %q", i, f.Redacted, Redact(v))
			}
			if want := map[bool]string{true: v, false: ""}[keep]; f.Value != want {
				t.Errorf("keep %v, finding %d: value %q", keep, i, f.Value)
			}
		}
	}
}

// TestManySecretsCounted: a trace with more distinct secrets than the
// scanner compares one by one (it then indexes them in a map) counts each
// once, however often and on however many channels it appears, and the
// next trace starts from none.
func TestManySecretsCounted(t *testing.T) {
	sc := NewScanner(nil, nil)
	for _, n := range []int{3, 15, 16, 17, 40} {
		tr := &Trace{ScenarioID: "s"}
		for rep := 0; rep < 3; rep++ {
			var b strings.Builder
			for i := 0; i < n; i++ {
				fmt.Fprintf(&b, "mail user%d@example.com now. ", i)
			}
			ch := []string{"final_output", "tool_input", "log"}[rep]
			tr.Events = append(tr.Events, Event{Channel: ch, Content: []byte(strconv.Quote(b.String()))})
		}
		res, err := sc.Scan(tr)
		if err != nil {
			t.Fatal(err)
		}
		if res.LeakedSecrets != n {
			t.Errorf("%d addresses: %d leaked secrets", n, res.LeakedSecrets)
		}
	}
}
