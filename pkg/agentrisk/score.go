package agentrisk

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Scoring constants (documented in docs/agent-risk.md).
const (
	windowHours     = 7 * 24  // events window of a score
	baselineHours   = 14 * 24 // the longest baseline history
	recentHours     = 6       // tool drift compares the last 6 h with the baseline before it
	minBaselineHrs  = 24      // drift needs at least a day of baseline
	injectionTopN   = 100     // injection observations that count
	injectionPower  = 1.5     // i-th strongest observation weighs 1/i^1.5
	minPeers        = 3       // anomaly needs at least 3 established peers
	exactPeerLimit  = 200     // above this many established peers, their median/MAD include the agent itself
	peerLagHours    = 6       // peers are compared as they were 6 h before T (before the recent hours)
	peerMinHistory  = 24      // a peer needs a first event at least 24 h before that reference time
	peerMinRequests = 24      // and at least 24 requests in its window at that time
	agencyScale     = 10.0    // a session with 10 high-impact calls of one tool scores 1-1/e
	agencyScopeCost = 5.0     // each extra distinct high-impact tool counts as 5 calls
)

// Component names, in display order.
const (
	CompInjection       = "injection"
	CompToolDrift       = "toolDrift"
	CompExcessiveAgency = "excessiveAgency"
	CompAnomaly         = "anomaly"
	CompPolicyViolation = "policyViolation"
)

var componentNames = [5]string{CompInjection, CompToolDrift, CompExcessiveAgency, CompAnomaly, CompPolicyViolation}

var featureNames = [5]string{"request volume", "deny share", "high-impact share", "mean injection score", "distinct tools"}

// injCoef[i] = (i+1)^-1.5 / sum_{k=1..100} k^-1.5, so 100 observations of
// confidence 1 give exactly 100.
var injCoef = func() [injectionTopN]float64 {
	var c [injectionTopN]float64
	z := 0.0
	for i := 1; i <= injectionTopN; i++ {
		z += math.Pow(float64(i), -injectionPower)
	}
	for i := range c {
		c[i] = math.Pow(float64(i+1), -injectionPower) / z
	}
	return c
}()

// scoreInput is one stored agent.
type scoreInput struct {
	tenant, agent, name string
	blob                []byte
	firstHour           int32
	resetHour           int32 // baseline starts here (math.MinInt32 when never reset)
}

// agentCalc is the result of scoring one agent.
type agentCalc struct {
	in       *scoreInput
	active   bool // had requests in the window
	features [5]float64
	comps    [5]Component
	score    int
	baseline BaselineBody
	err      error

	// The agent as a peer of the others: its features at the reference time
	// (peerLagHours before T) and whether it then had enough history to be
	// part of the peer baseline (see establishedPeer).
	refFeatures [5]float64
	established bool
	peerOnly    bool // the live path: only needed as a peer, no components
}

// clock holds the hour grid of a calculation at time at.
type clock struct {
	at      time.Time
	hT, lo  int32                // window hours lo..hT
	weights [windowHours]float64 // weights[hT-h]
	wRecent float64              // sum of weights over the recent 24 h
	ref     *clock               // the peers' reference time, peerLagHours before at
}

// newClock is the clock of a calculation at time at with the reference clock
// of its peer baseline.
func newClock(at time.Time, halfLifeHours float64) *clock {
	c := newClockAt(at, halfLifeHours)
	c.ref = newClockAt(at.Add(-peerLagHours*time.Hour), halfLifeHours)
	return c
}

func newClockAt(at time.Time, halfLifeHours float64) *clock {
	c := &clock{at: at}
	sec := at.Unix()
	// The last hour of the window is the one holding the instant just before
	// at: on the hour, the hour starting at at is left out.
	c.hT = int32(floorDiv(sec-1, 3600))
	c.lo = c.hT - windowHours + 1
	for i := range c.weights {
		mid := (int64(c.hT)-int64(i))*3600 + 1800
		age := float64(sec-mid) / 3600
		if age < 0 {
			age = 0
		}
		c.weights[i] = math.Exp2(-age / halfLifeHours)
		if i < recentHours {
			c.wRecent += c.weights[i]
		}
	}
	return c
}

