package model

// Framework is one compliance framework: its requirements, each decided by
// the risk scorers named as its evidence (schemas/frameworks.schema.json).
type Framework struct {
	Key          string        `json:"key"`
	Name         string        `json:"name"`
	Source       string        `json:"source,omitempty"`
	Description  string        `json:"description,omitempty"`
	Requirements []Requirement `json:"requirements"`
}

// Requirement is one requirement of a framework. It is met when every
// evidence scorer with data is at or below MetAt (a risk level); SameAs
// names the same requirement in other frameworks ("framework/requirement"),
// whose evidence it shares.
type Requirement struct {
	Key         string   `json:"key"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Evidence    Evidence `json:"evidence"`
	MetAt       string   `json:"met_at"`
	SameAs      []string `json:"same_as,omitempty"`
}

// Evidence names the risk scorers that decide a requirement: by key and by
// domain (every scorer of the domain).
type Evidence struct {
	RiskScorers []string `json:"risk_scorers,omitempty"`
	Domains     []string `json:"domains,omitempty"`
}
