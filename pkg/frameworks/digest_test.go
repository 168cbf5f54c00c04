package frameworks

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/lfcli/lf/pkg/risk"
)

// TestSealDigest: the digest is the SHA-256 of the canonical JSON written
// out here by hand (keys sorted, no spaces, non-ASCII escaped, a whole
// score with ".0"), the same for the same evidence and time, and another
// when the time, a level or a status changes.
func TestSealDigest(t *testing.T) {
	two := 2.0
	results := func(level risk.Level, st Status) []Result {
		return []Result{{Key: "fw", Requirements: []RequirementResult{
			{Key: "r2", Status: st, MetAt: risk.Low, Evidence: []Scorer{{Key: "s_é", Level: level, Score: &two, Runs: []risk.RunRef{{EvaluationKey: "ev", ID: "r1"}}}}},
			{Key: "r1", Status: NoData, MetAt: risk.High, Evidence: []Scorer{}},
		}}}
	}
	const at = "2026-01-01T00:00:00+00:00"
	canonical := `{"evidence_matrix":[{"frameworks":["fw"],"level":"high","requirements":["fw/r2"],"risk_scorer":"s_\u00e9","runs":["ev/r1"],"score":2.0}],` +
		`"generated_at":"2026-01-01T00:00:00+00:00","requirements":[{"id":"fw/r1","met_at":"high","status":"no_data"},{"id":"fw/r2","met_at":"low","status":"gap"}]}`
	sum := sha256.Sum256([]byte(canonical))
	matrix, in := Seal(results(risk.High, Gap), at)
	if want := hex.EncodeToString(sum[:]); in.Digest != want {
		t.Fatalf("digest %s, want %s (of %s)", in.Digest, want, canonical)
	}
	if len(matrix) != 1 || matrix[0].RiskScorer != "s_é" || matrix[0].Runs[0] != "ev/r1" {
		t.Errorf("matrix %+v", matrix)
	}
	if _, again := Seal(results(risk.High, Gap), at); again.Digest != in.Digest {
		t.Error("the same evidence and time give another digest")
	}
	for name, other := range map[string]string{
		"time":   func() string { _, i := Seal(results(risk.High, Gap), "2026-01-02T00:00:00+00:00"); return i.Digest }(),
		"level":  func() string { _, i := Seal(results(risk.Critical, Gap), at); return i.Digest }(),
		"status": func() string { _, i := Seal(results(risk.High, Partial), at); return i.Digest }(),
	} {
		if other == in.Digest {
			t.Errorf("another %s gives the same digest", name)
		}
	}
}