func (c *clock) w(h int32) float64 { return c.weights[c.hT-h] }

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func hourTime(h int32) string {
	return time.Unix(int64(h)*3600, 0).UTC().Format("2006-01-02T15:04Z")
}

// scoreOwn computes everything about one agent that does not need its peers:
// injection, tool drift, excessive agency, policy violation rate, the anomaly
// features and the baseline (docs/agent-risk.md gives every formula).
func scoreOwn(cfg *RiskConfig, c *clock, in *scoreInput) agentCalc {
	a, err := decodeAgg(in.blob, false)
	if err != nil {
		return agentCalc{in: in, err: fmt.Errorf("%w (tenant %s, agent %s)", err, in.tenant, in.agent)}
	}
	return scoreDecoded(cfg, c, in, a)
}

// scoreDecoded is scoreOwn on an aggregate already decoded.
func scoreDecoded(cfg *RiskConfig, c *clock, in *scoreInput, a *agg) agentCalc {
	return scoreDecodedWith(cfg, c, in, a, nil)
}

// scoreDecodedWith is scoreDecoded with a buffer for the injection
// observations that one caller reuses from agent to agent (nil: none); no
// result refers to it.
func scoreDecodedWith(cfg *RiskConfig, c *clock, in *scoreInput, a *agg, inj *[]injObs) agentCalc {
	out := agentCalc{in: in}
	w := tallyWindow(cfg, c, in, a, inj)
	if inj != nil {
		defer func() { *inj = w.inj[:0] }()
	}
	out.active = w.wCalls > 0
	out.comps[0] = injectionComponent(c, w)
	out.comps[1] = toolDriftComponent(c, w)
	out.comps[2] = excessiveAgencyComponent(c, w)
	out.comps[4] = policyViolationComponent(w)
	out.features, _ = featuresAt(c, a, w.hiTool)
	out.refFeatures, out.established = peerFeatures(c, in, a, w.hiTool)
	out.baseline = baselineOf(c, w)
	return out
}

// peerFeatures are the agent's features as a peer of the others: at the
// reference time c.ref, and whether it then was an established peer: a first
// event at least peerMinHistory hours and at least peerMinRequests requests
// in its window, both as of the reference time. New agents, agents with a
// handful of events and whatever happened in the last peerLagHours hours do
// not move the baseline the others are compared with.
func peerFeatures(c *clock, in *scoreInput, a *agg, hiTool []bool) ([5]float64, bool) {
	if in.firstHour > c.ref.hT-peerMinHistory {
		return [5]float64{}, false
	}
	f, calls := featuresAt(c.ref, a, hiTool)
	return f, calls >= peerMinRequests
}

// highImpactTools flags the tools of a that cfg names high-impact.
func highImpactTools(cfg *RiskConfig, a *agg) []bool {
	hi := make([]bool, len(a.tools))
	for _, name := range cfg.HighImpactTools {
		for i, t := range a.tools {
			if t == name && t != "" {
				hi[i] = true
			}
		}
	}
	return hi
}

