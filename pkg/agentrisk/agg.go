package agentrisk

import (
	"encoding/binary"
	"errors"
	"path"
	"sort"
	"strings"
)

// agg is everything recalculation needs about one agent, folded at ingest:
// per hour and tool the calls, flagged high-impact calls and denials; the
// injection scores (quantised to 1/1000) per hour; per session and tool the
// calls and high-impact calls; per tool the resource patterns. Hours are Unix
// hours (seconds / 3600).
type agg struct {
	tools    []string // tool dictionary; index 0 is "" (requests without a tool)
	toolIdx  map[string]uint16
	hours    []hourTool
	inj      []injBin
	sessions []string // session dictionary
	sessIdx  map[string]uint32
	sess     []sessTool
	patterns []patCount
}

type hourTool struct {
	hour              int32
	tool              uint16
	calls, hi, denied uint32
}

type injBin struct {
	hour  int32
	score uint16 // 0..1000
	count uint32
}

type sessTool struct {
	sess        uint32
	tool        uint16
	first, last int32 // hours
	calls, hi   uint32
}

type patCount struct {
	tool    uint16
	pattern string
	count   uint32
}

// maxPatternsPerTool bounds the resource patterns kept per tool.
const maxPatternsPerTool = 32

const aggVersion = 1

func newAgg() *agg {
	a := &agg{toolIdx: map[string]uint16{}, sessIdx: map[string]uint32{}}
	a.tool("")
	return a
}

func (a *agg) tool(name string) uint16 {
	if i, ok := a.toolIdx[name]; ok {
		return i
	}
	if len(a.tools) >= 65535 {
		name = "(other)"
		if i, ok := a.toolIdx[name]; ok {
			return i
		}
	}
	i := uint16(len(a.tools))
	a.tools = append(a.tools, name)
	a.toolIdx[name] = i
	return i
}

func (a *agg) session(name string) uint32 {
	if i, ok := a.sessIdx[name]; ok {
		return i
	}
	i := uint32(len(a.sessions))
	a.sessions = append(a.sessions, name)
	a.sessIdx[name] = i
	return i
}

// merger adds events to an agg through lookup maps, then sorts once.
type merger struct {
	a     *agg
	hours map[[2]int64]int // (hour, tool) -> index in a.hours
	inj   map[[2]int64]int
	sess  map[[2]int64]int
	pats  map[patKey]int
}

type patKey struct {
	tool uint16
	p    string
}

func (a *agg) merger() *merger {
	m := &merger{
		a:     a,
		hours: make(map[[2]int64]int, len(a.hours)),
		inj:   make(map[[2]int64]int, len(a.inj)),
		sess:  make(map[[2]int64]int, len(a.sess)),
		pats:  make(map[patKey]int, len(a.patterns)),
	}
	for i, h := range a.hours {
		m.hours[[2]int64{int64(h.hour), int64(h.tool)}] = i
	}
	for i, b := range a.inj {
		m.inj[[2]int64{int64(b.hour), int64(b.score)}] = i
	}
	for i, s := range a.sess {
		m.sess[[2]int64{int64(s.sess), int64(s.tool)}] = i
	}
	for i, p := range a.patterns {
		m.pats[patKey{p.tool, p.pattern}] = i
	}
	return m
}

func (m *merger) add(ev *Event) {
	hour := int32(ev.Timestamp.Unix() / 3600)
	if ev.Timestamp.Unix() < 0 {
		hour = int32((ev.Timestamp.Unix() - 3599) / 3600)
	}
	var q uint16
	inj := false
	if s := ev.InjectionScore; s != nil && *s > 0 {
		q, inj = uint16(*s*1000+0.5), true
	}
	pattern := ""
	if ev.Tool != "" && ev.Resource != "" {
		pattern = resourcePattern(ev.Tool, ev.Resource)
	}
	m.addParts(hour, ev.Tool, ev.SessionID, pattern, ev.HighImpact, ev.Decision == "deny", inj, q)
}

