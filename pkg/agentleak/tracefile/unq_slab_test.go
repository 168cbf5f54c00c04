package tracefile

import (
	"fmt"
	"strings"
	"testing"
)

// TestSlabTextLifetimes walks a slab through what its owners do: give
// traces back (the decoder then unquotes contents into the slab's
// buffer), keep some, outgrow the slab in the middle of a trace, fail a
// trace, and give back again. Every trace kept must still read its own
// texts at the end, and contents are unquoted only once events were given
// back.
func TestSlabTextLifetimes(t *testing.T) {
	doc := func(tag string, events int) []byte {
		var b strings.Builder
		b.WriteString(`{"run_id": "` + tag + `", "events": [`)
		for i := range events {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `{"event_id": "e%d", "channel": "log", "source": "s", "target": "t", "content": "%s \"%d\"\n caf\u00e9 %s", "metadata": {}, "timestamp": "x"}`, i, tag, i, strings.Repeat("ab", i%9))
		}
		b.WriteString("]}")
		return []byte(b.String())
	}
	var slab []Event
	type kept struct {
		tag string
		tr  *Trace
	}
	var keep []kept

	decoded := 0
	step := func(tag string, events int, give, wantDec bool) {
		t.Helper()
		start := slab
		tr := &Trace{}
		if !fastDecodeTrace(doc(tag, events), tr, &slab) {
			t.Fatalf("%s: not decoded", tag)
		}
		for i := range tr.Events {
			e := &tr.Events[i]
			if got := e.text&ContentDec != 0; got != wantDec {
				t.Fatalf("%s event %d: decoded %v, want %v", tag, i, got, wantDec)
			}
			if e.text&ContentDec != 0 {
				decoded++
			}
			checkEventText(t, tag, e)
		}
		if give {
			slab = Rewind(start, slab)
		} else {
			keep = append(keep, kept{tag, tr})
		}
	}
	step("first", 3, true, false)  // starts a slab: nothing to compare with
	step("second", 3, true, false) // begins where the first ended
	step("third", 3, true, true)   // begins where the second did: given back
	step("fourth", 5, false, true) // kept
	step("fifth", 2, true, true)
	// A trace that does not fit: the slab is replaced in its middle, its
	// texts stay in the old buffer; the new slab learns anew.
	step("sixth", slabEvents, false, true)
	step("seventh", 4, false, false)
	step("eighth", 4, true, false)
	step("ninth", 4, true, true)
	// A trace the decoder gives up on in its middle gives its texts back.
	start := slab
	bad := append(doc("bad", 6), '!')
	if fastDecodeTrace(bad[:len(bad)-40], &Trace{}, &slab) {
		t.Fatal("a cut trace decoded")
	}
	slab = Rewind(start, slab)
	step("tenth", 7, false, true)
	step("eleventh", 3, true, true)
	for _, k := range keep {
		for i := range k.tr.Events {
			checkEventText(t, k.tag+" (kept)", &k.tr.Events[i])
		}
	}
	if decoded == 0 {
		t.Fatal("nothing decoded")
	}
}

// checkEventText: the scanner's text of e is eventText's of its raw
// content.
func checkEventText(t *testing.T, tag string, e *Event) {
	t.Helper()
	want, werr := EventText(e.Content, nil)
	got, err := noteText(e)
	if got != want || err != nil || werr != nil {
		t.Fatalf("%s: content %s (note %#x): text %q, %v; want %q, %v", tag, e.Content, e.text, got, err, want, werr)
	}
}