// featuresAt are the five anomaly features of an agent at clock c: decayed
// request volume, deny share, high-impact share, mean injection score per
// request, distinct tools (all 0 without requests), and the raw number of
// requests in the window. The full recalculation and the live path both call
// it on the same hour and injection buckets, so they agree to the bit.
func featuresAt(c *clock, a *agg, hiTool []bool) ([5]float64, float64) {
	var wCalls, wDenied, wHI, wInj, raw float64
	var used []uint64
	distinct := 0
	for _, h := range a.hours {
		if h.hour > c.hT {
			break
		}
		if h.hour < c.lo {
			continue
		}
		wt := c.w(h.hour)
		calls := float64(h.calls)
		hi := float64(h.hi)
		if hiTool[h.tool] {
			hi = calls
		}
		wCalls += wt * calls
		wDenied += wt * float64(h.denied)
		wHI += wt * hi
		raw += calls
		if h.tool != 0 {
			if used == nil {
				used = make([]uint64, (len(a.tools)+63)/64)
			}
			if word, bit := h.tool/64, uint64(1)<<(h.tool%64); used[word]&bit == 0 {
				used[word] |= bit
				distinct++
			}
		}
	}
	if wCalls == 0 {
		return [5]float64{}, raw
	}
	for _, b := range a.inj {
		if b.hour > c.hT {
			break
		}
		if b.hour < c.lo {
			continue
		}
		s := float64(b.score) / 1000
		wInj += c.w(b.hour) * s * float64(b.count)
	}
	return [5]float64{wCalls, wDenied / wCalls, wHI / wCalls, wInj / wCalls, float64(distinct)}, raw
}

// agentWindow is what the components read from one agent's aggregate: decayed
// and raw tallies over the window, per-tool baseline sums, and the window's
// injection observations.
type agentWindow struct {
	a      *agg
	hiTool []bool // tools the tenant's config names high-impact

	// Baseline hours bStart..bEnd (nB of them) end where the recent 6 h start.
	bStart, bEnd int32
	nB           int
	bSum, bSq    []float64 // per tool: calls and squared calls per baseline hour

	rW, rCalls   []float64 // per tool: decayed and raw calls in the recent 6 h
	deniedByTool []float64

	wCalls, wDenied     float64 // decayed over the window
	rawCalls, rawDenied float64

	inj []injObs // the window's injection observations, strongest first
}

// injObs is the injection observations of one hour at one score.
type injObs struct {
	v     float64 // decayed confidence
	hour  int32
	score uint16
	count uint32
}

// tallyWindow reads one agent's hours and injection observations once.
func tallyWindow(cfg *RiskConfig, c *clock, in *scoreInput, a *agg, inj *[]injObs) *agentWindow {
	nt := len(a.tools)
	w := &agentWindow{a: a, hiTool: highImpactTools(cfg, a)}
	if inj != nil {
		w.inj = (*inj)[:0]
	}
	w.bStart = c.hT - baselineHours + 1
	if in.firstHour > w.bStart {
		w.bStart = in.firstHour
	}
	if in.resetHour > w.bStart {
		w.bStart = in.resetHour
	}
	w.bEnd = c.hT - recentHours
	w.nB = int(w.bEnd - w.bStart + 1)
	if w.nB < 0 {
		w.nB = 0
	}
	w.bSum = make([]float64, nt)
	w.bSq = make([]float64, nt)
	w.rW = make([]float64, nt)
	w.rCalls = make([]float64, nt)
	w.deniedByTool = make([]float64, nt)
	w.tallyHours(c)
	w.collectInjection(c)
	return w
}

func (w *agentWindow) tallyHours(c *clock) {
	rStart := c.hT - recentHours + 1
	for _, h := range w.a.hours {
		if h.hour > c.hT {
			break
		}
		if h.hour >= w.bStart && h.hour <= w.bEnd {
			x := float64(h.calls)
			w.bSum[h.tool] += x
			w.bSq[h.tool] += x * x
		}
		if h.hour < c.lo {
			continue
		}
		wt := c.w(h.hour)
		calls := float64(h.calls)
		w.wCalls += wt * calls
		w.wDenied += wt * float64(h.denied)
		w.rawCalls += calls
		w.rawDenied += float64(h.denied)
		w.deniedByTool[h.tool] += float64(h.denied)
		if h.hour >= rStart {
			w.rW[h.tool] += wt * calls
			w.rCalls[h.tool] += calls
		}
	}
}

