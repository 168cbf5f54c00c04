package cli

import (
	"context"

	"github.com/lfcli/lf/pkg/model"
	"github.com/lfcli/lf/pkg/output"
	"github.com/lfcli/lf/pkg/project"
	"github.com/lfcli/lf/pkg/store"
)

// listAIApps is `lf list ai-apps`: the app's ai_apps entry with its key
// information.
func listAIApps(ctx context.Context, env *Env, st *store.Store, format string) error {
	apps, err := project.StoredAIApps(ctx, st)
	if err != nil {
		return err
	}
	if format == "json" {
		return output.JSON(env.Stdout, apps)
	}
	var table [][]string
	for _, a := range apps {
		ki := keyInfoOf(a.KeyInfo)
		table = append(table, []string{
			a.Key, a.DisplayName, orDash(ki.LifecycleStage), orDash(ki.UserTypes), orDash(ki.DataClassification),
			yesNo(ki.HasPIIAccess), yesNo(ki.HasClientDataAccess), orDash(ki.BuiltBy),
		})
	}
	return output.Table(env.Stdout, []string{"KEY", "NAME", "STAGE", "USERS", "DATA", "PII", "CLIENT DATA", "BUILT BY"}, table)
}

// keyInfoOf is ki, or the key information of an app that gives none.
func keyInfoOf(ki *model.AIAppKeyInfo) model.AIAppKeyInfo {
	if ki == nil {
		return model.AIAppKeyInfo{}
	}
	return *ki
}

// yesNo shows a key information flag: "-" when it is not given.
func yesNo(b *bool) string {
	switch {
	case b == nil:
		return "-"
	case *b:
		return "yes"
	default:
		return "no"
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
