package tracefile

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"unicode/utf8"
	"unsafe"

	"github.com/lfcli/lf/pkg/internal/jsonlex"
)

// A trace line is decoded by a small hand-written parser that knows the
// trace layout: strings without escapes share the line's bytes, content
// stays a raw span, and everything else is skipped after a syntax check.
// Anything it does not expect (a wrong type, an escaped or non-ASCII key,
// a key that differs from a field's name only in case, a second events
// list) makes it give up, and encoding/json decodes the line instead, with
// its located messages. It is several times faster than encoding/json on
// traces and allocates little. The parser is plain functions of the line
// and an index (no closures, no parser struct behind a pointer), so that
// the index stays in a register; a function returns the index after what
// it read, or -1 when it gives up.

// slabEvents is the number of events of a slab: the events of many traces
// are decoded into one allocation instead of one (and a copy) per trace.
const slabEvents = 256

// fastDecodeTrace decodes data (which it keeps: the caller must not reuse
// it) and reports false when the slow path must decide. slab, when not nil,
// is a list whose spare capacity (from its length to its capacity) is
// zeroed events no trace uses, but for the header at the end of the slabs
// decodeEvents makes (see slabMark): the events are decoded there, the
// trace keeps them (its Events' capacity ends with them) and *slab is moved
// past them, or to a new slab when they do not fit.
func fastDecodeTrace(data []byte, t *Trace, slab *[]Event) bool {
	b := data
	i := jsonlex.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = jsonlex.SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return jsonlex.SkipSpace(b, i+1) == len(b)
	}
	events := false
	for {
		key, j := traceKey(b, i)
		if j < 0 {
			return false
		}
		switch key {
		case traceRunID:
			i = strOrNull(b, j, &t.RunID)
		case traceAgentName:
			i = strOrNull(b, j, &t.AgentName)
		case traceScenarioID:
			i = strOrNull(b, j, &t.ScenarioID)
		case traceTimestamp:
			i = strOrNull(b, j, &t.Timestamp)
		case traceEvents:
			if events {
				// encoding/json decodes a second list over the first one's
				// elements; that is left to it.
				return false
			}
			events = true
			i = decodeEvents(b, j, t, slab)
		default:
			i = jsonlex.SkipValue(b, j)
		}
		if i < 0 {
			return false
		}
		i = jsonlex.SkipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = jsonlex.SkipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return jsonlex.SkipSpace(b, i+1) == len(b)
		}
		return false
	}
}

// The keys of a trace as traceKey tells them.
const (
	traceOther = iota
	traceRunID
	traceAgentName
	traceScenarioID
	traceTimestamp
	traceEvents
)

// wordPattern is a key pattern of 9 to 16 bytes as two little-endian
// words, the second masked to the pattern's length n.
type wordPattern struct {
	w0, w1, mask1 uint64
	n             int
}

// newWordPattern splits pat (9 to 16 bytes) into its two words.
func newWordPattern(pat string) wordPattern {
	var buf [16]byte
	copy(buf[:], pat)
	return wordPattern{
		n:     len(pat),
		mask1: 1<<(8*(len(pat)-8)) - 1,
		w0:    binary.LittleEndian.Uint64(buf[:8]),
		w1:    binary.LittleEndian.Uint64(buf[8:]),
	}
}

// traceKeyPatterns[k] is `"name": ` of trace key k (10 to 15 bytes).
var traceKeyPatterns = func() (ps [traceEvents + 1]wordPattern) {
	for k, name := range [...]string{traceRunID: "run_id", traceAgentName: "agent_name", traceScenarioID: "scenario_id", traceTimestamp: "timestamp", traceEvents: "events"} {
		if name != "" {
			ps[k] = newWordPattern(`"` + name + `": `)
		}
	}
	return ps
}()

