package agentleak

import (
	"encoding/binary"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/lfcli/lf/pkg/internal/jsonlex"
)

// MarshalJSON writes a result as encoding/json would from its struct tags
// (the same keys, order, omissions, numbers and string escapes), without
// reflection: `-o jsonl` writes one per trace, and the reflective encoder
// was a large share of a scan's time. HTML characters are left to the
// caller's encoder (json.Marshal escapes them, report.JSONLine does not).
// TestResultJSONMatchesReflection holds it to encoding/json.
func (r *Result) MarshalJSON() ([]byte, error) {
	return r.AppendJSON(make([]byte, 0, r.jsonSize())), nil
}

// AppendJSON appends the result's JSON (as MarshalJSON writes it) to b: a
// writer of many results can reuse one buffer.
func (r *Result) AppendJSON(b []byte) []byte {
	b = r.appendScores(b)
	b = append(b, `,"findings":`...)
	b = appendFindings(b, r.Findings)
	if len(r.BlockReasons) > 0 {
		b = append(b, `,"block_reasons":[`...)
		for i, s := range r.BlockReasons {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, s)
		}
		b = append(b, ']')
	}
	if v := r.Vault; v != nil {
		b = append(b, `,"vault":`...)
		b = v.appendJSON(b)
	}
	if c := r.Compliance; c != nil {
		b = append(b, `,"compliance":`...)
		b = c.appendJSON(b)
	}
	return append(b, '}')
}

// jsonSize is about the length of the result's JSON, so that it is written
// into one buffer without growing it: the fixed keys plus the strings.
func (r *Result) jsonSize() int {
	n := 300 + len(r.ScenarioID) + len(r.RunID) + 40*len(r.RIByChannel)
	for i := range r.Findings {
		f := &r.Findings[i]
		n += 150 + len(f.EventID) + len(f.Channel) + len(f.DataType) + len(f.Value) + len(f.Redacted) + len(f.Severity) + len(f.Detector) + len(f.Tier)
	}
	for _, s := range r.BlockReasons {
		n += 4 + len(s)
	}
	if v := r.Vault; v != nil {
		n += 120 + len(v.Key) + 30*len(v.LeaksByChannel)
	}
	if r.Compliance != nil {
		n += 300
	}
	return n
}

// appendScores opens the result's object with its scores, up to the
// channels' risks.
func (r *Result) appendScores(b []byte) []byte {
	b = append(b, `{"scenario_id":`...)
	b = appendJSONString(b, r.ScenarioID)
	b = append(b, `,"run_id":`...)
	b = appendJSONString(b, r.RunID)
	b = append(b, `,"events":`...)
	b = strconv.AppendInt(b, int64(r.Events), 10)
	b = append(b, `,"risk_index":`...)
	b = appendJSONFloat(b, r.RiskIndex)
	b = append(b, `,"privacy_score":`...)
	b = strconv.AppendInt(b, int64(r.PrivacyScore), 10)
	b = append(b, `,"verdict":`...)
	b = appendJSONString(b, r.Verdict)
	b = append(b, `,"blocked":`...)
	b = strconv.AppendBool(b, r.Blocked)
	b = append(b, `,"wsl":`...)
	b = appendJSONFloat(b, r.WSL)
	b = append(b, `,"rho_s":`...)
	b = appendJSONFloat(b, r.RhoS)
	b = append(b, `,"leaked_secrets":`...)
	b = strconv.AppendInt(b, int64(r.LeakedSecrets), 10)
	b = append(b, `,"vault_secrets":`...)
	b = strconv.AppendInt(b, int64(r.VaultSecrets), 10)
	b = append(b, `,"ri_by_channel":`...)
	return r.RIByChannel.appendJSON(b)
}

