package tracefile

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
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
	i := ws(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = ws(b, i+1)
	if i < len(b) && b[i] == '}' {
		return ws(b, i+1) == len(b)
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
			i = skipValue(b, j, 0)
		}
		if i < 0 {
			return false
		}
		i = ws(b, i)
		if i < len(b) && b[i] == ',' {
			i = ws(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return ws(b, i+1) == len(b)
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
		w0, w1 := LoadBytes64(b, i), LoadBytes64(b, i+8)
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
	e, fl := strEnd(b, i+1, HighBits)
	if e < 0 || fl != 0 {
		return "", -1
	}
	key := unsafe.String(unsafe.SliceData(b[i+1:]), e-(i+1))
	i = ws(b, e+1)
	if i >= len(b) || b[i] != ':' {
		return "", -1
	}
	i = ws(b, i+1)
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
		if !isLit(b, i, "null") {
			return -1
		}
		t.Events = nil
		return i + 4
	}
	if b[i] != '[' {
		return -1
	}
	i = ws(b, i+1)
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
			i = ws(b, i)
			if i < len(b) && b[i] == ',' {
				i = ws(b, i+1)
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
	i = ws(b, i+1)
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
	if i = plainEnd(b, j+1); i < 0 {
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
	if i+16 > len(b) || LoadBytes64(b, i) != w0 {
		return false
	}
	x := LoadBytes64(b, i+8)
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
				i = skipValue(b, j, 0)
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
				// A timestamp: plain, no strEnd needed.
				if e := plainEnd(b, j+1); e >= 0 {
					i = e + 1
				}
			}
			if i < 0 {
				i = skipValue(b, j, 0)
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
	i = ws(b, i)
	if i < len(b) && b[i] == ',' {
		return eventKey(b, ws(b, i+1))
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
	w := LoadBytes64(b, i+1)
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
	if w := LoadBytes64(b, i); w&0xffff == colonSpace && byte(w>>16) > ' ' {
		return key, i + 2
	}
	i = ws(b, i)
	if i >= len(b) || b[i] != ':' {
		return keyOther, -1
	}
	i = ws(b, i+1)
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
	key, j := objectKey(b, ws(b, i))
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
	wordChannel  = LeWord(`channel"`)
	wordContent  = LeWord(`content"`)
	wordSource   = LeWord(`source"`)
	wordTarget   = LeWord(`target"`)
	wordEventID  = LeWord(`event_id`)
	wordMetadata = LeWord(`metadata`)
	wordTimestam = LeWord(`timestam`)
)

const lowSeven = 1<<56 - 1

// LeWord is s (at most eight bytes) as a little-endian word.
func LeWord(s string) uint64 {
	var w [8]byte
	copy(w[:], s)
	return binary.LittleEndian.Uint64(w[:])
}

// ws returns the index of the first byte from i on that is not JSON
// space; the common cases (none, one space) stay inline.
func ws(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i
	}
	if i+1 < len(b) && b[i] == ' ' && b[i+1] > ' ' {
		return i + 1 // `": "`, `", "`: one space
	}
	return wsLoop(b, i)
}

func wsLoop(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func isLit(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// strOrNull reads the string or null at b[i] into dst. null leaves dst as
// it is, as encoding/json does (an earlier value of a repeated key stays).
func strOrNull(b []byte, i int, dst *string) int {
	if b[i] == '"' {
		// Ids, channels and names: plain ASCII, a few words long; the
		// byte that ends them is read from the word.
		for j, lim := i+1, len(b)-8; j <= lim; j += 8 {
			w := LoadBytes64(b, j)
			if m := StopMask(w); m != 0 {
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

// plainEnd returns the index of the quote that closes the string whose body
// starts at b[i] when no byte before it is a backslash, a control character
// or above 0x7f, else -1 (as when b is shorter than eight bytes): strEnd's
// loop without its cases.
func plainEnd(b []byte, i int) int {
	lim := len(b) - 8
	for ; i <= lim; i += 8 {
		w := LoadBytes64(b, i)
		if m := StopMask(w); m != 0 {
			t := bits.TrailingZeros64(m) // the flag: bit 7 of its byte
			if byte(w>>(t&^7)) == '"' {
				return i + t>>3
			}
			return -1
		}
	}
	if i >= len(b) || lim < 0 {
		return -1
	}
	// The last bytes (a trace's last timestamp ends there): b's last word,
	// the bytes before i read as 'a', as NextSpecial does.
	passed := uint64(1)<<(uint(i-lim)*8) - 1
	w := LoadBytes64(b, lim)&^passed | 0x6161616161616161&passed
	if m := StopMask(w); m != 0 {
		t := bits.TrailingZeros64(m)
		if byte(w>>(t&^7)) == '"' {
			return lim + t>>3
		}
	}
	return -1
}

// strOrNullSlow is strOrNull for any value.
func strOrNullSlow(b []byte, i int, dst *string) int {
	if b[i] == 'n' {
		if isLit(b, i, "null") {
			return i + 4
		}
		return -1
	}
	if b[i] != '"' {
		return -1
	}
	e, fl := strEnd(b, i+1, HighBits)
	if e < 0 {
		return -1
	}
	body := b[i+1 : e]
	switch {
	case len(body) == 0:
		*dst = ""
	case fl == 0:
		*dst = unsafe.String(&body[0], len(body))
	case fl&strEsc != 0:
		v, ok := unquote(b[i : e+1])
		if !ok {
			return -1
		}
		*dst = v
	case utf8.Valid(body):
		*dst = unsafe.String(&body[0], len(body))
	default:
		*dst = validUTF8(body)
	}
	return e + 1
}

// What a string's body holds, as strEnd reports it.
const (
	strEsc  = 1 << iota // escapes
	strHigh             // bytes at or above 0x80
)

// HighBits as strEnd's high: stop at bytes above 0x7f too.
const HighBits = 0x8080808080808080

// strEnd checks the body of a string from b[i] (after its opening quote)
// and returns the index of its closing quote, or -1 when the string is
// malformed or not closed; fl tells whether it holds escapes and, when
// high is HighBits, bytes above 0x7f (0: not looked for).
func strEnd(b []byte, i int, high uint64) (end int, fl uint8) {
	for {
		// NextSpecial's loop, inline: most strings end in their first words.
		for {
			if i+8 > len(b) {
				i = NextSpecial(b, i, high)
				break
			}
			if m := specialMask(LoadBytes64(b, i), high); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			return -1, fl
		}
		switch c := b[i]; {
		case c == '"':
			return i, fl
		case c == '\\':
			fl |= strEsc
			if i+1 >= len(b) {
				return -1, fl
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return -1, fl
				}
				i += 6
			default:
				return -1, fl
			}
		case c >= utf8.RuneSelf:
			fl |= strHigh
			high = 0 // seen: the rest needs no stop for it
			i++
		default:
			return -1, fl // a control character
		}
	}
}

// What the decoder notes of an event's content (Event.text): ContentStr
// when Content is a JSON string it checked, and then whether the string
// holds escapes and bytes above 0x7f. Without ContentStr nothing is known.
const (
	ContentEsc  = strEsc
	ContentHigh = strHigh
	ContentStr  = 4
	ContentDec  = 8 // the string has escapes, decoded in Event.dec
)

// contentEnd is strEnd for a content string: the index of its closing
// quote (or -1) and what it holds (ContentStr and the bits after it).
// With a text buffer (tb), a string with escapes is decoded into it from
// its first backslash on, in the same walk, for e (ContentDec).
// Content has an escape every few dozen bytes; a table tells the two-byte
// ones. Most content is ASCII: StopMask stops at a byte above 0x7f too,
// for a word test three instructions shorter than specialMask's, and the
// first such byte (the string holds one: ContentHigh) hands the rest to
// contentEndHigh.
func contentEnd(b []byte, i int, e *Event, tb *slabText) (int, uint8) {
	fl, s := uint8(ContentStr), i
	for lim := len(b) - 8; ; {
		for ; i <= lim; i += 8 {
			if m := StopMask(LoadBytes64(b, i)); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto stop
			}
		}
		{
			e, f := strEnd(b, i, HighBits)
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
			if simpleEscape[b[i+1]] {
				i += 2
				continue
			}
			if i = uEscapeEnd(b, i); i < 0 {
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

// uEscapeEnd returns the index after the \uXXXX escape at b[i], or -1
// when the escape at b[i] is not one or is cut short.
func uEscapeEnd(b []byte, i int) int {
	if b[i+1] != 'u' || i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
		return -1
	}
	return i + 6
}

// contentEndHigh is contentEnd after a byte above 0x7f: it no longer
// stops at them.
func contentEndHigh(b []byte, s, i int, fl uint8, e *Event, tb *slabText) (int, uint8) {
	for lim := len(b) - 8; ; {
		for ; i <= lim; i += 8 {
			if m := specialMask(LoadBytes64(b, i), 0); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto stop
			}
		}
		{
			e, f := strEnd(b, i, 0)
			return e, fl | f
		}
	stop:
		if c := b[i]; c == '\\' && i+1 < len(b) {
			if tb != nil {
				o := tb.used
				return contentUnquote(b, i, o, o+copy(tb.buf[o:], b[s:i]), fl|ContentEsc, e, tb)
			}
			fl |= ContentEsc
			if simpleEscape[b[i+1]] {
				i += 2
				continue
			}
			if i = uEscapeEnd(b, i); i < 0 {
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
		if i, o = unquoteRun(b, out, i, o); i >= 0 && b[i] != '"' {
			fl |= ContentHigh // unquoteRun stopped at a byte above 0x7f
			i, o = unquoteRunHigh(b, out, i, o)
		}
	} else {
		i, o = unquoteRunHigh(b, out, i, o)
	}
	if i < 0 {
		return -1, 0
	}
	tb.used = o
	e.dec, e.decN = unsafe.Pointer(&out[o0]), uint32(o-o0)
	return i, fl | ContentDec
}

// unquoteRun decodes the string at b[i] to out[o:] up to its closing quote
// or its first byte above 0x7f, and returns the index of that byte and
// the output's end (-1: the string is malformed or not closed). The bytes
// are copied eight at a time, each word stored whole and the output index
// moved only up to its first stop, as UnquoteTo does; out has room for the
// rest of b and a word. It holds only what the loop needs, so that all of
// it stays in registers.
func unquoteRun(b, out []byte, i, o int) (int, int) {
	for lim := len(b) - 8; ; {
		for ; i <= lim; i, o = i+8, o+8 {
			w := LoadBytes64(b, i)
			StoreBytes64(out, o, w)
			if m := StopMask(w); m != 0 {
				n := bits.TrailingZeros64(m) >> 3
				i += n
				o += n
				goto stop
			}
		}
		// The line's last bytes, one at a time.
		for i < len(b) && b[i] >= ' ' && b[i] != '"' && b[i] != '\\' && b[i] < utf8.RuneSelf {
			out[o] = b[i]
			i++
			o++
		}
		if i >= len(b) {
			return -1, o
		}
	stop:
		if c := b[i]; c == '\\' {
			if i+1 < len(b) {
				if d := unescaped[b[i+1]]; d != 0 {
					out[o] = d
					i += 2
					o++
					continue
				}
			}
			if i, o = unquoteU(b, i, out, o); i < 0 {
				return -1, o
			}
		} else if c == '"' || c >= utf8.RuneSelf {
			return i, o
		} else {
			return -1, o // a control character
		}
	}
}

// unquoteRunHigh is unquoteRun without the stop at bytes above 0x7f.
func unquoteRunHigh(b, out []byte, i, o int) (int, int) {
	for lim := len(b) - 8; ; {
		for ; i <= lim; i, o = i+8, o+8 {
			w := LoadBytes64(b, i)
			StoreBytes64(out, o, w)
			if m := specialMask(w, 0); m != 0 {
				n := bits.TrailingZeros64(m) >> 3
				i += n
				o += n
				goto stop
			}
		}
		for i < len(b) && b[i] >= ' ' && b[i] != '"' && b[i] != '\\' {
			out[o] = b[i]
			i++
			o++
		}
		if i >= len(b) {
			return -1, o
		}
	stop:
		if c := b[i]; c == '\\' {
			if i+1 < len(b) {
				if d := unescaped[b[i+1]]; d != 0 {
					out[o] = d
					i += 2
					o++
					continue
				}
			}
			if i, o = unquoteU(b, i, out, o); i < 0 {
				return -1, o
			}
		} else if c == '"' {
			return i, o
		} else {
			return -1, o // a control character
		}
	}
}

// unquoteU decodes the \u escape at b[i] (and the low surrogate's after a
// high one's) to out[o:], as UnquoteTo does, and returns the indexes after
// them, or -1 when there is no \u escape there.
func unquoteU(b []byte, i int, out []byte, o int) (int, int) {
	if i+1 >= len(b) || b[i+1] != 'u' {
		return -1, o
	}
	r, ok := hex4(b, i+2)
	if !ok {
		return -1, o
	}
	i += 6
	if utf16.IsSurrogate(r) {
		if r2, ok := hex4(b, i+2); ok && i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return i + 6, o + utf8.EncodeRune(out[o:], d)
			}
		}
		r = utf8.RuneError
	}
	return i, o + utf8.EncodeRune(out[o:], r)
}

// simpleEscape holds the bytes that follow a backslash in a two-byte
// escape.
var simpleEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

func isHex(h byte) bool { return isDigit(h) || (h|0x20)-'a' < 6 }

// NextSpecial returns the index of the first byte from i on that is a
// quote, a backslash or a control character, or above 0x7f when high is
// HighBits; len(b) when there is none. Eight bytes are tested at a time
// (specialMask), and the last ones of b by a load that overlaps bytes
// already passed.
func NextSpecial(b []byte, i int, high uint64) int {
	for i+8 <= len(b) {
		if m := specialMask(LoadBytes64(b, i), high); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	if i >= len(b) {
		return len(b)
	}
	if len(b) >= 8 {
		// The bytes j..i-1 are passed: they read as 'a', so that none of
		// them is flagged or borrows from the bytes after it.
		j := len(b) - 8
		passed := uint64(1)<<(uint(i-j)*8) - 1
		w := binary.LittleEndian.Uint64(b[j:])&^passed | 0x6161616161616161&passed
		if m := specialMask(w, high); m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
		return len(b)
	}
	if len(b) >= 4 {
		// Short b (rendered names, ids): the same with four-byte words,
		// the last one overlapping.
		for {
			j := min(i, len(b)-4)
			passed := uint32(1)<<(uint(i-j)*8) - 1
			w := binary.LittleEndian.Uint32(b[j:])&^passed | 0x61616161&passed
			if m := specialMask32(w, uint32(high)); m != 0 {
				return j + bits.TrailingZeros32(m)>>3
			}
			if j+4 >= len(b) {
				return len(b)
			}
			i = j + 4
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 && high != 0 {
			return i
		}
	}
	return i
}

// specialMask32 is specialMask for four bytes.
func specialMask32(w, high uint32) uint32 {
	const ones, highs = 0x01010101, 0x80808080
	q := w ^ (ones * '"')
	bs := w ^ (ones * '\\')
	return (((q-ones)|(bs-ones)|(w-ones*0x20))&^w | w&high) & highs
}

// StopMask flags (with the byte's high bit) bytes of w among which the
// lowest is the first quote, backslash, byte below 0x20 or byte above
// 0x7f, if any: it is specialMask(w, HighBits) without the &^ w, which only
// takes back flags of bytes above 0x7f, here wanted: the three
// subtractions flag each such byte themselves (x^'"' is 0x80 or more, so
// x^'"'-1 keeps bit 7 unless x is 0xa2, and 0xa2-0x20 does). The flags
// above the lowest may be false ones, and it is 0 exactly when
// specialMask(w, HighBits) is.
func StopMask(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := w ^ (ones * '"')
	bs := w ^ (ones * '\\')
	return ((q - ones) | (bs - ones) | (w - ones*0x20)) & highs
}

// specialMask flags (with the byte's high bit) the bytes of w that are a
// quote, a backslash or below 0x20, and those above 0x7f when high is
// HighBits. The tests are the "some byte is zero" / "some byte is below
// n" bit tricks, whose "and not the byte" parts are all the byte's own
// high bit (a quote and a backslash have none), so they share one &^ w.
// A borrow can only set a flag above a byte that already matched, so the
// lowest flag is always a true one.
func specialMask(w, high uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := w ^ (ones * '"')
	bs := w ^ (ones * '\\')
	return (((q-ones)|(bs-ones)|(w-ones*0x20))&^w | w&high) & highs
}

// skipMetadata is skipValue for an event's metadata: an object of plain
// strings and booleans, spaced as recorders write it, is read by a loop
// of its own (no recursion, no strEnd); anything else by skipValue.
func skipMetadata(b []byte, i int) int {
	j := i + 1
	if b[i] != '{' || j >= len(b) {
		return skipValue(b, i, 0)
	}
	if b[j] == '}' {
		return j + 1
	}
	for b[j] == '"' {
		// The key's closing quote, `: ` and the value's first byte, as
		// one word.
		e := plainEnd(b, j+1)
		if e < 0 || e+8 > len(b) {
			break
		}
		w := LoadBytes64(b, e)
		if w>>8&0xffff != colonSpace {
			break
		}
		switch j = e + 3; byte(w >> 24) {
		case '"':
			if e = plainEnd(b, j+1); e < 0 {
				return skipValue(b, i, 0)
			}
			j = e + 1
		case 't':
			if !isLit(b, j, "true") {
				return skipValue(b, i, 0)
			}
			j += 4
		case 'f':
			if !isLit(b, j, "false") {
				return skipValue(b, i, 0)
			}
			j += 5
		default:
			return skipValue(b, i, 0)
		}
		if j+8 > len(b) {
			break
		}
		// The object's end, or `, ` and the next key's quote, as one word.
		w = LoadBytes64(b, j)
		if byte(w) == '}' {
			return j + 1
		}
		if w&0xffffff != commaSpaceQuote {
			break
		}
		j += 2
	}
	return skipValue(b, i, 0)
}

// commaSpaceQuote is `, "` as the low bytes of a little-endian word.
const commaSpaceQuote = '"'<<16 | ' '<<8 | ','

// skip moves past one JSON value, checking its syntax.
func skipValue(b []byte, i, depth int) int {
	if depth > 512 || i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		if e, _ := strEnd(b, i+1, 0); e >= 0 {
			return e + 1
		}
		return -1
	case c == '{':
		i = ws(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			e, _ := strEnd(b, i+1, 0)
			if e < 0 {
				return -1
			}
			i = ws(b, e+1)
			if i >= len(b) || b[i] != ':' {
				return -1
			}
			if i = skipValue(b, ws(b, i+1), depth+1); i < 0 {
				return -1
			}
			i = ws(b, i)
			if i < len(b) && b[i] == ',' {
				i = ws(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				return i + 1
			}
			return -1
		}
	case c == '[':
		i = ws(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1
		}
		for {
			if i = skipValue(b, i, depth+1); i < 0 {
				return -1
			}
			i = ws(b, i)
			if i < len(b) && b[i] == ',' {
				i = ws(b, i+1)
				continue
			}
			if i < len(b) && b[i] == ']' {
				return i + 1
			}
			return -1
		}
	case c == 't':
		if isLit(b, i, "true") {
			return i + 4
		}
	case c == 'f':
		if isLit(b, i, "false") {
			return i + 5
		}
	case c == 'n':
		if isLit(b, i, "null") {
			return i + 4
		}
	case c == '-' || isDigit(c):
		return skipNumber(b, i)
	}
	return -1
}

// skipNumber moves past the JSON number at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?. What follows it is the
// caller's to check (a digit after a leading 0 is then an error).
func skipNumber(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	if i >= len(b) || !isDigit(b[i]) {
		return -1
	}
	if b[i] == '0' {
		i++
	} else {
		i = digits(b, i)
	}
	if i < len(b) && b[i] == '.' {
		if i+1 >= len(b) || !isDigit(b[i+1]) {
			return -1
		}
		i = digits(b, i+1)
	}
	if i < len(b) && b[i]|0x20 == 'e' {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		i = digits(b, i)
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// unquote decodes a JSON string literal (quotes included) that strSpan or
// encoding/json already checked; ok is false on a malformed escape.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 {
		return "", false
	}
	out, ok := UnquoteTo(make([]byte, 0, len(raw)+6), raw) // UnquoteTo's room
	if !ok {
		return "", false
	}
	if !utf8.Valid(out) {
		return validUTF8(out), true
	}
	return unsafe.String(unsafe.SliceData(out), len(out)), true
}

// UnquoteTo appends the bytes of the JSON string literal raw (quotes
// included) to out, escapes decoded; ok is false on a malformed escape.
// The bytes may not be valid UTF-8.
// Content has an escape every few dozen bytes: rather than a search and a
// copy per run between them, the text is copied eight bytes at a time into
// room made once (the decoded text is never longer than raw), each word
// stored whole and the output index moved only up to its first backslash.
func UnquoteTo(out, raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	s := raw[1 : len(raw)-1]
	o := len(out)
	if cap(out)-o < len(s)+8 {
		out = append(out[:cap(out)], make([]byte, o+len(s)+8-cap(out))...)
	}
	out = out[:cap(out)]
	i, lim := 0, len(s)-8
	for {
		for ; i <= lim; i, o = i+8, o+8 {
			const ones, highs = 0x0101010101010101, 0x8080808080808080
			w := LoadBytes64(s, i)
			StoreBytes64(out, o, w)
			bs := w ^ (ones * '\\')
			// A byte's flag is set by a backslash, by a borrow from one
			// below it, or by a byte above 0x7f, which &^ bs takes back
			// (most text has none: one test).
			if m := (bs - ones) & highs; m != 0 {
				if m &^= bs; m != 0 {
					n := bits.TrailingZeros64(m) >> 3 // the lowest flag is a backslash
					i += n
					o += n
					goto escape
				}
			}
		}
		// The last bytes, one at a time.
		for i < len(s) && s[i] != '\\' {
			out[o] = s[i]
			i++
			o++
		}
		if i >= len(s) {
			return out[:o], true
		}
	escape:
		if i+1 >= len(s) {
			return nil, false
		}
		c := s[i+1]
		if d := unescaped[c]; d != 0 {
			out[o] = d
			i += 2
			o++
			continue
		}
		if c != 'u' {
			return nil, false
		}
		r, ok := hex4(s, i+2)
		if !ok {
			return nil, false
		}
		i += 6
		if utf16.IsSurrogate(r) {
			if r2, ok := hex4(s, i+2); ok && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					o += utf8.EncodeRune(out[o:], d)
					i += 6
					continue
				}
			}
			r = utf8.RuneError
		}
		o += utf8.EncodeRune(out[o:], r)
	}
}

// unescaped[c] is the byte the two-byte escape of c stands for (0: none).
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// validUTF8 replaces every byte of an invalid UTF-8 sequence with U+FFFD,
// as encoding/json does.
func validUTF8(b []byte) string {
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return string(out)
}

func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, h := range s[i : i+4] {
		switch {
		case isDigit(h):
			r = r<<4 | rune(h-'0')
		case (h|0x20)-'a' < 6:
			r = r<<4 | rune((h|0x20)-'a'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func isDigit(c byte) bool { return c-'0' < 10 }

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