// traceKey reads the key of a trace's member at b[i] and the colon after
// it, and returns which key it is and the index of the value (-1: give
// up). The keys as recorders write them (`"name": ` and a value) are told
// by two words; any other is read by objectKey, and one that folds to a
// field's name without being it gives up, as encoding/json would take it
// for the field.
func traceKey(b []byte, i int) (int, int) {
	if i+17 <= len(b) {
		w0, w1 := jsonlex.LoadBytes64(b, i), jsonlex.LoadBytes64(b, i+8)
		for k := traceRunID; k <= traceEvents; k++ {
			if p := &traceKeyPatterns[k]; w0 == p.w0 {
				if w1&p.mask1 == p.w1 && b[i+p.n] > ' ' {
					return k, i + p.n
				}
				break
			}
		}
	}
	key, j := objectKey(b, i)
	if j < 0 {
		return traceOther, -1
	}
	switch key {
	case "run_id":
		return traceRunID, j
	case "agent_name":
		return traceAgentName, j
	case "scenario_id":
		return traceScenarioID, j
	case "timestamp":
		return traceTimestamp, j
	case "events":
		return traceEvents, j
	}
	if foldsTo(key, "run_id") || foldsTo(key, "agent_name") || foldsTo(key, "scenario_id") || foldsTo(key, "timestamp") || foldsTo(key, "events") {
		return traceOther, -1
	}
	return traceOther, j
}

// objectKey reads an object's key at b[i] and the colon after it, and
// returns the key (sharing b's bytes) and the index of the value. Keys
// with escapes or non-ASCII bytes give up: encoding/json matches them to
// fields by Unicode case folding.
func objectKey(b []byte, i int) (string, int) {
	if i >= len(b) || b[i] != '"' {
		return "", -1
	}
	e, fl := jsonlex.StringEnd(b, i+1, jsonlex.HighBits)
	if e < 0 || fl != 0 {
		return "", -1
	}
	key := unsafe.String(unsafe.SliceData(b[i+1:]), e-(i+1))
	i = jsonlex.SkipSpace(b, e+1)
	if i >= len(b) || b[i] != ':' {
		return "", -1
	}
	i = jsonlex.SkipSpace(b, i+1)
	if i >= len(b) {
		return "", -1
	}
	return key, i
}

// foldsTo reports whether encoding/json would take the ASCII key for the
// field named known (lower case letters and underscores): the same letters
// in any case.
func foldsTo(key, known string) bool {
	if len(key) != len(known) {
		return false
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c != known[i] && c|0x20 != known[i] {
			return false
		}
	}
	return true
}

// decodeEvents reads the events list at b[i] into t.Events.
func decodeEvents(b []byte, i int, t *Trace, slab *[]Event) int {
	if b[i] == 'n' {
		if !jsonlex.Lit(b, i, "null") {
			return -1
		}
		t.Events = nil
		return i + 4
	}
	if b[i] != '[' {
		return -1
	}
	i = jsonlex.SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		// Not nil: `events: []` is a trace with no events, not a missing key.
		t.Events = []Event{}
		return i + 1
	}
	// free's length is the events a trace may take; a slab's header, its
	// last event, is past it.
	var free []Event
	var hdr *Event
	var tb *slabText
	if slab != nil {
		free = (*slab)[len(*slab):cap(*slab)]
		if k := len(free) - 1; k >= 0 && free[k].text&slabMark != 0 {
			hdr, free = &free[k], free[:k]
			tb = slabTrace(hdr, k, len(b)-i)
		}
	}
	n := 0
	for {
		if n == len(free) {
			size := max(slabEvents, 2*n)
			if slab == nil {
				size = max(16, 2*n) // no slab to share: one trace's list
			}
			grown := make([]Event, size+1)
			copy(grown, free[:n])
			clear(free[:n]) // the old slab's spare events stay zero
			free = grown[:size]
			if slab != nil {
				// The trace starts the new slab: it gives the events back
				// if the next trace starts there too. Its texts stay
				// where they began (tb): the old buffer is written no more.
				hdr = &grown[size]
				hdr.text, hdr.decN = slabMark, uint32(size)
			}
		}
		i = decodeEvent(b, i, &free[n], tb)
		n++
		if i >= 0 {
			i = jsonlex.SkipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = jsonlex.SkipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == ']' {
				t.Events = free[:n:n]
				if slab != nil {
					*slab = free[n:n]
					if hdr != nil {
						hdr.text |= slabTook
					}
				}
				return i + 1
			}
		}
		clear(free[:n])
		if slab != nil {
			*slab = free[:0]
		}
		if tb != nil {
			tb.used = tb.mark // the texts went with the events
		}
		return -1
	}
}

// A slab made by decodeEvents has one more event than it hands out, its
// last, whose text has slabMark: the header, which says whether the slab's
// owner gives a trace's events back (see rewind) and holds the text buffer
// its escaped content strings are then decoded into, reused as the events
// are. A header's decN is the events free when the last trace began, and
// slabTook says that trace took some: when the next trace begins where it
// did, they were given back, texts and all. An owner that gives nothing
// back keeps every trace's events: its contents are not decoded here (no
// buffer grows for it), the scanner decodes each into its own buffer.
const (
	slabMark = 0x80
	slabTook = 0x40
)

