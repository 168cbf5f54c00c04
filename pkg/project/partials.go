package project

import (
	"context"

	"github.com/lfcli/lf/pkg/risk"
)

// RiskPartials returns the risk partials the store keeps under signature
// (timeline is then a risk.PartialStore: histories read runs' partials
// instead of their values).
func (t timeline) RiskPartials(ctx context.Context, signature string) (map[risk.RunRef][]byte, error) {
	return t.st.RiskPartials(ctx, signature)
}

// PutRiskPartials keeps partials in the store.
func (t timeline) PutRiskPartials(ctx context.Context, signature string, partials map[risk.RunRef][]byte) error {
	return t.st.PutRiskPartials(ctx, signature, partials)
}
