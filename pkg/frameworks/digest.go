package frameworks

import (
	"crypto/sha256"
	"encoding/hex"
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
// generatedAt and every requirement's status, serialised as the scan's
// compliance digest is (compliance.AppendCanonical: keys sorted, no white
// space, non-ASCII escaped, floats as Python writes them): the same
// evidence and time give the same digest.
func Seal(results []Result, generatedAt string) ([]MatrixEntry, compliance.Integrity) {
	byKey := map[string]int{}
	var matrix []MatrixEntry
	fws := []map[string]bool{}
	type reqStatus struct{ id, status, metAt string }
	var reqs []reqStatus
	for _, f := range results {
		for _, q := range f.Requirements {
			id := f.Key + "/" + q.Key
			reqs = append(reqs, reqStatus{id, string(q.Status), string(q.MetAt)})
			for _, e := range q.Evidence {
				i, ok := byKey[e.Key]
				if !ok {
					m := MatrixEntry{RiskScorer: e.Key, Level: e.Level, Score: e.Score, Runs: make([]string, 0, len(e.Runs))}
					for _, r := range e.Runs {
						m.Runs = append(m.Runs, r.EvaluationKey+"/"+r.ID)
					}
					sort.Strings(m.Runs)
					i = len(matrix)
					byKey[e.Key] = i
					matrix = append(matrix, m)
					fws = append(fws, map[string]bool{})
				}
				matrix[i].Requirements = append(matrix[i].Requirements, id)
				fws[i][f.Key] = true
			}
		}
	}
	for i := range matrix {
		m := &matrix[i]
		m.Frameworks = make([]string, 0, len(fws[i]))
		for f := range fws[i] {
			m.Frameworks = append(m.Frameworks, f)
		}
		sort.Strings(m.Frameworks)
		sort.Strings(m.Requirements)
	}
	sort.Slice(matrix, func(i, j int) bool { return matrix[i].RiskScorer < matrix[j].RiskScorer })
	sort.Slice(reqs, func(i, j int) bool { return reqs[i].id < reqs[j].id })
	if matrix == nil {
		matrix = []MatrixEntry{}
	}
	// The canonical object, its keys (and each entry's) in sorted order.
	b := append(make([]byte, 0, 64*len(reqs)+256*len(matrix)), `{"evidence_matrix":[`...)
	for i, m := range matrix {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"frameworks":`...)
		b = compliance.AppendCanonical(b, m.Frameworks)
		b = append(b, `,"level":`...)
		b = compliance.AppendCanonical(b, string(m.Level))
		b = append(b, `,"requirements":`...)
		b = compliance.AppendCanonical(b, m.Requirements)
		b = append(b, `,"risk_scorer":`...)
		b = compliance.AppendCanonical(b, m.RiskScorer)
		b = append(b, `,"runs":`...)
		b = compliance.AppendCanonical(b, m.Runs)
		b = append(b, `,"score":`...)
		b = compliance.AppendCanonical(b, m.Score)
		b = append(b, '}')
	}
	b = append(b, `],"generated_at":`...)
	b = compliance.AppendCanonical(b, generatedAt)
	b = append(b, `,"requirements":[`...)
	for i, q := range reqs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = compliance.AppendCanonical(b, q.id)
		b = append(b, `,"met_at":`...)
		b = compliance.AppendCanonical(b, q.metAt)
		b = append(b, `,"status":`...)
		b = compliance.AppendCanonical(b, q.status)
		b = append(b, '}')
	}
	b = append(b, "]}"...)
	sum := sha256.Sum256(b)
	return matrix, compliance.Integrity{Algorithm: "sha256", Digest: hex.EncodeToString(sum[:]), CanonicalFields: CanonicalFields, Signed: false, Note: integrityNote}
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