// slabText is a slab's text buffer: buf[:used] holds texts of events in
// use, mark is used when the last trace began.
type slabText struct {
	buf        []byte // its length is its capacity
	used, mark int
}

// slabTrace notes in the slab's header hdr that a trace begins with free
// events free and has rest bytes left to decode, and returns the buffer its
// content strings are decoded into (nil: none, the scanner decodes them).
// A trace's texts are never longer than its bytes: with rest+8 bytes of
// room (a word stored past a text's end) none of them runs out of it.
func slabTrace(hdr *Event, free, rest int) *slabText {
	tb := (*slabText)(hdr.dec)
	if hdr.text&slabTook != 0 && hdr.decN == uint32(free) {
		if tb == nil {
			tb = &slabText{}
			hdr.dec = unsafe.Pointer(tb)
		}
		tb.used = tb.mark
	}
	hdr.text, hdr.decN = slabMark, uint32(free)
	if tb == nil {
		return nil
	}
	if need := rest + 8; len(tb.buf)-tb.used < need {
		// Too small for this trace, or full of texts of traces still in
		// use, which keep the old buffer alive: a new one.
		tb.buf = make([]byte, max(need+need/4, len(tb.buf)))
		tb.used = 0
	}
	tb.mark = tb.used
	return tb
}

// decodeEvent reads the event object at b[i] into e, which is zero.
// Recorders write an event's members in one order, each after `, `: while
// the next member is the one expected, its value is read in line, without
// decodeMembers' dispatch by key; at the first other shape the rest of the
// object goes to decodeMembers.
func decodeEvent(b []byte, i int, e *Event, tb *slabText) int {
	if i >= len(b) || b[i] != '{' {
		return -1
	}
	i = jsonlex.SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	j := i + len(`"event_id": `)
	if !atPattern(b, i, firstMemberW0, firstMemberW1, len(`"event_id": `)) {
		var key int
		if key, j = eventKey(b, i); key != keyEventID || j < 0 {
			return decodeMembers(b, e, tb, key, j)
		}
	}
	if i = strOrNull(b, j, &e.EventID); i < 0 {
		return -1
	}
	if !atPattern(b, i, memberChannelW0, memberChannelW1, len(`, "channel": `)) {
		return membersAfter(b, e, tb, keyEventID, i)
	}
	if i = strOrNull(b, i+len(`, "channel": `), &e.Channel); i < 0 {
		return -1
	}
	if !atPattern(b, i, memberSourceW0, memberSourceW1, len(`, "source": `)) {
		return membersAfter(b, e, tb, keyChannel, i)
	}
	if i = strOrNull(b, i+len(`, "source": `), &e.Source); i < 0 {
		return -1
	}
	if !atPattern(b, i, memberTargetW0, memberTargetW1, len(`, "target": `)) {
		return membersAfter(b, e, tb, keySource, i)
	}
	if i = strOrNull(b, i+len(`, "target": `), &e.Target); i < 0 {
		return -1
	}
	if !atPattern(b, i, memberContentW0, memberContentW1, len(`, "content": `)) {
		return membersAfter(b, e, tb, keyTarget, i)
	}
	j = i + len(`, "content": `)
	if b[j] != '"' {
		return decodeMembers(b, e, tb, keyContent, j)
	}
	end, fl := contentEnd(b, j+1, e, tb)
	if end < 0 {
		return -1
	}
	i = end + 1
	e.text = fl
	e.Content = json.RawMessage(b[j:i:i])
	if !atPattern(b, i, memberMetadataW0, memberMetadataW1, len(`, "metadata": `)) {
		return membersAfter(b, e, tb, keyContent, i)
	}
	if i = skipMetadata(b, i+len(`, "metadata": `)); i < 0 {
		return -1
	}
	if !atPattern(b, i, memberTimestampW0, memberTimestampW1, len(`, "timestamp": `)) {
		return membersAfter(b, e, tb, keyMetadata, i)
	}
	j = i + len(`, "timestamp": `)
	if b[j] != '"' {
		return decodeMembers(b, e, tb, keyTimestamp, j)
	}
	if i = jsonlex.PlainEnd(b, j+1); i < 0 {
		return decodeMembers(b, e, tb, keyTimestamp, j)
	}
	if i++; i < len(b) && b[i] == '}' {
		return i + 1
	}
	return membersAfter(b, e, tb, keyTimestamp, i)
}