// addParts folds one event given by its parts: its hour, tool, session id
// ("" for none), resource pattern ("" for none), whether it was high
// impact or denied, and its quantised injection score when inj.
func (m *merger) addParts(hour int32, tool, sessionID, pattern string, highImpact, deny, inj bool, q uint16) {
	a := m.a
	t := a.tool(tool)
	var hi, denied uint32
	if highImpact {
		hi = 1
	}
	if deny {
		denied = 1
	}
	k := [2]int64{int64(hour), int64(t)}
	if i, ok := m.hours[k]; ok {
		h := &a.hours[i]
		h.calls++
		h.hi += hi
		h.denied += denied
	} else {
		m.hours[k] = len(a.hours)
		a.hours = append(a.hours, hourTool{hour: hour, tool: t, calls: 1, hi: hi, denied: denied})
	}
	if inj {
		k := [2]int64{int64(hour), int64(q)}
		if i, ok := m.inj[k]; ok {
			a.inj[i].count++
		} else {
			m.inj[k] = len(a.inj)
			a.inj = append(a.inj, injBin{hour: hour, score: q, count: 1})
		}
	}
	sid := sessionID
	if sid == "" {
		// Without a session id each hour counts as one session, so that
		// agency does not pile up over days in one pseudo-session.
		sid = "\x00h" + itoa(int64(hour))
	}
	si := a.session(sid)
	sk := [2]int64{int64(si), int64(t)}
	if i, ok := m.sess[sk]; ok {
		s := &a.sess[i]
		s.calls++
		s.hi += hi
		if hour < s.first {
			s.first = hour
		}
		if hour > s.last {
			s.last = hour
		}
	} else {
		m.sess[sk] = len(a.sess)
		a.sess = append(a.sess, sessTool{sess: si, tool: t, first: hour, last: hour, calls: 1, hi: hi})
	}
	if pattern != "" {
		pk := patKey{t, pattern}
		if i, ok := m.pats[pk]; ok {
			a.patterns[i].count++
		} else if m.patternCount(t) < maxPatternsPerTool {
			m.pats[pk] = len(a.patterns)
			a.patterns = append(a.patterns, patCount{tool: t, pattern: pk.p, count: 1})
		}
	}
}

func (m *merger) patternCount(t uint16) int {
	n := 0
	for _, p := range m.a.patterns {
		if p.tool == t {
			n++
		}
	}
	return n
}

// finish sorts the slices so that the encoding is canonical (the same events
// give the same bytes whatever their order) and scans can stop early.
func (m *merger) finish() {
	a := m.a
	sort.Slice(a.hours, func(i, j int) bool {
		if a.hours[i].hour != a.hours[j].hour {
			return a.hours[i].hour < a.hours[j].hour
		}
		return a.tools[a.hours[i].tool] < a.tools[a.hours[j].tool]
	})
	sort.Slice(a.inj, func(i, j int) bool {
		if a.inj[i].hour != a.inj[j].hour {
			return a.inj[i].hour < a.inj[j].hour
		}
		return a.inj[i].score < a.inj[j].score
	})
	sort.Slice(a.sess, func(i, j int) bool {
		si, sj := a.sessions[a.sess[i].sess], a.sessions[a.sess[j].sess]
		if si != sj {
			return si < sj
		}
		return a.tools[a.sess[i].tool] < a.tools[a.sess[j].tool]
	})
	sort.Slice(a.patterns, func(i, j int) bool {
		ti, tj := a.tools[a.patterns[i].tool], a.tools[a.patterns[j].tool]
		if ti != tj {
			return ti < tj
		}
		return a.patterns[i].pattern < a.patterns[j].pattern
	})
}

// resourcePattern generalises a resource into a pattern such as
// read_file:/docs/*: the parent folder of a path, the scheme and host of a URL.
func resourcePattern(tool, res string) string {
	if i := strings.Index(res, "://"); i > 0 {
		rest := res[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			rest = rest[:j]
		}
		return tool + ":" + res[:i+3] + rest + "/*"
	}
	if strings.Contains(res, "/") {
		dir := path.Dir(res)
		if dir == "/" || dir == "." {
			return tool + ":" + dir + "*"
		}
		return tool + ":" + dir + "/*"
	}
	return tool + ":" + res
}

func itoa(n int64) string {
	var b [24]byte
	return string(binary.AppendVarint(b[:0], n))
}

