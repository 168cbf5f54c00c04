package project

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/store"
)

// StoredAIApps returns the ai_apps entries stored for st's app, in key
// order (an app holds at most its own: CheckAIAppKeys).
func StoredAIApps(ctx context.Context, st *store.Store) ([]*model.AIApp, error) {
	es, err := st.Entities(ctx, model.KindAIApp)
	if err != nil {
		return nil, diag.Internal(err)
	}
	out := make([]*model.AIApp, 0, len(es))
	for _, e := range es {
		var a model.AIApp
		if err := json.Unmarshal([]byte(e.Body), &a); err != nil {
			return nil, diag.Internal(fmt.Errorf("stored ai-app %q: %w", e.Key, err))
		}
		out = append(out, &a)
	}
	return out, nil
}

// describedApp returns the ai_apps entry of st's app that describes it
// (its key is the app's), or nil.
func describedApp(ctx context.Context, st *store.Store) (*model.AIApp, error) {
	apps, err := StoredAIApps(ctx, st)
	if err != nil {
		return nil, err
	}
	for _, a := range apps {
		if a.Key == st.App() {
			return a, nil
		}
	}
	return nil, nil
}

// CheckAIAppKeys reports every ai_apps entry of the batch whose key is not
// app, the app the command writes: an entry describes the app it is stored
// in, so that the portfolio reads each app's own description. No app (a
// store from before apps) takes any key.
func (b *Batch) CheckAIAppKeys(app string) diag.List {
	var diags diag.List
	if app == store.NoApp {
		return nil
	}
	for _, e := range b.Entities {
		if e.Kind != model.KindAIApp || e.Key == app {
			continue
		}
		diags = append(diags, e.Errorf("/key", "ai app %q is not the app this project writes (%q): an ai_apps entry describes its own app; set app: %s in lf.yaml or pass --app %s to write that app", e.Key, app, e.Key, e.Key))
	}
	return diags
}

// AppDescriptions returns the ai_apps entry describing each app of apps
// that has one, by app (st opened with no app, as for Portfolio).
func AppDescriptions(ctx context.Context, st *store.Store, apps []store.AppInfo) (map[string]*model.AIApp, error) {
	out := map[string]*model.AIApp{}
	for _, a := range apps {
		desc, err := describedApp(ctx, &store.Store{Backend: st.Backend.ForApp(a.App), Path: st.Path})
		if err != nil {
			return nil, err
		}
		if desc != nil {
			out[a.App] = desc
		}
	}
	return out, nil
}