// atMember reports whether b[i] starts `, "name": ` of key k and a value.
func atMember(b []byte, i, k int) bool {
	p := &memberPatterns[k]
	return atPattern(b, i, p.w0, p.w1, p.n)
}

// atPattern reports whether b[i] starts the n-byte pattern (9 to 15
// bytes) whose little-endian words are w0 and w1 (w1 zero past the
// pattern) and a byte above space after it. Called with constants, its
// mask and shift are constants too, and the byte after the pattern is
// read from the second word.
func atPattern(b []byte, i int, w0, w1 uint64, n int) bool {
	if i+16 > len(b) || jsonlex.LoadBytes64(b, i) != w0 {
		return false
	}
	x := jsonlex.LoadBytes64(b, i+8)
	return x&(1<<(8*(n-8))-1) == w1 && byte(x>>(8*(n-8))) > ' '
}

// The words of `"event_id": ` and of `, "name": ` for the event keys
// after it, as memberPatterns holds them (TestMemberWordsMatchPatterns),
// for decodeEvent's straight-line tests.
const (
	firstMemberW0, firstMemberW1         = 0x695f746e65766522, 0x00000000203a2264 // `"event_id": `
	memberChannelW0, memberChannelW1     = 0x6e6e61686322202c, 0x000000203a226c65
	memberSourceW0, memberSourceW1       = 0x6372756f7322202c, 0x00000000203a2265
	memberTargetW0, memberTargetW1       = 0x656772617422202c, 0x00000000203a2274
	memberContentW0, memberContentW1     = 0x65746e6f6322202c, 0x000000203a22746e
	memberMetadataW0, memberMetadataW1   = 0x646174656d22202c, 0x0000203a22617461
	memberTimestampW0, memberTimestampW1 = 0x73656d697422202c, 0x00203a22706d6174
)

// membersAfter reads the rest of an event's object from b[i], just after
// the value of a member of key key.
func membersAfter(b []byte, e *Event, tb *slabText, key, i int) int {
	key, j := nextEventMember(b, key, i)
	if key == keyEnd {
		return j
	}
	return decodeMembers(b, e, tb, key, j)
}

// decodeMembers reads an event's members from the value (at b[j]) of the
// member of key key on, and the object's end.
func decodeMembers(b []byte, e *Event, tb *slabText, key, j int) int {
	for {
		if j < 0 {
			return -1
		}
		var i int
		switch key {
		case keyEventID:
			i = strOrNull(b, j, &e.EventID)
		case keyChannel:
			i = strOrNull(b, j, &e.Channel)
		case keySource:
			i = strOrNull(b, j, &e.Source)
		case keyTarget:
			i = strOrNull(b, j, &e.Target)
		case keyContent:
			// Raw, as json.RawMessage keeps it ("null" included); a string
			// is only checked, not decoded.
			if b[j] == '"' {
				end, fl := contentEnd(b, j+1, e, tb)
				if end < 0 {
					return -1
				}
				i = end + 1
				e.text = fl
			} else {
				i = jsonlex.SkipValue(b, j)
				e.text = 0 // a repeated key's string is gone
			}
			if i >= 0 {
				e.Content = json.RawMessage(b[j:i:i])
			}
		case keyMetadata:
			i = skipMetadata(b, j)
		default: // timestamp and keys of no field
			i = -1
			if b[j] == '"' {
				// A timestamp: plain, no jsonlex.StringEnd needed.
				if e := jsonlex.PlainEnd(b, j+1); e >= 0 {
					i = e + 1
				}
			}
			if i < 0 {
				i = jsonlex.SkipValue(b, j)
			}
		}
		if i < 0 {
			return -1
		}
		if key, j = nextEventMember(b, key, i); key == keyEnd {
			return j
		}
	}
}

