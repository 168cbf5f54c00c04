package benchgen

import (
	"fmt"
	"math/rand"
	"strings"
)

// FrameworksYAML returns a frameworks file for the scorers of size s:
// frameworks frameworks of requirements requirements each. A requirement's
// evidence is one to three risk scorers by key; one in eight also names a
// domain (every scorer of it, about a seventh of them), one in ten shares
// a requirement of another framework (same_as), and met_at varies.
func FrameworksYAML(s Size, frameworks, requirements int, seed int64) string {
	r := rand.New(rand.NewSource(seed))
	levels := []string{"low", "medium", "high", "critical"}
	var b strings.Builder
	b.WriteString("frameworks:\n")
	for f := 0; f < frameworks; f++ {
		fmt.Fprintf(&b, "  - key: fw-%02d\n    name: Framework %d\n    source: https://example.org/fw-%02d\n    requirements:\n", f, f, f)
		for q := 0; q < requirements; q++ {
			var keys []string
			for k := 0; k < 1+r.Intn(3); k++ {
				keys = append(keys, fmt.Sprintf("scorer-%04d", r.Intn(s.Scorers)))
			}
			keys = unique(keys)
			ev := "risk_scorers: [" + strings.Join(keys, ", ") + "]"
			if r.Intn(8) == 0 {
				ev += fmt.Sprintf(", domains: [domain-%d]", r.Intn(7))
			}
			fmt.Fprintf(&b, "      - {key: R%03d, title: Requirement %d of framework %d, evidence: {%s}, met_at: %s", q, q, f, ev, levels[r.Intn(len(levels))])
			if frameworks > 1 && r.Intn(10) == 0 {
				other := (f + 1 + r.Intn(frameworks-1)) % frameworks
				fmt.Fprintf(&b, ", same_as: [fw-%02d/R%03d]", other, r.Intn(requirements))
			}
			b.WriteString("}\n")
		}
	}
	return b.String()
}

func unique(in []string) []string {
	seen := map[string]bool{}
	out := in[:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
