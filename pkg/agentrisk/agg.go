package agentrisk

import (
	"cmp"
	"encoding/binary"
	"errors"
	"path"
	"slices"
	"strings"
	"unsafe"
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
	canon    bool // the slices are in canonical order (see canonical)
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
	a := &agg{toolIdx: map[string]uint16{}}
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
	if a.sessIdx == nil {
		a.indexSessions()
	}
	if i, ok := a.sessIdx[name]; ok {
		return i
	}
	return a.addSession(name)
}

// addSession appends a session that is not in the dictionary yet.
func (a *agg) addSession(name string) uint32 {
	i := uint32(len(a.sessions))
	a.sessions = append(a.sessions, name)
	if a.sessIdx != nil {
		a.sessIdx[name] = i
	}
	return i
}

// indexSessions builds the session lookup map, which only merging by name
// needs (ingest maps its own session ids instead, see folder).
func (a *agg) indexSessions() {
	a.sessIdx = make(map[string]uint32, len(a.sessions))
	for i, s := range a.sessions {
		a.sessIdx[s] = uint32(i)
	}
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
	a.canon = false // until finish
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

// finish sorts the slices into their canonical order.
func (m *merger) finish() { m.a.canonical() }

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
func (a *agg) encode() []byte { return a.encodeTo(nil) }

// encodeTo is encode appending to b[:0] (nil: a new buffer).
func (a *agg) encodeTo(b []byte) []byte {
	b = slices.Grow(b[:0], 16+len(a.hours)*8+len(a.sess)*10+len(a.inj)*6)
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
	b     []byte
	err   error
	alias bool // strings alias b instead of copying it
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
	var s string
	switch {
	case d.alias && n > 0:
		s = unsafe.String(&d.b[0], int(n))
	default:
		s = string(d.b[:n])
	}
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
	return decodeWith(&decoder{b: b}, withMaps)
}

// decodeAggAliased is decodeAgg with maps whose strings alias b (no copy
// of each tool, session and pattern name): b must not change while the agg
// or a string of it is in use. Ingest decodes each stored aggregate it
// merges this way: the blob is its own copy of what the store returned,
// never written to, and dropped with the agg once the merge is encoded.
func decodeAggAliased(b []byte) (*agg, error) {
	return decodeWith(&decoder{b: b, alias: true}, true)
}

func decodeWith(d *decoder, withMaps bool) (*agg, error) {
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
		a.indexSessions()
	}
	return a, nil
}

// canonical sorts the agg's slices so that the encoding is canonical (the
// same events give the same bytes whatever their order) and scans can stop
// early: hours and injection bins by hour, sessions by session and tool
// name, patterns by tool name and pattern. Names are compared once, to rank
// the dictionaries; the sorts then compare integers.
func (a *agg) canonical() { a.canonicalFrom(0, 0, 0, 0) }

// canonicalFrom is canonical for an agg that was in canonical order (canon)
// before entries were appended to its slices from the given lengths on: a
// slice that did not grow is left as it is (the names of the entries
// appended to the dictionaries do not change the order of the others').
// Without canon every slice is sorted.
func (a *agg) canonicalFrom(hours, inj, sess, pats int) {
	if !a.canon {
		hours, inj, sess, pats = 0, 0, 0, 0
	}
	var tr, sr []int32
	if len(a.hours) > hours || len(a.sess) > sess || len(a.patterns) > pats {
		tr = nameRanks(a.tools)
	}
	if len(a.hours) > hours {
		slices.SortFunc(a.hours, func(x, y hourTool) int {
			if x.hour != y.hour {
				return cmp.Compare(x.hour, y.hour)
			}
			return cmp.Compare(tr[x.tool], tr[y.tool])
		})
	}
	if len(a.inj) > inj {
		slices.SortFunc(a.inj, func(x, y injBin) int {
			if x.hour != y.hour {
				return cmp.Compare(x.hour, y.hour)
			}
			return cmp.Compare(x.score, y.score)
		})
	}
	if len(a.sess) > sess {
		sr = nameRanks(a.sessions)
		slices.SortFunc(a.sess, func(x, y sessTool) int {
			if x.sess != y.sess {
				return cmp.Compare(sr[x.sess], sr[y.sess])
			}
			return cmp.Compare(tr[x.tool], tr[y.tool])
		})
	}
	if len(a.patterns) > pats {
		slices.SortFunc(a.patterns, func(x, y patCount) int {
			if x.tool != y.tool {
				return cmp.Compare(tr[x.tool], tr[y.tool])
			}
			return strings.Compare(x.pattern, y.pattern)
		})
	}
	a.canon = true
}

// nameRanks gives each name its rank in sorted order.
func nameRanks(names []string) []int32 {
	order := make([]int32, len(names))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int { return strings.Compare(names[i], names[j]) })
	rank := make([]int32, len(names))
	for r, i := range order {
		rank[i] = int32(r)
	}
	return rank
}