// nextEventMember reads what follows the value of an event's member of
// key key, which ends at b[i]: the next member's key and the index of its
// value (-1: give up), or keyEnd and the index after the object.
func nextEventMember(b []byte, key, i int) (int, int) {
	// Recorders write the members in one order: the next one's separator
	// and key are tested whole, two words against two.
	if next := key + 1; next < len(memberPatterns) && atMember(b, i, next) {
		return next, i + memberPatterns[next].n
	}
	if i+1 < len(b) && b[i] == ',' && b[i+1] == ' ' {
		return eventKey(b, i+2) // the usual separator; eventKey reads any other space
	}
	i = jsonlex.SkipSpace(b, i)
	if i < len(b) && b[i] == ',' {
		return eventKey(b, jsonlex.SkipSpace(b, i+1))
	}
	if i < len(b) && b[i] == '}' {
		return keyEnd, i + 1
	}
	return keyOther, -1
}

// The keys of an event as eventKey tells them, in the order recorders
// write them: the fields, and the others (metadata, timestamp, unknown
// keys), whose values are skipped.
const (
	keyOther = iota
	keyEventID
	keyChannel
	keySource
	keyTarget
	keyContent
	keyMetadata
	keyTimestamp
	keyEnd // not a key: the object's end (nextEventMember)
)

// memberPatterns[k] is `, "name": ` of key k (12 to 15 bytes).
var memberPatterns = func() (ps [keyTimestamp + 1]wordPattern) {
	for k, name := range [...]string{keyEventID: "event_id", keyChannel: "channel", keySource: "source", keyTarget: "target", keyContent: "content", keyMetadata: "metadata", keyTimestamp: "timestamp"} {
		if name != "" {
			ps[k] = newWordPattern(`, "` + name + `": `)
		}
	}
	return ps
}()

// eventKey reads the key of an event's member at b[i] (space before it
// allowed) and the colon after it, and returns which key it is and the
// index of the value (-1: give up). The keys recorders write are
// recognised by the eight bytes after the opening quote (the name and its
// closing quote, or its first eight letters), and `": "` after it by one
// more load: such a key holds no escape and is exactly its name. Others are
// read as any key.
func eventKey(b []byte, i int) (int, int) {
	if len(b)-i < 24 || b[i] != '"' {
		return otherEventKey(b, i)
	}
	var key, n int // n: the name's length
	w := jsonlex.LoadBytes64(b, i+1)
	switch {
	case w == wordChannel:
		key, n = keyChannel, len("channel")
	case w == wordContent:
		key, n = keyContent, len("content")
	case w&lowSeven == wordSource:
		key, n = keySource, len("source")
	case w&lowSeven == wordTarget:
		key, n = keyTarget, len("target")
	case w == wordEventID && b[i+9] == '"':
		key, n = keyEventID, len("event_id")
	case w == wordMetadata && b[i+9] == '"':
		key, n = keyMetadata, len("metadata")
	case w == wordTimestam && b[i+9] == 'p' && b[i+10] == '"':
		key, n = keyTimestamp, len("timestamp")
	default:
		return otherEventKey(b, i)
	}
	i += n + 2 // past the closing quote: i+8 <= len(b) still
	if w := jsonlex.LoadBytes64(b, i); w&0xffff == colonSpace && byte(w>>16) > ' ' {
		return key, i + 2
	}
	i = jsonlex.SkipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return keyOther, -1
	}
	i = jsonlex.SkipSpace(b, i+1)
	if i >= len(b) {
		return keyOther, -1
	}
	return key, i
}

// colonSpace is `: ` as the low half of a little-endian word.
const colonSpace = ' '<<8 | ':'

// otherEventKey is eventKey for any key: a key that folds to a field's
// name without being it gives up, as objectKey's callers do.
func otherEventKey(b []byte, i int) (int, int) {
	key, j := objectKey(b, jsonlex.SkipSpace(b, i))
	if j < 0 {
		return keyOther, -1
	}
	switch key {
	case "event_id":
		return keyEventID, j
	case "channel":
		return keyChannel, j
	case "source":
		return keySource, j
	case "target":
		return keyTarget, j
	case "content":
		return keyContent, j
	}
	if foldsTo(key, "event_id") || foldsTo(key, "channel") || foldsTo(key, "source") || foldsTo(key, "target") || foldsTo(key, "content") {
		return keyOther, -1
	}
	return keyOther, j
}

// The first eight bytes after the opening quote of an event's keys, as
// eventKey loads them (little endian); lowSeven keeps seven of them.
var (
	wordChannel  = jsonlex.LeWord(`channel"`)
	wordContent  = jsonlex.LeWord(`content"`)
	wordSource   = jsonlex.LeWord(`source"`)
	wordTarget   = jsonlex.LeWord(`target"`)
	wordEventID  = jsonlex.LeWord(`event_id`)
	wordMetadata = jsonlex.LeWord(`metadata`)
	wordTimestam = jsonlex.LeWord(`timestam`)
)