func (w *agentWindow) collectInjection(c *clock) {
	w.inj = slices.Grow(w.inj[:0], len(w.a.inj))
	for _, b := range w.a.inj {
		if b.hour > c.hT {
			break
		}
		if b.hour < c.lo {
			continue
		}
		wt := c.w(b.hour)
		s := float64(b.score) / 1000
		w.inj = append(w.inj, injObs{v: s * wt, hour: b.hour, score: b.score, count: b.count})
	}
	// No two observations tie (one bin per hour and score): the order is
	// the same whatever the sort.
	slices.SortFunc(w.inj, func(x, y injObs) int {
		if x.v != y.v {
			return cmp.Compare(y.v, x.v)
		}
		return cmp.Compare(y.hour, x.hour)
	})
}

// injectionComponent is the strongest decayed injection confidences, the i-th
// weighing i^-1.5:
//
//	injection = 100 × Σ_{i=1..100} v_i × i^-1.5 / Z,   Z = Σ_{i=1..100} i^-1.5
//
// with v_1 ≥ v_2 ≥ ... the decayed confidences w × injection_score.
func injectionComponent(c *clock, w *agentWindow) Component {
	inj, rank := 0.0, 0
	for _, o := range w.inj {
		for k := uint32(0); k < o.count && rank < injectionTopN; k++ {
			inj += o.v * injCoef[rank]
			rank++
		}
		if rank >= injectionTopN {
			break
		}
	}
	comp := Component{Name: CompInjection, Value: round1(100 * inj)}
	if len(w.inj) == 0 {
		comp.Explanation = "no classified prompt-injection attempts in the window"
		return comp
	}
	n := 0
	for _, o := range w.inj {
		n += int(o.count)
	}
	comp.Explanation = fmt.Sprintf("%d classified inputs; the strongest decayed confidences, the i-th weighing 1/i^1.5, normalised so that 100 certain attempts give 100", n)
	for i, o := range w.inj {
		if i == 3 {
			break
		}
		comp.Drivers = append(comp.Drivers, fmt.Sprintf("confidence %.2f x%d at %s (decay %.2f)", float64(o.score)/1000, o.count, hourTime(o.hour), c.w(o.hour)))
	}
	return comp
}

// toolDriftComponent compares the last 6 h per-tool rates with the agent's
// baseline; 0 while the baseline has less than 24 h of history:
//
//	rate_t    = Σ_{last 6 h} w × calls_t / Σ_{last 6 h} w
//	z_t       = (rate_t - avg_t) / max(stddev_t, 0.5)
//	d_t       = 1 for a tool new since the baseline, else clamp((z_t - 1) / 2, 0, 1)
//	share_t   = Σ_{last 6 h} w × calls_t / Σ_tools Σ_{last 6 h} w × calls
//	toolDrift = 100 × Σ_t share_t × d_t
func toolDriftComponent(c *clock, w *agentWindow) Component {
	drift := Component{Name: CompToolDrift}
	nt := len(w.a.tools)
	var rTotal float64
	for t := 1; t < nt; t++ {
		rTotal += w.rW[t]
	}
	switch {
	case w.nB < minBaselineHrs:
		drift.Explanation = fmt.Sprintf("baseline has %d h of history before the last 6 h (needs %d h): no drift yet", w.nB, minBaselineHrs)
		return drift
	case rTotal == 0:
		drift.Explanation = "no tool calls in the last 6 h"
		return drift
	}
	var drivers []driver
	d := 0.0
	for t := 1; t < nt; t++ {
		if w.rW[t] == 0 {
			continue
		}
		share := w.rW[t] / rTotal
		rate := w.rW[t] / c.wRecent
		avg := w.bSum[t] / float64(w.nB)
		if w.bSum[t] == 0 {
			d += share
			drivers = append(drivers, driver{share, fmt.Sprintf("new tool %s: %.0f calls in the last 6 h (%.0f%% of recent calls), never in the baseline", w.a.tools[t], w.rCalls[t], 100*share)})
			continue
		}
		sd := math.Sqrt(math.Max(0, w.bSq[t]/float64(w.nB)-avg*avg))
		z := (rate - avg) / math.Max(sd, 0.5)
		dt := clamp01((z - 1) / 2)
		if dt > 0 {
			d += share * dt
			drivers = append(drivers, driver{share * dt, fmt.Sprintf("%s: %.1f calls/h recently vs %.1f ± %.1f in the baseline (z %.1f)", w.a.tools[t], rate, avg, sd, z)})
		}
	}
	drift.Value = round1(100 * d)
	drift.Explanation = fmt.Sprintf("share-weighted deviation of the last 6 h per-tool rates from the %d h baseline; a new tool counts fully, z <= 1 counts nothing, z >= 3 fully", w.nB)
	drift.Drivers = topDrivers(drivers)
	if len(drivers) == 0 {
		drift.Explanation += "; behaviour matches the baseline"
	}
	return drift
}