// folder merges an agent's ingest records into its agg, as merger.addParts
// would event by event, without hashing a string per event: records name
// tools, sessions and resource patterns by the ingester's dictionary ids,
// which the folder maps to the agg's own indexes through arrays stamped per
// agent, and it finds the agg's entries through integer-keyed tables. One
// folder serves every agent of an ingest.
type folder struct {
	stamp           uint32
	tool, sess, pat idMap
	hours, inj, st  slotTable
	perTool         []int // patterns per tool of the agg
	patKeys         map[patKey]int
	scratch         agg // the agg of a new agent, reused
}

// newAgg is an empty agg for a new agent, valid until the next call: its
// slices are reused from agent to agent.
func (f *folder) newAgg() *agg {
	a := &f.scratch
	if a.toolIdx == nil {
		a.toolIdx = map[string]uint16{}
	}
	clear(a.toolIdx)
	a.tools, a.sessions, a.sessIdx, a.canon = a.tools[:0], a.sessions[:0], nil, false
	a.hours, a.inj, a.sess, a.patterns = a.hours[:0], a.inj[:0], a.sess[:0], a.patterns[:0]
	a.tool("")
	return a
}

// recordNames are the ingester's dictionaries that records index.
type recordNames struct{ tools, sessions, patterns []string }

// fold merges recs into a and sorts a into its canonical order.
func (f *folder) fold(a *agg, recs []record, names *recordNames) {
	nh, ni, ns, np := len(a.hours), len(a.inj), len(a.sess), len(a.patterns)
	f.begin(a, len(recs))
	for i := range recs {
		r := &recs[i]
		t := f.localTool(a, r.tool, names.tools)
		hi, denied := uint32(r.flags&recHighImpact), uint32(r.flags&recDeny)>>1
		hk := uint64(uint32(r.hour))<<32 | uint64(t)
		if j, ok := f.hours.index(hk, int32(len(a.hours))); ok {
			h := &a.hours[j]
			h.calls++
			h.hi += hi
			h.denied += denied
		} else {
			a.hours = append(a.hours, hourTool{hour: r.hour, tool: t, calls: 1, hi: hi, denied: denied})
		}
		if r.flags&recInj != 0 {
			ik := uint64(uint32(r.hour))<<32 | uint64(r.q)
			if j, ok := f.inj.index(ik, int32(len(a.inj))); ok {
				a.inj[j].count++
			} else {
				a.inj = append(a.inj, injBin{hour: r.hour, score: r.q, count: 1})
			}
		}
		f.foldSession(a, r, t, hi, names.sessions)
		if r.pat != noPattern {
			f.foldPattern(a, r.pat, t, names.patterns)
		}
	}
	a.canonicalFrom(nh, ni, ns, np)
}

// begin prepares the folder for a's merge: a new stamp, and the tables
// filled with a's stored entries.
func (f *folder) begin(a *agg, recs int) {
	if f.stamp++; f.stamp == 0 {
		f.tool, f.sess, f.pat = idMap{}, idMap{}, idMap{}
		f.stamp = 1
	}
	// Each record adds at most one entry to each table.
	recs = min(recs, 1<<12)
	f.hours.reset(len(a.hours) + recs)
	for i, h := range a.hours {
		f.hours.index(uint64(uint32(h.hour))<<32|uint64(h.tool), int32(i))
	}
	f.inj.reset(len(a.inj) + recs/4)
	for i, x := range a.inj {
		f.inj.index(uint64(uint32(x.hour))<<32|uint64(x.score), int32(i))
	}
	f.st.reset(len(a.sess) + recs)
	for i, s := range a.sess {
		f.st.index(uint64(s.sess)<<32|uint64(s.tool), int32(i))
	}
	f.perTool = f.perTool[:0]
	f.patKeys = nil
	if len(a.patterns) > 0 {
		f.indexPatterns(a)
	}
}

func (f *folder) localTool(a *agg, id uint32, names []string) uint16 {
	if t, ok := f.tool.get(id, f.stamp); ok {
		return uint16(t)
	}
	t := a.tool(names[id])
	f.tool.set(id, uint32(t), f.stamp)
	return t
}