const lowSeven = 1<<56 - 1

// strOrNull reads the string or null at b[i] into dst. null leaves dst as
// it is, as encoding/json does (an earlier value of a repeated key stays).
func strOrNull(b []byte, i int, dst *string) int {
	if b[i] == '"' {
		// Ids, channels and names: plain ASCII, a few words long; the
		// byte that ends them is read from the word.
		for j, lim := i+1, len(b)-8; j <= lim; j += 8 {
			w := jsonlex.LoadBytes64(b, j)
			if m := jsonlex.StopMask(w); m != 0 {
				t := bits.TrailingZeros64(m) // the flag: bit 7 of its byte
				if byte(w>>(t&^7)) != '"' {
					break
				}
				e := j + t>>3
				*dst = unsafe.String((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i+1)), e-(i+1))
				return e + 1
			}
		}
	}
	return strOrNullSlow(b, i, dst)
}

// strOrNullSlow is strOrNull for any value.
func strOrNullSlow(b []byte, i int, dst *string) int {
	if b[i] == 'n' {
		if jsonlex.Lit(b, i, "null") {
			return i + 4
		}
		return -1
	}
	if b[i] != '"' {
		return -1
	}
	e, fl := jsonlex.StringEnd(b, i+1, jsonlex.HighBits)
	if e < 0 {
		return -1
	}
	body := b[i+1 : e]
	switch {
	case len(body) == 0:
		*dst = ""
	case fl == 0:
		*dst = unsafe.String(&body[0], len(body))
	case fl&jsonlex.StrEsc != 0:
		v, ok := jsonlex.Unquote(b[i : e+1])
		if !ok {
			return -1
		}
		*dst = v
	case utf8.Valid(body):
		*dst = unsafe.String(&body[0], len(body))
	default:
		*dst = jsonlex.CoerceUTF8(body)
	}
	return e + 1
}

// What the decoder notes of an event's content (Event.text): ContentStr
// when Content is a JSON string it checked, and then whether the string
// holds escapes and bytes above 0x7f. Without ContentStr nothing is known.
const (
	ContentEsc  = jsonlex.StrEsc
	ContentHigh = jsonlex.StrHigh
	ContentStr  = 4
	ContentDec  = 8 // the string has escapes, decoded in Event.dec
)

// contentEnd is jsonlex.StringEnd for a content string: the index of its closing
// quote (or -1) and what it holds (ContentStr and the bits after it).
// With a text buffer (tb), a string with escapes is decoded into it from
// its first backslash on, in the same walk, for e (ContentDec).
// Content has an escape every few dozen bytes; a table tells the two-byte
// ones. Most content is ASCII: jsonlex.StopMask stops at a byte above 0x7f too,
// for a word test three instructions shorter than jsonlex.SpecialMask's, and the
// first such byte (the string holds one: ContentHigh) hands the rest to
// contentEndHigh.
func contentEnd(b []byte, i int, e *Event, tb *slabText) (int, uint8) {
	fl, s := uint8(ContentStr), i
	for lim := len(b) - 8; ; {
		for ; i <= lim; i += 8 {
			if m := jsonlex.StopMask(jsonlex.LoadBytes64(b, i)); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto stop
			}
		}
		{
			e, f := jsonlex.StringEnd(b, i, jsonlex.HighBits)
			return e, fl | f
		}
	stop:
		// Escapes come first: there are several of them to a content.
		if c := b[i]; c == '\\' && i+1 < len(b) {
			if tb != nil {
				o := tb.used
				return contentUnquote(b, i, o, o+copy(tb.buf[o:], b[s:i]), fl|ContentEsc, e, tb)
			}
			fl |= ContentEsc
			if jsonlex.SimpleEscape[b[i+1]] {
				i += 2
				continue
			}
			if i = jsonlex.UEscapeEnd(b, i); i < 0 {
				return -1, 0
			}
		} else if c == '"' {
			return i, fl
		} else if c >= utf8.RuneSelf {
			return contentEndHigh(b, s, i+1, fl|ContentHigh, e, tb)
		} else {
			return -1, 0 // a control character, or a cut escape
		}
	}
}

