package agentleak

import (
	"os"
	"strconv"
	"time"

	"github.com/lfcli/lf/pkg/agentleak/compliance"
)

// FindingID is the id the engine gives a finding: its place in detection
// order, 1-based, at least three digits (finding_001, finding_1000).
func FindingID(f *Finding) string {
	n := strconv.Itoa(f.Seq + 1)
	for len(n) < 3 {
		n = "0" + n
	}
	return "finding_" + n
}

// ComplianceInput is what the compliance mapping reads of a result: its
// leaked findings with their ids, the run values and what the privacy
// policy of cfg (nil: the defaults, no policy) checked and found.
// generatedAt is the report time that goes into the integrity digest.
func (r *Result) ComplianceInput(cfg *Config, generatedAt string) compliance.Input {
	in := compliance.Input{RunID: r.RunID, GeneratedAt: generatedAt, RiskIndex: r.RiskIndex, PrivacyScore: r.PrivacyScore, Blocked: r.Blocked}
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Leaked {
			in.Findings = append(in.Findings, compliance.Finding{ID: FindingID(f), Channel: f.Channel, DataType: f.DataType, Level: f.Level})
		}
	}
	if cfg != nil {
		in.Policy = policyFindings(&cfg.Policy, r)
	}
	return in
}

// policyFindings names the privacy policy's assertions and, for each one
// the run broke, the leaked findings that broke it (none for the run-level
// limits on risk index and finding count).
func policyFindings(p *Policy, r *Result) compliance.Policy {
	var out compliance.Policy
	check := func(rule string, declared, broken bool, match func(*Finding) bool) {
		if !declared {
			return
		}
		out.Enabled = true
		out.Assertions = append(out.Assertions, rule)
		if !broken {
			return
		}
		v := compliance.Violation{Rule: rule}
		for i := range r.Findings {
			if f := &r.Findings[i]; f.Leaked && match != nil && match(f) {
				v.FindingIDs = append(v.FindingIDs, FindingID(f))
			}
		}
		if match == nil || len(v.FindingIDs) > 0 {
			out.Violations = append(out.Violations, v)
		}
	}
	check("max_risk_index", p.MaxRiskIndex != nil, p.MaxRiskIndex != nil && r.RiskIndex > *p.MaxRiskIndex, nil)
	check("max_findings", p.MaxFindings != nil, p.MaxFindings != nil && r.LeakedSecrets > *p.MaxFindings, nil)
	check("forbid_levels", len(p.ForbidLevels) > 0, true, func(f *Finding) bool { return containsInt(p.ForbidLevels, f.Level) })
	check("forbid_channels", len(p.ForbidChannels) > 0, true, func(f *Finding) bool { return containsString(p.ForbidChannels, f.Channel) })
	check("forbid_data_types", len(p.ForbidDataTypes) > 0, true, func(f *Finding) bool { return containsString(p.ForbidDataTypes, f.DataType) })
	return out
}

func containsInt(list []int, n int) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ReportTime is the time compliance reports are made at, as the digest
// holds it (Python's isoformat of a UTC time, "2026-01-01T00:00:00+00:00"):
// SOURCE_DATE_EPOCH when it is set (the reproducible-builds convention, so
// that a digest can be reproduced), else now, to the second.
func ReportTime() (string, error) {
	t := time.Now().UTC().Truncate(time.Second)
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return "", &sourceDateError{s}
		}
		t = time.Unix(n, 0).UTC()
	}
	return t.Format("2006-01-02T15:04:05+00:00"), nil
}

type sourceDateError struct{ value string }

func (e *sourceDateError) Error() string {
	return "SOURCE_DATE_EPOCH=" + strconv.Quote(e.value) + " is not a whole number of seconds since 1970"
}