// appendFindings writes the findings as a list. A finding's first members
// (event, channel, data type) and its last ones (level to leaked) are
// mostly those of the finding before it (one event's matches of one
// detector): when their fields are equal, the bytes written for the
// previous finding are copied instead of being rendered again.
func appendFindings(b []byte, fs []Finding) []byte {
	if fs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	var head, tail [2]int // where the last rendered head and tail are in b
	for i := range fs {
		f := &fs[i]
		if i > 0 {
			b = append(b, ',')
		}
		if i > 0 && f.sameHead(&fs[i-1]) {
			b = append(b, b[head[0]:head[1]]...)
		} else {
			head[0] = len(b)
			b = f.appendHead(b)
			head[1] = len(b)
		}
		b = f.appendValues(b)
		if i > 0 && f.sameTail(&fs[i-1]) {
			b = append(b, b[tail[0]:tail[1]]...)
		} else {
			tail[0] = len(b)
			b = f.appendTail(b)
			tail[1] = len(b)
		}
	}
	return append(b, ']')
}

// appendJSON writes the vault summary as an object, its channels in key
// order as encoding/json writes a map.
func (v *VaultStat) appendJSON(b []byte) []byte {
	b = append(b, `{"key":`...)
	b = appendJSONString(b, v.Key)
	b = append(b, `,"fields":`...)
	b = strconv.AppendInt(b, int64(v.Fields), 10)
	b = append(b, `,"fields_leaked":`...)
	b = strconv.AppendInt(b, int64(v.FieldsLeaked), 10)
	b = append(b, `,"leak_share":`...)
	b = appendJSONFloat(b, v.LeakShare)
	b = append(b, `,"canaries_hit":`...)
	b = strconv.AppendInt(b, int64(v.CanariesHit), 10)
	if len(v.LeaksByChannel) > 0 {
		keys := make([]string, 0, len(v.LeaksByChannel))
		for k := range v.LeaksByChannel {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, `,"leaks_by_channel":{`...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(v.LeaksByChannel[k]), 10)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func (f *Finding) appendJSON(b []byte) []byte {
	return f.appendTail(f.appendValues(f.appendHead(b)))
}

// appendHead opens the finding's object, up to its data type.
func (f *Finding) appendHead(b []byte) []byte {
	b = append(b, `{"event_id":`...)
	b = appendJSONString(b, f.EventID)
	b = append(b, `,"channel":`...)
	b = appendJSONString(b, f.Channel)
	b = append(b, `,"data_type":`...)
	return appendJSONString(b, f.DataType)
}

// appendValues writes the finding's value (when it is shown) and redacted
// value.
func (f *Finding) appendValues(b []byte) []byte {
	if f.Value != "" {
		b = append(b, `,"value":`...)
		b = appendJSONString(b, f.Value)
	}
	if o := len(b); cap(b)-o >= len(redactedKey) {
		// The only key above 16 bytes a finding has: append would copy
		// it by a call; three stores of its words instead.
		b = b[:o+len(redactedKey)]
		jsonlex.StoreBytes64(b, o, redactedKeyWords[0])
		jsonlex.StoreBytes64(b, o+8, redactedKeyWords[1])
		jsonlex.StoreBytes64(b, o+len(redactedKey)-8, redactedKeyWords[2])
	} else {
		b = append(b, redactedKey...)
	}
	return appendJSONString(b, f.Redacted)
}

const redactedKey = `,"redacted_value":`

// redactedKeyWords are redactedKey's bytes 0-7, 8-15 and its last eight.
var redactedKeyWords = [3]uint64{jsonlex.LeWord(redactedKey[:8]), jsonlex.LeWord(redactedKey[8:16]), jsonlex.LeWord(redactedKey[len(redactedKey)-8:])}

// appendTail writes the finding's members from its level on and closes it.
func (f *Finding) appendTail(b []byte) []byte {
	b = append(b, `,"level":`...)
	b = strconv.AppendInt(b, int64(f.Level), 10)
	b = append(b, `,"severity":`...)
	b = appendJSONString(b, f.Severity)
	b = append(b, `,"confidence":`...)
	b = appendJSONFloat(b, f.Confidence)
	b = append(b, `,"detector":`...)
	b = appendJSONString(b, f.Detector)
	b = append(b, `,"tier":`...)
	b = appendJSONString(b, f.Tier)
	b = append(b, `,"leaked":`...)
	b = strconv.AppendBool(b, f.Leaked)
	return append(b, '}')
}

// sameHead reports whether appendHead writes the same bytes for f and g.
func (f *Finding) sameHead(g *Finding) bool {
	return f.EventID == g.EventID && f.Channel == g.Channel && f.DataType == g.DataType
}

// sameTail reports whether appendTail writes the same bytes for f and g
// (the confidences compared by their bits: 0 and -0 are written apart).
func (f *Finding) sameTail(g *Finding) bool {
	return f.Level == g.Level && f.Leaked == g.Leaked && math.Float64bits(f.Confidence) == math.Float64bits(g.Confidence) &&
		f.Severity == g.Severity && f.Detector == g.Detector && f.Tier == g.Tier
}

// appendJSONFloat formats a float64 as encoding/json does (finite values).
// Scores, confidences and shares are mostly exact millionths (0.75,
// 0.3333, 24): those are written from their integer count of millionths,
// the rest by strconv.
func appendJSONFloat(b []byte, f float64) []byte {
	if out, ok := appendMillionths(b, f); ok {
		return out
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...) // never produced by a scan
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendFloatF is strconv.AppendFloat(b, f, 'f', -1, 64) (ChannelRisks
// writes its risks so) with appendJSONFloat's path for exact millionths,
// whose output is the same.
func appendFloatF(b []byte, f float64) []byte {
	if out, ok := appendMillionths(b, f); ok {
		return out
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

// appendMillionths writes f when it is the double nearest to k/1e6 for an
// integer k, and 0 < |f| < 1e9, as k/1e6 in decimal without trailing zeros;
// ok is false otherwise. That is strconv's shortest form: below 2^33 two
// doubles are less than 1e-6 apart, so no other decimal with six or fewer
// fraction digits (in particular no shorter one) reads back as f. The test
// float64(k)/1e6 == f is exact: both operands are exact doubles and the
// division rounds as parsing the decimal does.
func appendMillionths(b []byte, f float64) ([]byte, bool) {
	if !(f > -1e9 && f < 1e9) || f == 0 { // also NaN; zero keeps its sign through strconv
		return b, false
	}
	m := f * 1e6
	var k int64
	if m >= 0 {
		k = int64(m + 0.5)
	} else {
		k = -int64(0.5 - m)
	}
	if float64(k)/1e6 != f {
		return b, false
	}
	if k < 0 {
		b = append(b, '-')
		k = -k
	}
	if whole := k / 1e6; whole < 10 {
		b = append(b, byte('0'+whole))
	} else {
		b = strconv.AppendUint(b, uint64(whole), 10)
	}
	frac := k % 1e6
	if frac == 0 {
		return b, true
	}
	hi, mid, lo := frac/1e4, frac/100%100, frac%100
	// The point and six digits as one little-endian word; the trailing
	// '0' bytes are those above the highest byte that is not '0' (frac is
	// not 0: a digit after the point stays).
	w := '.' | uint64(twoDigits[2*hi])<<8 | uint64(twoDigits[2*hi+1])<<16 | uint64(twoDigits[2*mid])<<24 |
		uint64(twoDigits[2*mid+1])<<32 | uint64(twoDigits[2*lo])<<40 | uint64(twoDigits[2*lo+1])<<48
	n := (bits.Len64(w^0x30303030303030) + 7) >> 3
	if o := len(b); cap(b)-o >= 8 {
		b = b[:o+8]
		jsonlex.StoreBytes64(b, o, w)
		return b[:o+n], true
	}
	var d [8]byte
	binary.LittleEndian.PutUint64(d[:], w)
	return append(b, d[:n]...), true
}

// twoDigits holds 00 to 99.
const twoDigits = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does, HTML characters left as
// they are: control characters escaped (\b \f \n \r \t or \u00XX), invalid
// UTF-8 as \ufffd, U+2028 and U+2029 escaped. Runs of bytes that need none
// of that are found eight bytes at a time (jsonlex.NextSpecial, stopping at every
// non-ASCII byte) and copied whole.
func appendJSONString(b []byte, s string) []byte {
	n, o := len(s), len(b)
	if n >= 4 && n <= 16 && cap(b)-o >= n+2 {
		// Names, ids, tiers: two loads (overlapping when shorter than
		// their sum), one test, two stores, no call.
		p := unsafe.Slice(unsafe.StringData(s), n)
		if n >= 8 {
			w0, w1 := jsonlex.LoadBytes64(p, 0), jsonlex.LoadBytes64(p, n-8)
			if jsonlex.StopMask(w0)|jsonlex.StopMask(w1) == 0 {
				b = b[:o+n+2]
				// The quotes go in the words: the opening one below the
				// first seven bytes, the closing one above the last seven
				// (the middle word only when those two leave a gap).
				jsonlex.StoreBytes64(b, o, w0<<8|'"')
				if n > 14 {
					jsonlex.StoreBytes64(b, o+8, jsonlex.LoadBytes64(p, 7))
				}
				jsonlex.StoreBytes64(b, o+n-6, w1>>8|'"'<<56)
				return b
			}
		} else {
			w0, w1 := jsonlex.LoadBytes32(p, 0), jsonlex.LoadBytes32(p, n-4)
			if jsonlex.StopMask(uint64(w0)|uint64(w1)<<32) == 0 {
				b = b[:o+n+2]
				b[o] = '"'
				jsonlex.StoreBytes32(b, o+1, w0)
				jsonlex.StoreBytes32(b, o+n-3, w1)
				b[o+n+1] = '"'
				return b
			}
		}
	}
	if n > 16 && n <= 32 && cap(b)-o >= n+2 {
		// Redacted values, longer names: four loads, the last two placed
		// to end inside the string.
		p := unsafe.Slice(unsafe.StringData(s), n)
		k := min(16, n-8)
		w0, w1, w2, w3 := jsonlex.LoadBytes64(p, 0), jsonlex.LoadBytes64(p, 8), jsonlex.LoadBytes64(p, k), jsonlex.LoadBytes64(p, n-8)
		if jsonlex.StopMask(w0)|jsonlex.StopMask(w1)|jsonlex.StopMask(w2)|jsonlex.StopMask(w3) == 0 {
			b = b[:o+n+2]
			b[o] = '"'
			jsonlex.StoreBytes64(b, o+1, w0)
			jsonlex.StoreBytes64(b, o+9, w1)
			jsonlex.StoreBytes64(b, o+1+k, w2)
			jsonlex.StoreBytes64(b, o+n-7, w3)
			b[o+n+1] = '"'
			return b
		}
	}
	if plainASCII(s) {
		// Most strings (ids, channels, names, redacted values) need no
		// escape: one test of all their words, one copy.
		if cap(b)-o < n+2 {
			b = append(b, make([]byte, n+2)...)[:o]
		}
		b = b[:o+n+2]
		b[o] = '"'
		copy(b[o+1:], s)
		b[o+n+1] = '"'
		return b
	}
	return appendJSONStringEsc(b, s)
}

// plainASCII reports whether s holds only ASCII bytes that JSON writes as
// they are (no quote, backslash or control character). The words are
// tested whole; the last one may overlap bytes already tested, which only
// a "yes or no" question allows, and jsonlex.StopMask flags none of w when none
// of its bytes is special or above 0x7f (no byte borrows then).
func plainASCII(s string) bool {
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	n := len(b)
	if n >= 8 {
		for i := 0; i+8 < n; i += 8 {
			if jsonlex.StopMask(jsonlex.LoadBytes64(b, i)) != 0 {
				return false
			}
		}
		return jsonlex.StopMask(jsonlex.LoadBytes64(b, n-8)) == 0
	}
	if n >= 4 {
		w := uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[n-4:]))<<32
		return jsonlex.StopMask(w) == 0
	}
	if n == 0 {
		return true
	}
	// 'a' in the bytes s has not.
	w := uint64(b[0]) | uint64(b[n/2])<<8 | uint64(b[n-1])<<16 | 0x6161616161<<24
	return jsonlex.StopMask(w) == 0
}

// appendJSONStringEsc is appendJSONString for a string that may need
// escapes.
func appendJSONStringEsc(b []byte, s string) []byte {
	b = append(b, '"')
	bs := unsafe.Slice(unsafe.StringData(s), len(s))
	start, i := 0, 0
	for {
		if i = jsonlex.NextSpecial(bs, i, jsonlex.HighBits); i >= len(bs) {
			break
		}
		c := bs[i]
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