// contentEndHigh is contentEnd after a byte above 0x7f: it no longer
// stops at them.
func contentEndHigh(b []byte, s, i int, fl uint8, e *Event, tb *slabText) (int, uint8) {
	for lim := len(b) - 8; ; {
		for ; i <= lim; i += 8 {
			if m := jsonlex.SpecialMask(jsonlex.LoadBytes64(b, i), 0); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto stop
			}
		}
		{
			e, f := jsonlex.StringEnd(b, i, 0)
			return e, fl | f
		}
	stop:
		if c := b[i]; c == '\\' && i+1 < len(b) {
			if tb != nil {
				o := tb.used
				return contentUnquote(b, i, o, o+copy(tb.buf[o:], b[s:i]), fl|ContentEsc, e, tb)
			}
			fl |= ContentEsc
			if jsonlex.SimpleEscape[b[i+1]] {
				i += 2
				continue
			}
			if i = jsonlex.UEscapeEnd(b, i); i < 0 {
				return -1, 0
			}
		} else if c == '"' {
			return i, fl
		} else {
			return -1, 0
		}
	}
}

// contentUnquote is contentEnd from the string's first backslash (at
// b[i]), decoding it for e into tb, where its text begins at o0 and its
// bytes before the backslash are already copied, up to o. tb has room for
// every byte of the line and a word more (slabTrace).
func contentUnquote(b []byte, i, o0, o int, fl uint8, e *Event, tb *slabText) (int, uint8) {
	out := tb.buf
	if fl&ContentHigh == 0 {
		if i, o = jsonlex.UnquoteRun(b, out, i, o); i >= 0 && b[i] != '"' {
			fl |= ContentHigh // unquoteRun stopped at a byte above 0x7f
			i, o = jsonlex.UnquoteRunHigh(b, out, i, o)
		}
	} else {
		i, o = jsonlex.UnquoteRunHigh(b, out, i, o)
	}
	if i < 0 {
		return -1, 0
	}
	tb.used = o
	e.dec, e.decN = unsafe.Pointer(&out[o0]), uint32(o-o0)
	return i, fl | ContentDec
}

// skipMetadata is jsonlex.SkipValue for an event's metadata: an object of plain
// strings and booleans, spaced as recorders write it, is read by a loop
// of its own (no recursion, no jsonlex.StringEnd); anything else by jsonlex.SkipValue.
func skipMetadata(b []byte, i int) int {
	j := i + 1
	if b[i] != '{' || j >= len(b) {
		return jsonlex.SkipValue(b, i)
	}
	if b[j] == '}' {
		return j + 1
	}
	for b[j] == '"' {
		// The key's closing quote, `: ` and the value's first byte, as
		// one word.
		e := jsonlex.PlainEnd(b, j+1)
		if e < 0 || e+8 > len(b) {
			break
		}
		w := jsonlex.LoadBytes64(b, e)
		if w>>8&0xffff != colonSpace {
			break
		}
		switch j = e + 3; byte(w >> 24) {
		case '"':
			if e = jsonlex.PlainEnd(b, j+1); e < 0 {
				return jsonlex.SkipValue(b, i)
			}
			j = e + 1
		case 't':
			if !jsonlex.Lit(b, j, "true") {
				return jsonlex.SkipValue(b, i)
			}
			j += 4
		case 'f':
			if !jsonlex.Lit(b, j, "false") {
				return jsonlex.SkipValue(b, i)
			}
			j += 5
		default:
			return jsonlex.SkipValue(b, i)
		}
		if j+8 > len(b) {
			break
		}
		// The object's end, or `, ` and the next key's quote, as one word.
		w = jsonlex.LoadBytes64(b, j)
		if byte(w) == '}' {
			return j + 1
		}
		if w&0xffffff != commaSpaceQuote {
			break
		}
		j += 2
	}
	return jsonlex.SkipValue(b, i)
}

// commaSpaceQuote is `, "` as the low bytes of a little-endian word.
const commaSpaceQuote = '"'<<16 | ' '<<8 | ','

// Rewind gives back the slab events a trace took, once nothing refers to
// them: start is the slab before the trace was decoded, now after. Taken
// events are zeroed (the decoder's slab holds zero events past its
// length); a trace that moved to a new slab leaves the old one behind.
func Rewind(start, now []Event) []Event {
	c, n := cap(start), cap(now)
	if c == 0 || n == 0 || n > c || &start[:c][c-1] != &now[:n][n-1] {
		return now
	}
	clear(start[:c-n])
	return start
}
