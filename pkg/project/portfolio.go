package project

import (
	"context"
	"time"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/risk"
	"github.com/lfcli/lf/pkg/store"
)

// AppDomains is one app of a portfolio: its description (ai_apps, when
// the app has one), its domains at a glance and the worst level across them.
type AppDomains struct {
	App         string               `json:"app"`
	DisplayName string               `json:"display_name,omitempty"`
	KeyInfo     *model.AIAppKeyInfo  `json:"key_info,omitempty"`
	Worst       risk.Level           `json:"worst"`
	Domains     []risk.DomainSummary `json:"domains"`
}

// Portfolio scores every app of the store (st opened with no app), now or
// as of at, and summarises each by domain, in app order.
func Portfolio(ctx context.Context, st *store.Store, at time.Time) ([]AppDomains, error) {
	apps, err := st.Apps(ctx)
	if err != nil {
		return nil, diag.Internal(err)
	}
	out := make([]AppDomains, 0, len(apps))
	for _, a := range apps {
		app := &store.Store{Backend: st.Backend.ForApp(a.App), Path: st.Path}
		res, err := Overview(ctx, app, OverviewFilter{At: at})
		if err != nil {
			return nil, err
		}
		ds := risk.Domains(res)
		all := risk.Domains(relabel(res))
		worst := risk.NoData
		if len(all) > 0 {
			worst = all[0].Worst
		}
		ad := AppDomains{App: a.App, Worst: worst, Domains: ds}
		desc, err := describedApp(ctx, app)
		if err != nil {
			return nil, err
		}
		if desc != nil {
			ad.DisplayName, ad.KeyInfo = desc.DisplayName, desc.KeyInfo
		}
		out = append(out, ad)
	}
	return out, nil
}

// relabel puts every result in one domain, for the worst level of an app.
func relabel(res []risk.Result) []risk.Result {
	out := make([]risk.Result, len(res))
	for i, r := range res {
		out[i] = risk.Result{Level: r.Level}
	}
	return out
}
