package compliance

import "testing"

// TestCanonicalDigestIsTheScanDigest: the generic canonical JSON gives the
// scan's digest for the scan's five fields, non-ASCII text and floats
// included, so a digest computed with it is computed the engine's way.
func TestCanonicalDigestIsTheScanDigest(t *testing.T) {
	in := &Input{RunID: "run-é-𝄞", GeneratedAt: "2026-01-01T00:00:00+00:00", RiskIndex: 1, PrivacyScore: 42}
	matrix := []MatrixEntry{
		{FindingID: "f<1>&", Frameworks: []string{"gdpr"}, Controls: []string{"gdpr.art5.1f"}},
		{FindingID: "f2", Frameworks: []string{}, Controls: []string{}},
	}
	entries := make([]any, len(matrix))
	for i, e := range matrix {
		entries[i] = map[string]any{"finding_id": e.FindingID, "frameworks": e.Frameworks, "controls": e.Controls}
	}
	for _, ri := range []float64{1, 0.6667, 0.0001, 0} {
		in.RiskIndex = ri
		v := map[string]any{"run_id": in.RunID, "generated_at": in.GeneratedAt, "risk_index": ri, "privacy_score": in.PrivacyScore, "evidence_matrix": entries}
		if got, want := CanonicalDigest(v), Digest(in, matrix); got != want {
			t.Errorf("risk index %v: canonical digest %s, scan digest %s", ri, got, want)
		}
	}
	if got := string(AppendCanonical(nil, map[string]any{"b": []any{nil, true, (*float64)(nil)}, "a": 2.5})); got != `{"a":2.5,"b":[null,true,null]}` {
		t.Errorf("canonical JSON %s", got)
	}
}
