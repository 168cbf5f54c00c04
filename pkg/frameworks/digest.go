package frameworks

import (
	"sort"

	"github.com/lfcli/lf/pkg/agentleak/compliance"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/risk"
)

// MatrixEntry is one risk scorer of the evidence: its level and score, the
// runs behind it, and the frameworks and requirements (framework/key) it
// evidences, sorted.
type MatrixEntry struct {
	RiskScorer   string     `json:"risk_scorer"`
	Level        risk.Level `json:"level"`
	Score        *float64   `json:"score"`
	Runs         []string   `json:"runs"`
	Frameworks   []string   `json:"frameworks"`
	Requirements []string   `json:"requirements"`
}

// CanonicalFields are the keys of the object the digest is taken over.
var CanonicalFields = []string{"evidence_matrix", "generated_at", "requirements"}

const integrityNote = "SHA-256 over the canonical JSON of evidence_matrix, generated_at and requirements (sorted keys, no spaces, non-ASCII escaped, as the AgentLeak scan's digest): recompute it to check the evidence; it is not a signature."

// Seal returns the evidence matrix of results (one entry per risk scorer,
// sorted by key) and the integrity digest over it, the report time
// generatedAt and every requirement's status, computed as the scan's
// compliance digest is (compliance.CanonicalDigest): the same evidence
// and time give the same digest.
func Seal(results []Result, generatedAt string) ([]MatrixEntry, compliance.Integrity) {
	byKey := map[string]*MatrixEntry{}
	fws := map[string]map[string]bool{}
	var reqs []any
	for _, f := range results {
		for _, q := range f.Requirements {
			id := f.Key + "/" + q.Key
			reqs = append(reqs, map[string]any{"id": id, "status": string(q.Status), "met_at": string(q.MetAt)})
			for _, e := range q.Evidence {
				m := byKey[e.Key]
				if m == nil {
					m = &MatrixEntry{RiskScorer: e.Key, Level: e.Level, Score: e.Score, Runs: []string{}, Requirements: []string{}}
					for _, r := range e.Runs {
						m.Runs = append(m.Runs, r.EvaluationKey+"/"+r.ID)
					}
					sort.Strings(m.Runs)
					byKey[e.Key], fws[e.Key] = m, map[string]bool{}
				}
				m.Requirements = append(m.Requirements, id)
				fws[e.Key][f.Key] = true
			}
		}
	}
	sort.Slice(reqs, func(i, j int) bool {
		return reqs[i].(map[string]any)["id"].(string) < reqs[j].(map[string]any)["id"].(string)
	})
	matrix := make([]MatrixEntry, 0, len(byKey))
	entries := make([]any, 0, len(byKey))
	for k, m := range byKey {
		for f := range fws[k] {
			m.Frameworks = append(m.Frameworks, f)
		}
		sort.Strings(m.Frameworks)
		sort.Strings(m.Requirements)
		matrix = append(matrix, *m)
	}
	sort.Slice(matrix, func(i, j int) bool { return matrix[i].RiskScorer < matrix[j].RiskScorer })
	for _, m := range matrix {
		entries = append(entries, map[string]any{
			"risk_scorer": m.RiskScorer, "level": string(m.Level), "score": m.Score,
			"runs": m.Runs, "frameworks": m.Frameworks, "requirements": m.Requirements,
		})
	}
	if reqs == nil {
		reqs = []any{}
	}
	digest := compliance.CanonicalDigest(map[string]any{"evidence_matrix": entries, "generated_at": generatedAt, "requirements": reqs})
	return matrix, compliance.Integrity{Algorithm: "sha256", Digest: digest, CanonicalFields: CanonicalFields, Signed: false, Note: integrityNote}
}

// DigestNote is the digest as a Markdown paragraph, written after the
// requirements' table.
func (r Report) DigestNote() output.Viewer { return digestNote(r) }

type digestNote Report

func (d digestNote) View() any {
	return &output.Document{Lines: []string{
		"Evidence digest (" + d.Integrity.Algorithm + "): " + d.Integrity.Digest + ", report time " + d.GeneratedAt + ", over " + itoa(len(d.Matrix)) + " risk scorers. " + d.Integrity.Note,
	}}
}