// driver is one explanation line and the share of the component it explains.
type driver struct {
	s   float64
	txt string
}

// topDrivers returns the texts of the three largest drivers (stable order
// among equals).
func topDrivers(drivers []driver) []string {
	sort.SliceStable(drivers, func(i, j int) bool { return drivers[i].s > drivers[j].s })
	var out []string
	for i, dr := range drivers {
		if i == 3 {
			break
		}
		out = append(out, dr.txt)
	}
	return out
}

// excessiveAgencyComponent scores the high-impact calls per session (events
// without a session id: one pseudo-session per hour), with h a session's
// high-impact calls, k its distinct high-impact tools and w_s the decay of its
// last hour:
//
//	a_s = 1 - exp(-(h + 5 × (k - 1)) / 10)      (0 when h = 0)
//	excessiveAgency = 100 × (max_s w_s × a_s + Σ_s w_s × a_s / Σ_s w_s) / 2
func excessiveAgencyComponent(c *clock, w *agentWindow) Component {
	agency := Component{Name: CompExcessiveAgency}
	a := w.a
	var maxA, sumWA, sumW float64
	var sds []driver
	for i := 0; i < len(a.sess); {
		j := i
		var hiCalls float64
		var tools []string
		last := int32(math.MinInt32)
		for ; j < len(a.sess) && a.sess[j].sess == a.sess[i].sess; j++ {
			s := a.sess[j]
			if s.first > c.hT || s.last < c.lo {
				continue
			}
			if s.last > last {
				last = min(s.last, c.hT)
			}
			h := float64(s.hi)
			if w.hiTool[s.tool] {
				h = float64(s.calls)
			}
			if h > 0 {
				hiCalls += h
				tools = append(tools, a.tools[s.tool])
			}
		}
		if last != math.MinInt32 {
			ws := c.w(last)
			av := 0.0
			if hiCalls > 0 {
				av = 1 - math.Exp(-(hiCalls+agencyScopeCost*float64(len(tools)-1))/agencyScale)
			}
			sumW += ws
			sumWA += ws * av
			if ws*av > maxA {
				maxA = ws * av
			}
			if av > 0 {
				name := a.sessions[a.sess[i].sess]
				if strings.HasPrefix(name, "\x00h") {
					name = "(no session id, " + hourTime(last) + ")"
				}
				sds = append(sds, driver{ws * av, fmt.Sprintf("session %s: %.0f high-impact calls over %d tools (%s)", name, hiCalls, len(tools), strings.Join(tools, ", "))})
			}
		}
		i = j
	}
	if sumW > 0 {
		agency.Value = round1(100 * (0.5*maxA + 0.5*sumWA/sumW))
	}
	agency.Explanation = "half the worst session, half the decayed mean over sessions; a session scores 1 - exp(-(high-impact calls + 5 x (distinct high-impact tools - 1)) / 10)"
	agency.Drivers = topDrivers(sds)
	return agency
}