// encode writes the agg as varints: version, tools, sessions, hours
// (hour delta-coded), injection bins, session tools, patterns.
func (a *agg) encode() []byte {
	b := make([]byte, 0, 16+len(a.hours)*8+len(a.sess)*10+len(a.inj)*6)
	b = binary.AppendUvarint(b, aggVersion)
	b = appendStrings(b, a.tools)
	b = appendStrings(b, a.sessions)
	b = binary.AppendUvarint(b, uint64(len(a.hours)))
	prev := int32(0)
	for _, h := range a.hours {
		b = binary.AppendVarint(b, int64(h.hour-prev))
		prev = h.hour
		b = binary.AppendUvarint(b, uint64(h.tool))
		b = binary.AppendUvarint(b, uint64(h.calls))
		b = binary.AppendUvarint(b, uint64(h.hi))
		b = binary.AppendUvarint(b, uint64(h.denied))
	}
	b = binary.AppendUvarint(b, uint64(len(a.inj)))
	prev = 0
	for _, x := range a.inj {
		b = binary.AppendVarint(b, int64(x.hour-prev))
		prev = x.hour
		b = binary.AppendUvarint(b, uint64(x.score))
		b = binary.AppendUvarint(b, uint64(x.count))
	}
	b = binary.AppendUvarint(b, uint64(len(a.sess)))
	for _, s := range a.sess {
		b = binary.AppendUvarint(b, uint64(s.sess))
		b = binary.AppendUvarint(b, uint64(s.tool))
		b = binary.AppendVarint(b, int64(s.first))
		b = binary.AppendVarint(b, int64(s.last-s.first))
		b = binary.AppendUvarint(b, uint64(s.calls))
		b = binary.AppendUvarint(b, uint64(s.hi))
	}
	b = binary.AppendUvarint(b, uint64(len(a.patterns)))
	for _, p := range a.patterns {
		b = binary.AppendUvarint(b, uint64(p.tool))
		b = appendString(b, p.pattern)
		b = binary.AppendUvarint(b, uint64(p.count))
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

var errCorrupt = errors.New("agentrisk: corrupt agent aggregate in the store")

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) u() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) i() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) s() string {
	n := d.u()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errCorrupt
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) count(per int) int {
	n := d.u()
	if n > uint64(len(d.b)/per+1) {
		d.err = errCorrupt
		return 0
	}
	return int(n)
}

// decodeAgg reads an encoded agg. withMaps builds the lookup maps needed to
// merge more events into it (ingest); scoring does without them.
func decodeAgg(b []byte, withMaps bool) (*agg, error) {
	d := &decoder{b: b}
	if d.u() != aggVersion {
		return nil, errCorrupt
	}
	a := &agg{}
	a.tools = make([]string, d.count(1))
	for i := range a.tools {
		a.tools[i] = d.s()
	}
	a.sessions = make([]string, d.count(1))
	for i := range a.sessions {
		a.sessions[i] = d.s()
	}
	a.hours = make([]hourTool, d.count(5))
	prev := int64(0)
	for i := range a.hours {
		prev += d.i()
		a.hours[i] = hourTool{hour: int32(prev), tool: uint16(d.u()), calls: uint32(d.u()), hi: uint32(d.u()), denied: uint32(d.u())}
	}
	a.inj = make([]injBin, d.count(3))
	prev = 0
	for i := range a.inj {
		prev += d.i()
		a.inj[i] = injBin{hour: int32(prev), score: uint16(d.u()), count: uint32(d.u())}
	}
	a.sess = make([]sessTool, d.count(6))
	for i := range a.sess {
		s := sessTool{sess: uint32(d.u()), tool: uint16(d.u())}
		s.first = int32(d.i())
		s.last = s.first + int32(d.i())
		s.calls, s.hi = uint32(d.u()), uint32(d.u())
		a.sess[i] = s
	}
	a.patterns = make([]patCount, d.count(3))
	for i := range a.patterns {
		a.patterns[i] = patCount{tool: uint16(d.u()), pattern: d.s(), count: uint32(d.u())}
	}
	if d.err != nil {
		return nil, d.err
	}
	for _, h := range a.hours {
		if int(h.tool) >= len(a.tools) {
			return nil, errCorrupt
		}
	}
	for _, s := range a.sess {
		if int(s.tool) >= len(a.tools) || int(s.sess) >= len(a.sessions) {
			return nil, errCorrupt
		}
	}
	for _, p := range a.patterns {
		if int(p.tool) >= len(a.tools) {
			return nil, errCorrupt
		}
	}
	if withMaps {
		a.toolIdx = make(map[string]uint16, len(a.tools))
		for i, t := range a.tools {
			a.toolIdx[t] = uint16(i)
		}
		a.sessIdx = make(map[string]uint32, len(a.sessions))
		for i, s := range a.sessions {
			a.sessIdx[s] = uint32(i)
		}
	}
	return a, nil
}
