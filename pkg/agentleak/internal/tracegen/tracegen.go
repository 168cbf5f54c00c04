// Package tracegen generates adversarial AgentLeak trace documents for the
// decoder's differential tests: valid traces in every shape a recorder
// writes, strings full of escapes and broken UTF-8. Tests only.
package tracegen

import (
	"math/rand"
	"strings"
)

// Bytes are single bytes a test writes over a generated document.
var Bytes = []byte("\"\\{}[]:, \t\n\x00\x1f\x7f\x80\xff\xc3nu0-.eE")

// Pieces are what generated strings are made of, JSON-escaped or not.
var Pieces = []string{
	"a", "plain text ", "abcdefghijklmnop", `\n`, `\"`, `\\`, `\/`, `\b`, `\f`, `\r`, `\t`,
	`\u00e9`, `\u2028`, `\u0000`, `\u001f`, `\ud83d\ude00`, `\ud800`, `\udc00`, `\ud800\u0041`, `\udc00\ud800`, `\uD834\uDD1E`, `\uFFFF`,
	"é", "中文", "\U0001F600", "\u2028", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\x7f", "<>&'",
}

func genString(rng *rand.Rand) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for k := rng.Intn(8); k > 0; k-- {
		if rng.Intn(200) == 0 {
			sb.WriteByte(byte(rng.Intn(0x20))) // raw control: invalid JSON
		} else {
			sb.WriteString(Pieces[rng.Intn(len(Pieces))])
		}
	}
	if rng.Intn(3) == 0 {
		sb.WriteString(strings.Repeat("long text without specials ", rng.Intn(20)))
	}
	sb.WriteByte('"')
	return sb.String()
}

