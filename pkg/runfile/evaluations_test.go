package runfile

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"

	"github.com/lfcli/lf/schemas"
)

// TestEvaluationsMatchSchema ties the one list of run-file evaluations to the
// run file's schema: an evaluation added to one and not the other fails.
func TestEvaluationsMatchSchema(t *testing.T) {
	data, err := schemas.FS.ReadFile("run.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties struct {
			Evaluations struct {
				Items struct {
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"items"`
			} `json:"evaluations"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	var inSchema []string
	for k := range s.Properties.Evaluations.Items.Properties {
		inSchema = append(inSchema, k)
	}
	sort.Strings(inSchema)
	if got := Names(); !reflect.DeepEqual(got, inSchema) {
		t.Errorf("evaluations %v, run.schema.json names %v", got, inSchema)
	}
	for _, n := range inSchema {
		ev, ok := Lookup(n)
		if !ok || ev.Run == nil || ev.Name != n {
			t.Errorf("Lookup(%q) = %+v, %v", n, ev, ok)
		}
	}
	if _, ok := Lookup("nonsense"); ok {
		t.Error("Lookup found an evaluation that is not listed")
	}
}
