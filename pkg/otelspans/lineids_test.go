package otelspans

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// lineTraceIDsSearch is the first pass's reading of a line as it was
// written first, the reference for lineTraceIDs: every "trace" of the
// line is looked at, left to right.
func lineTraceIDsSearch(doc []byte, line int, x *traceLines) bool {
	var raw [16]byte
	var id [32]byte
	var prev []byte
	for rest := doc; ; {
		i := bytes.Index(rest, []byte("trace"))
		if i < 0 {
			break
		}
		head := rest[:i]
		rest = rest[i+len("trace"):]
		switch {
		case bytes.HasPrefix(rest, []byte("_id")):
			return false
		case !bytes.HasPrefix(rest, []byte("Id")):
			continue
		}
		if len(head) == 0 || head[len(head)-1] != '"' || len(rest) < 2+3+32+1 ||
			string(rest[:5]) != `Id":"` || rest[5+32] != '"' {
			return false
		}
		if h := rest[5 : 5+32]; !bytes.Equal(h, prev) {
			if _, err := hex.Decode(raw[:], h); err != nil {
				return false
			}
			hex.Encode(id[:], raw[:])
			x.last[string(id[:])] = line
			prev = h
		}
		rest = rest[5+32+1:]
	}
	return !asciiEscape(doc)
}

// checkLineTraceIDs compares lineTraceIDs with the reference on one line
// (noted as line 7 over a state that already holds one id).
func checkLineTraceIDs(t *testing.T, doc []byte) {
	t.Helper()
	state := func() traceLines {
		return traceLines{last: map[string]int{"0123456789abcdef0123456789abcdef": 2}}
	}
	got, want := state(), state()
	gok := lineTraceIDs(doc, 7, &got)
	wok := lineTraceIDsSearch(doc, 7, &want)
	if gok != wok || fmt.Sprint(got.last) != fmt.Sprint(want.last) {
		t.Fatalf("line %q:\nread %v %v\nwant %v %v", doc, gok, got.last, wok, want.last)
	}
}

// lineIDParts are the pieces random lines are made of: keys and ids as
// exporters write them, and the near misses the first pass must doubt or
// pass over.
var lineIDParts = []string{
	`"traceId":"5b8efff798038103d269b633813fc60c"`,
	`"traceId":"5B8EFFF798038103D269B633813FC60C"`,
	`"traceId":"0af7651916cd43dd8448eb211c80319c"`,
	`"traceId":"5b8efff798038103d269b633813fc60"`,
	`"traceId":"5b8efff798038103d269b633813fc6zz"`,
	`"traceId": "5b8efff798038103d269b633813fc60c"`,
	`"trace_id":"5b8efff798038103d269b633813fc60c"`,
	`traceId`, `trace_id`, `trace_ID`, `traceIx`, `trace`, `traces`, `tracetrace`, `traceI`, `trace_`, `trace_i`,
	`"spanId":"0102030405060708"`, `"parentSpanId":""`, `"name":"tool_call"`,
	`"`, `,`, `{`, `}`, `I`, `Id`, `_`, `_id`, `d`, `e`, ` `, `x`,
	`\u0049`, `\u0041d`, `\u00e9`, `\u001f`, `\\u0074`, `\n`, `\\`, `\u00`, `\u007`,
}

func randomIDLine(r *rand.Rand) []byte {
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteString(lineIDParts[r.IntN(len(lineIDParts))])
	}
	return []byte(b.String())
}

// TestLineTraceIDsMatchesSearch holds the first pass's search for 'I' and
// '_' to the search for every "trace" it replaced, on the fixture lines,
// their cut prefixes, and random lines of keys, ids and near misses.
func TestLineTraceIDsMatchesSearch(t *testing.T) {
	for _, l := range streamLines(t) {
		for i := 0; i <= len(l); i++ {
			checkLineTraceIDs(t, []byte(l[:i]))
			checkLineTraceIDs(t, []byte(l[i:]))
		}
	}
	r := rand.New(rand.NewPCG(7, 11))
	for range 200_000 {
		checkLineTraceIDs(t, randomIDLine(r))
	}
	// Two ids, one right after the other: the second key's quote is the
	// first id's closing one, which the first pass doubts.
	two := `{"traceId":"5b8efff798038103d269b633813fc60c"traceId":"0af7651916cd43dd8448eb211c80319c"}`
	checkLineTraceIDs(t, []byte(two))
	if lineTraceIDs([]byte(two), 1, &traceLines{last: map[string]int{}}) {
		t.Errorf("%s read with certainty", two)
	}
}

func FuzzLineTraceIDs(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 5))
	for range 50 {
		f.Add(randomIDLine(r))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkLineTraceIDs(t, doc)
	})
}