func genValue(rng *rand.Rand, depth int) string {
	switch k := rng.Intn(12); {
	case k < 4 || depth > 3:
		return genString(rng)
	case k == 4:
		return "null"
	case k == 5:
		return []string{"true", "false", "0", "-1", "12.5e-3", "1E+9", "-0.0", "3"}[rng.Intn(8)]
	case k < 9:
		var parts []string
		for n := rng.Intn(4); n > 0; n-- {
			parts = append(parts, genKey(rng, nil)+": "+genValue(rng, depth+1))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	default:
		var parts []string
		for n := rng.Intn(4); n > 0; n-- {
			parts = append(parts, genValue(rng, depth+1))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
}

// genKey picks a key: mostly one of known, else a case variant, an
// escaped or non-ASCII spelling, a near miss or any string.
func genKey(rng *rand.Rand, known []string) string {
	if len(known) > 0 && rng.Intn(10) < 8 {
		return `"` + known[rng.Intn(len(known))] + `"`
	}
	switch rng.Intn(6) {
	case 0:
		if len(known) > 0 {
			return `"` + strings.ToUpper(known[rng.Intn(len(known))][:1]) + known[rng.Intn(len(known))][1:] + `"`
		}
	case 1:
		return []string{`"\u0063hannel"`, "\"\u017fource\"", "\"con\u212aent\"", "\"\u212a\"", `"s\u006furce"`, "\"ev\xc3\xa9nt\""}[rng.Intn(6)]
	case 2:
		return []string{`"channels"`, `"event_idx"`, `"sourc"`, `"targe"`, `"content_type"`, `"metadata"`, `"timestamp"`, `"eventsx"`, `"run_i"`, `"sourcex"`, `"targetx"`, `"timestampx"`, `"timestam"`, `"metadata_"`, `"contents"`, `"channe"`}[rng.Intn(16)]
	}
	return genString(rng)
}

var (
	eventKeys = []string{"event_id", "channel", "source", "target", "content", "metadata", "timestamp"}
	traceKeys = []string{"run_id", "agent_name", "scenario_id", "timestamp", "events"}
)

func genSpace(rng *rand.Rand) string {
	return []string{"", "", "", " ", " ", "\t", "\n ", "\r\n"}[rng.Intn(8)]
}

func genEvent(rng *rand.Rand) string {
	if rng.Intn(40) == 0 {
		return genValue(rng, 2)
	}
	if rng.Intn(2) == 0 {
		return genRecorderEvent(rng)
	}
	var parts []string
	for n := rng.Intn(8); n > 0; n-- {
		key := genKey(rng, eventKeys)
		val := genValue(rng, 1)
		if k := strings.Trim(key, `"`); k == "event_id" || k == "channel" || k == "source" || k == "target" {
			if rng.Intn(6) > 0 {
				val = genString(rng)
			} else if rng.Intn(2) == 0 {
				val = "null"
			}
		}
		parts = append(parts, key+genSpace(rng)+":"+genSpace(rng)+val)
	}
	return "{" + genSpace(rng) + strings.Join(parts, ","+genSpace(rng)) + genSpace(rng) + "}"
}

// genRecorderEvent writes an event as recorders do (the keys in their
// order, ", " and ": " between), with some keys replaced by near misses
// that share their first letters or differ in case, some left out, and
// some separators spaced otherwise: the decoder's guess of the next member
// must not take any of them for the key it expects.
func genRecorderEvent(rng *rand.Rand) string {
	near := map[string][]string{
		"event_id":  {"event_idx", "event_i", "Event_id", "event_id "},
		"channel":   {"channels", "channe", "channelx", "Channel", "chann\\u0065l"},
		"source":    {"sourcex", "sourc", "sources", "SOURCE"},
		"target":    {"targetx", "targe", "targets", "Target"},
		"content":   {"contents", "conten", "content_type", "cOntent"},
		"metadata":  {"metadata_", "metadat", "metadatas"},
		"timestamp": {"timestampx", "timestam", "timestamps", "Timestamp"},
	}
	var parts []string
	for _, k := range eventKeys {
		if rng.Intn(8) == 0 {
			continue
		}
		key := k
		if rng.Intn(6) == 0 {
			key = near[k][rng.Intn(len(near[k]))]
		}
		colon := ": "
		if rng.Intn(8) == 0 {
			colon = []string{":", " : ", ":  ", ": \t", ":\n"}[rng.Intn(5)]
		}
		val := genString(rng)
		switch {
		case k == "metadata" && rng.Intn(2) == 0:
			val = genValue(rng, 1)
		case k == "metadata":
			val = genMetadata(rng)
		case rng.Intn(10) == 0:
			val = []string{"null", "1", "{}", "[]", "true"}[rng.Intn(5)]
		}
		parts = append(parts, `"`+key+`"`+colon+val)
	}
	sep := ", "
	if rng.Intn(6) == 0 {
		sep = []string{",", " , ", ",\n", ",  "}[rng.Intn(4)]
	}
	return "{" + strings.Join(parts, sep) + "}"
}

// genMetadata writes a metadata object as recorders do (plain strings and
// booleans), often with one byte changed, cut or added where it breaks or
// changes the object.
func genMetadata(rng *rand.Rand) string {
	var parts []string
	for n := rng.Intn(4); n > 0; n-- {
		val := []string{`"send_money"`, "true", "false", `"a b"`, `""`, "null", "1"}[rng.Intn(7)]
		parts = append(parts, `"`+[]string{"tool_name", "exfiltration", "k", ""}[rng.Intn(4)]+`": `+val)
	}
	m := []byte("{" + strings.Join(parts, ", ") + "}")
	switch k := rng.Intn(len(m)); rng.Intn(4) {
	case 0:
		m[k] = Bytes[rng.Intn(len(Bytes))]
	case 1:
		m = append(m[:k:k], m[k+1:]...)
	case 2:
		m = append(m[:k:k], append([]byte{Bytes[rng.Intn(len(Bytes))]}, m[k:]...)...)
	}
	return string(m)
}

// Trace is one generated trace document: recorder-shaped events, unknown
// keys, odd spacing and adversarial strings.
func Trace(rng *rand.Rand) []byte {
	var parts []string
	for n := rng.Intn(7); n > 0; n-- {
		key := genKey(rng, traceKeys)
		var val string
		switch strings.Trim(key, `"`) {
		case "events":
			switch rng.Intn(10) {
			case 0:
				val = "null"
			case 1:
				val = genValue(rng, 1)
			default:
				var evs []string
				for k := rng.Intn(6); k > 0; k-- {
					evs = append(evs, genEvent(rng))
				}
				val = "[" + genSpace(rng) + strings.Join(evs, ","+genSpace(rng)) + "]"
			}
		default:
			if rng.Intn(8) == 0 {
				val = genValue(rng, 1)
			} else if rng.Intn(8) == 0 {
				val = "null"
			} else {
				val = genString(rng)
			}
		}
		parts = append(parts, key+genSpace(rng)+":"+genSpace(rng)+val)
	}
	return []byte(genSpace(rng) + "{" + strings.Join(parts, ","+genSpace(rng)) + "}" + genSpace(rng))
}
