package agentrisk

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"time"
)

// Behaviour describes how a synthetic agent calls tools, for the bundled
// sample events and the benchmark generator.
type Behaviour struct {
	CallsPerHour  float64  // mean calls per hour
	Tools         []string // tools it uses, uniformly
	HighImpact    []string // tools whose calls are high-impact
	DenyRate      float64  // share of calls denied
	InjectionRate float64  // share of calls with an injection score
	InjectionMin  float64  // injection scores are uniform in [min, max]
	InjectionMax  float64
	SessionLength int // calls per session
}

// AgentSpec is one synthetic agent: a normal behaviour and, for the last
// BurstHours before the end, a burst behaviour.
type AgentSpec struct {
	Tenant, ID, Name string
	Normal           Behaviour
	Burst            *Behaviour
	BurstHours       int
}

// Generate produces the events of agents over the days before end, in time
// order, deterministic for a seed. emit is called once per event.
func Generate(agents []AgentSpec, end time.Time, days int, seed int64, emit func(Event)) {
	end = end.UTC().Truncate(time.Hour)
	start := end.Add(-time.Duration(days) * 24 * time.Hour)
	rng := rand.New(rand.NewSource(seed))
	type state struct {
		sess int
		left int
	}
	st := make([]state, len(agents))
	seq := make([]int, len(agents))
	var batch []Event
	for h := start; h.Before(end); h = h.Add(time.Hour) {
		batch = batch[:0]
		for i := range agents {
			a := &agents[i]
			b := &a.Normal
			if a.Burst != nil && end.Sub(h) <= time.Duration(a.BurstHours)*time.Hour {
				b = a.Burst
			}
			n := poisson(rng, b.CallsPerHour)
			for k := 0; k < n; k++ {
				if st[i].left <= 0 {
					st[i].sess++
					st[i].left = max(1, b.SessionLength)
				}
				st[i].left--
				tool := b.Tools[rng.Intn(len(b.Tools))]
				ev := Event{
					Timestamp: h.Add(time.Duration(rng.Int63n(3600)) * time.Second),
					TenantID:  a.Tenant, AgentID: a.ID, AgentName: a.Name,
					SessionID: fmt.Sprintf("%s-s%d", a.ID, st[i].sess),
					Method:    "tools/call", Tool: tool, Decision: "allow",
					Resource: resourceFor(rng, tool),
				}
				seq[i]++
				ev.RequestID = fmt.Sprintf("%s-r%d", a.ID, seq[i])
				for _, t := range b.HighImpact {
					if t == tool {
						ev.HighImpact = true
					}
				}
				if rng.Float64() < b.DenyRate {
					ev.Decision, ev.Rule = "deny", "policy/"+tool
				}
				if rng.Float64() < b.InjectionRate {
					s := b.InjectionMin + rng.Float64()*(b.InjectionMax-b.InjectionMin)
					s = float64(int(s*100+0.5)) / 100
					ev.InjectionScore = &s
				}
				batch = append(batch, ev)
			}
		}
		sort.SliceStable(batch, func(i, j int) bool { return batch[i].Timestamp.Before(batch[j].Timestamp) })
		for _, ev := range batch {
			emit(ev)
		}
	}
}

func resourceFor(rng *rand.Rand, tool string) string {
	switch tool {
	case "read_file", "write_file", "delete_file":
		dirs := []string{"/docs", "/docs", "/docs/api", "/src"}
		return fmt.Sprintf("%s/file%d.md", dirs[rng.Intn(len(dirs))], rng.Intn(20))
	case "http_get", "http_post":
		return fmt.Sprintf("https://api.example.com/v1/item/%d", rng.Intn(100))
	case "exec_shell":
		return "/bin/sh"
	case "search_docs":
		return ""
	default:
		return fmt.Sprintf("/data/%s/%d", tool, rng.Intn(10))
	}
}

// poisson draws a Poisson variate (Knuth for small means, normal
// approximation above 30).
func poisson(rng *rand.Rand, mean float64) int {
	if mean <= 0 {
		return 0
	}
	if mean > 30 {
		n := int(mean + rng.NormFloat64()*sqrt(mean) + 0.5)
		return max(n, 0)
	}
	l := exp(-mean)
	k, p := 0, 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

func sqrt(x float64) float64 { return math.Sqrt(x) }
func exp(x float64) float64  { return math.Exp(x) }

// BenchAgents describes a benchmark fleet: agents spread over tenants, each
// calling tools at callsPerHour, one in 50 with a burst in the last 6 hours.
func BenchAgents(agents, tenants int, callsPerHour float64) []AgentSpec {
	tools := [][]string{
		{"read_file", "search_docs", "read_file"},
		{"http_get", "search_docs"},
		{"read_file", "write_file", "search_docs"},
		{"ticket_read", "ticket_update", "http_get"},
	}
	out := make([]AgentSpec, agents)
	for i := range out {
		a := AgentSpec{
			Tenant: fmt.Sprintf("tenant-%03d", i%tenants),
			ID:     fmt.Sprintf("agt_%05d", i),
			Name:   fmt.Sprintf("bot-%05d", i),
			Normal: Behaviour{
				CallsPerHour: callsPerHour, Tools: tools[i%len(tools)], HighImpact: []string{"write_file"},
				DenyRate: 0.02, InjectionRate: 0.03, InjectionMin: 0.01, InjectionMax: 0.3, SessionLength: 20,
			},
		}
		if i%50 == 49 {
			a.Burst = &Behaviour{
				CallsPerHour: callsPerHour * 8, Tools: []string{"read_file", "delete_file", "exec_shell"},
				HighImpact: []string{"delete_file", "exec_shell"}, DenyRate: 0.5, InjectionRate: 0.2, InjectionMin: 0.8, InjectionMax: 0.99, SessionLength: 30,
			}
			a.BurstHours = 6
		}
		out[i] = a
	}
	return out
}
