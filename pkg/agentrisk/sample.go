package agentrisk

import "time"

// SampleEnd is the end of the bundled sample events (project/agents/events.jsonl).
var SampleEnd = time.Date(2026, 4, 16, 14, 0, 0, 0, time.UTC)

// SampleAgents describes the bundled sample: tenant acme with calm agents and
// one agent per raised tier, tenant globex with two calm agents (too few
// peers for the anomaly component).
func SampleAgents() []AgentSpec {
	calm := func(id, name string, tools []string, rate float64) AgentSpec {
		return AgentSpec{Tenant: "acme", ID: id, Name: name, Normal: Behaviour{
			CallsPerHour: rate, Tools: tools, HighImpact: []string{"write_file"},
			DenyRate: 0.01, InjectionRate: 0.02, InjectionMin: 0.01, InjectionMax: 0.15, SessionLength: 12,
		}}
	}
	docs := []string{"read_file", "read_file", "search_docs"}
	out := []AgentSpec{
		calm("agt_support", "support-bot", docs, 3),
		calm("agt_docs", "docs-bot", []string{"read_file", "search_docs", "write_file"}, 2.5),
		calm("agt_search", "search-bot", []string{"search_docs", "http_get"}, 3.5),
		calm("agt_calendar", "calendar-bot", []string{"calendar_read", "calendar_write"}, 2),
		calm("agt_billing", "billing-bot", []string{"invoice_read", "http_get"}, 2.5),
	}
	// Elevated: a new high-impact tool, some denials and a few probing inputs.
	el := calm("agt_report", "report-bot", docs, 3)
	el.Burst = &Behaviour{
		CallsPerHour: 16, Tools: []string{"read_file", "write_file", "http_post"},
		HighImpact: []string{"write_file", "http_post"}, DenyRate: 0.5, InjectionRate: 0.15, InjectionMin: 0.7, InjectionMax: 0.9, SessionLength: 15,
	}
	el.BurstHours = 6
	// High: floods new high-impact tools with denied calls and strong injections.
	hi := calm("agt_ops", "ops-bot", []string{"read_file", "search_docs"}, 3)
	hi.Burst = &Behaviour{
		CallsPerHour: 25, Tools: []string{"read_file", "write_file", "delete_file", "exec_shell"},
		HighImpact: []string{"write_file", "delete_file", "exec_shell"}, DenyRate: 0.6, InjectionRate: 0.25, InjectionMin: 0.85, InjectionMax: 0.98, SessionLength: 30,
	}
	hi.BurstHours = 6
	// Critical: the same, harder.
	cr := calm("agt_rogue", "rogue-bot", []string{"read_file", "search_docs"}, 3)
	cr.Burst = &Behaviour{
		CallsPerHour: 60, Tools: []string{"delete_file", "exec_shell", "http_post", "write_file", "db_drop"},
		HighImpact: []string{"write_file", "delete_file", "exec_shell", "http_post", "db_drop"}, DenyRate: 0.85, InjectionRate: 0.4, InjectionMin: 0.9, InjectionMax: 0.99, SessionLength: 40,
	}
	cr.BurstHours = 6
	out = append(out, el, hi, cr)
	g1 := calm("agt_helper", "helper-bot", docs, 2)
	g1.Tenant = "globex"
	g2 := calm("agt_triage", "triage-bot", []string{"ticket_read", "ticket_update"}, 2)
	g2.Tenant = "globex"
	return append(out, g1, g2)
}