// policyViolationComponent is the decayed share of requests a rule denied:
//
//	policyViolation = 100 × Σ w × denied / Σ w × calls
func policyViolationComponent(w *agentWindow) Component {
	pv := Component{Name: CompPolicyViolation}
	if w.wCalls > 0 {
		pv.Value = round1(100 * w.wDenied / w.wCalls)
	}
	pv.Explanation = fmt.Sprintf("decayed share of requests denied by a rule: %.0f of %.0f requests in the window denied", w.rawDenied, w.rawCalls)
	type td struct {
		t int
		n float64
	}
	var tds []td
	for t := range w.deniedByTool {
		if w.deniedByTool[t] > 0 {
			tds = append(tds, td{t, w.deniedByTool[t]})
		}
	}
	sort.Slice(tds, func(i, j int) bool {
		if tds[i].n != tds[j].n {
			return tds[i].n > tds[j].n
		}
		return w.a.tools[tds[i].t] < w.a.tools[tds[j].t]
	})
	for i, x := range tds {
		if i == 3 {
			break
		}
		name := w.a.tools[x.t]
		if name == "" {
			name = "(no tool)"
		}
		pv.Drivers = append(pv.Drivers, fmt.Sprintf("%s: %.0f denied", name, x.n))
	}
	return pv
}

// baselineOf is the agent's per-tool baseline: calls per baseline hour (mean
// and standard deviation) and common resource patterns, busiest tool first.
func baselineOf(c *clock, w *agentWindow) BaselineBody {
	b := BaselineBody{Tools: []ToolBaseline{}, UpdatedAt: c.at}
	if w.nB <= 0 {
		return b
	}
	b.WindowDays = (w.nB + 23) / 24
	for t := 1; t < len(w.a.tools); t++ {
		if w.bSum[t] == 0 {
			continue
		}
		avg := w.bSum[t] / float64(w.nB)
		sd := math.Sqrt(math.Max(0, w.bSq[t]/float64(w.nB)-avg*avg))
		b.Tools = append(b.Tools, ToolBaseline{
			ToolName: w.a.tools[t], CallCount: int(w.bSum[t]),
			AvgCallsPerHour: round2(avg), StddevCallsPerHour: round2(sd),
			CommonPatterns: commonPatterns(w.a, uint16(t)),
		})
		b.TotalCalls += int(w.bSum[t])
	}
	sort.Slice(b.Tools, func(i, j int) bool {
		if b.Tools[i].CallCount != b.Tools[j].CallCount {
			return b.Tools[i].CallCount > b.Tools[j].CallCount
		}
		return b.Tools[i].ToolName < b.Tools[j].ToolName
	})
	return b
}

// commonPatterns lists the resource patterns of a tool that cover at least
// 20% of its calls with a resource, most frequent first, at most 3.
func commonPatterns(a *agg, t uint16) []string {
	var ps []patCount
	total := uint32(0)
	for _, p := range a.patterns {
		if p.tool == t {
			ps = append(ps, p)
			total += p.count
		}
	}
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].count != ps[j].count {
			return ps[i].count > ps[j].count
		}
		return ps[i].pattern < ps[j].pattern
	})
	out := []string{}
	for _, p := range ps {
		if len(out) == 3 || float64(p.count) < 0.2*float64(total) {
			break
		}
		out = append(out, p.pattern)
	}
	return out
}

// scoreAnomaly fills the anomaly component of every agent of one tenant from
// the robust deviation (median, MAD) of its features from the established
// peers' features at the reference time (peerFeatures).
func scoreAnomaly(calcs []*agentCalc) {
	var peers []*agentCalc
	for _, c := range calcs {
		if c.err == nil && c.established {
			peers = append(peers, c)
		}
	}
	// Large tenants: one median and MAD per feature over all established
	// peers (the agent itself moves them by at most one rank).
	var shared *peerStats
	if len(peers) > exactPeerLimit {
		shared = &peerStats{}
		v := make([]float64, len(peers))
		for f := 0; f < 5; f++ {
			for i, c := range peers {
				v[i] = c.refFeatures[f]
			}
			shared.med[f], shared.mad[f] = medianMAD(v)
		}
	}
	for _, c := range calcs {
		if c.err == nil && !c.peerOnly {
			c.comps[3] = anomalyComponent(c, peers, shared)
		}
	}
}