// foldSession counts the record in its (session, tool) entry. Without a
// session id each hour counts as one session (see merger.addParts).
func (f *folder) foldSession(a *agg, r *record, t uint16, hi uint32, names []string) {
	var si uint32
	switch s, ok := f.sess.get(r.sess, f.stamp); {
	case r.sess == noPattern:
		si = a.session("\x00h" + itoa(int64(r.hour)))
	case ok:
		si = s
	default:
		name := names[r.sess]
		if a.sessIdx != nil {
			si = a.session(name)
		} else {
			si = a.addSession(name) // no stored sessions: the id is new to a
		}
		f.sess.set(r.sess, si, f.stamp)
	}
	sk := uint64(si)<<32 | uint64(t)
	if j, ok := f.st.index(sk, int32(len(a.sess))); ok {
		s := &a.sess[j]
		s.calls++
		s.hi += hi
		s.first = min(s.first, r.hour)
		s.last = max(s.last, r.hour)
		return
	}
	a.sess = append(a.sess, sessTool{sess: si, tool: t, first: r.hour, last: r.hour, calls: 1, hi: hi})
}

// foldPattern counts a resource pattern of tool t, up to maxPatternsPerTool
// patterns per tool. A pattern id names one pattern string, which almost
// always belongs to one tool; when it shows up with another tool (a tool
// name with a colon can make two tools' patterns the same string) or a has
// stored patterns, patterns are found by (tool, pattern) in patKeys.
func (f *folder) foldPattern(a *agg, id uint32, t uint16, names []string) {
	if j, ok := f.pat.get(id, f.stamp); ok {
		if a.patterns[j].tool == t {
			a.patterns[j].count++
			return
		}
		if f.patKeys == nil {
			f.indexPatterns(a)
		}
	}
	k := patKey{t, names[id]}
	if f.patKeys != nil {
		if j, ok := f.patKeys[k]; ok {
			a.patterns[j].count++
			f.pat.set(id, uint32(j), f.stamp)
			return
		}
	}
	for len(f.perTool) <= int(t) {
		f.perTool = append(f.perTool, 0)
	}
	if f.perTool[t] >= maxPatternsPerTool {
		return
	}
	f.perTool[t]++
	j := len(a.patterns)
	a.patterns = append(a.patterns, patCount{tool: t, pattern: k.p, count: 1})
	f.pat.set(id, uint32(j), f.stamp)
	if f.patKeys != nil {
		f.patKeys[k] = j
	}
}

// indexPatterns maps a's patterns by (tool, pattern) and counts them per tool.
func (f *folder) indexPatterns(a *agg) {
	f.patKeys = make(map[patKey]int, len(a.patterns))
	f.perTool = f.perTool[:0]
	for j, p := range a.patterns {
		f.patKeys[patKey{p.tool, p.pattern}] = j
		for len(f.perTool) <= int(p.tool) {
			f.perTool = append(f.perTool, 0)
		}
		f.perTool[p.tool]++
	}
}

// idMap maps dictionary ids to indexes; an entry counts only when its
// stamp is the current one, so that a new agent starts empty without a
// clear.
type idMap struct {
	stamp []uint32
	val   []uint32
}

func (m *idMap) get(id, stamp uint32) (uint32, bool) {
	if int(id) < len(m.stamp) && m.stamp[id] == stamp {
		return m.val[id], true
	}
	return 0, false
}

func (m *idMap) set(id, v, stamp uint32) {
	if int(id) >= len(m.stamp) {
		n := max(1024, 2*len(m.stamp), int(id)+1)
		m.stamp = append(m.stamp, make([]uint32, n-len(m.stamp))...)
		m.val = append(m.val, make([]uint32, n-len(m.val))...)
	}
	m.stamp[id], m.val[id] = stamp, v
}

// slotTable maps 64-bit keys to indexes: open addressing, at most half
// full. No key the folder makes is all ones (the low 32 bits hold a tool or
// a score), which marks empty slots.
type slotTable struct {
	keys  []uint64
	vals  []int32
	n     int
	shift uint
}

const emptySlot = ^uint64(0)

// reset empties the table and sizes it for n keys.
func (t *slotTable) reset(n int) {
	size, shift := 16, uint(60)
	for size < 2*n+2 {
		size, shift = size*2, shift-1
	}
	if cap(t.keys) < size {
		t.keys, t.vals = make([]uint64, size), make([]int32, size)
	}
	t.keys, t.vals = t.keys[:size], t.vals[:size]
	for i := range t.keys {
		t.keys[i] = emptySlot
	}
	t.n, t.shift = 0, shift
}

// index returns k's value and true, or adds k with value v and returns false.
func (t *slotTable) index(k uint64, v int32) (int32, bool) {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	mask := uint64(len(t.keys) - 1)
	for i := (k * 0x9e3779b97f4a7c15) >> t.shift; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k:
			return t.vals[i], true
		case emptySlot:
			t.keys[i], t.vals[i] = k, v
			t.n++
			return v, false
		}
	}
}

func (t *slotTable) grow() {
	keys, vals := t.keys, t.vals
	t.keys, t.vals = nil, nil
	t.reset(2 * t.n)
	for i, k := range keys {
		if k != emptySlot {
			t.index(k, vals[i])
		}
	}
}