// peerStats is the median and MAD of each anomaly feature over the peers.
type peerStats struct {
	med, mad [5]float64
}

// anomalyComponent is the largest robust z-score of the agent's features
// against its established peers (at least 3) as they were at the reference
// time, with scale floors for volume (a quarter of the median, at least 1),
// distinct tools (1) and shares (0.1):
//
//	z_f     = (x_f - median_f) / max(1.4826 × MAD_f, floor_f)
//	anomaly = 100 × max_f clamp((z_f - 3) / 3, 0, 1)
//
// shared, when set, holds the statistics of all established peers (large tenants).
func anomalyComponent(c *agentCalc, established []*agentCalc, shared *peerStats) Component {
	comp := Component{Name: CompAnomaly}
	peers := len(established)
	if c.established {
		peers--
	}
	if !c.active {
		comp.Explanation = "no requests in the window"
		return comp
	}
	if peers < minPeers {
		comp.Explanation = fmt.Sprintf("%d established peers in the tenant (needs %d; a peer needs a day of history and %d requests in its window, as of %d h ago): no comparison", peers, minPeers, peerMinRequests, peerLagHours)
		return comp
	}
	best := 0.0
	var fds []driver
	for f := 0; f < 5; f++ {
		var med, mad float64
		if shared != nil {
			med, mad = shared.med[f], shared.mad[f]
		} else {
			vals := make([]float64, 0, peers)
			for _, p := range established {
				if p != c {
					vals = append(vals, p.refFeatures[f])
				}
			}
			med, mad = medianMAD(vals)
		}
		scale := 1.4826 * mad
		switch f {
		case 0:
			scale = math.Max(scale, math.Max(0.25*med, 1))
		case 4:
			scale = math.Max(scale, 1)
		default:
			scale = math.Max(scale, 0.1)
		}
		z := (c.features[f] - med) / scale
		af := clamp01((z - 3) / 3)
		if af > 0 {
			fds = append(fds, driver{af, fmt.Sprintf("%s %.3g vs peers' median %.3g (robust z %.1f)", featureNames[f], c.features[f], med, z)})
		}
		if af > best {
			best = af
		}
	}
	comp.Value = round1(100 * best)
	comp.Explanation = fmt.Sprintf("largest robust z-score (x - median) / (1.4826 MAD) against %d established peers as they were %d h ago, over volume, deny share, high-impact share, injection mean and distinct tools; z <= 3 counts nothing, z >= 6 fully", peers, peerLagHours)
	sort.SliceStable(fds, func(i, j int) bool { return fds[i].s > fds[j].s })
	for _, x := range fds {
		comp.Drivers = append(comp.Drivers, x.txt)
	}
	return comp
}

func medianMAD(v []float64) (float64, float64) {
	if len(v) == 0 {
		return 0, 0
	}
	sort.Float64s(v)
	med := median(v)
	for i := range v {
		v[i] = math.Abs(v[i] - med)
	}
	sort.Float64s(v)
	return med, median(v)
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// finalScore is the weighted sum of the components, clamped to 0..100 and
// rounded to an integer.
func finalScore(cfg *RiskConfig, comps *[5]Component) int {
	w := [5]float64{cfg.Weights.Injection, cfg.Weights.ToolDrift, cfg.Weights.ExcessiveAgency, cfg.Weights.Anomaly, cfg.Weights.PolicyViolation}
	s := 0.0
	for i := range comps {
		comps[i].Weight = w[i]
		s += w[i] * comps[i].Value
	}
	return int(math.Round(math.Max(0, math.Min(100, s))))
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }
func round1(x float64) float64  { return math.Round(x*10) / 10 }
func round2(x float64) float64  { return math.Round(x*100) / 100 }
