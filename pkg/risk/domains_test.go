package risk

import (
	"reflect"
	"testing"
)

// TestDomains: the worst level per domain with counts; an error is the
// worst, no_data the least.
func TestDomains(t *testing.T) {
	got := Domains([]Result{
		{Domain: "safety", Level: Low},
		{Domain: "quality", Level: NoData},
		{Domain: "safety", Level: High},
		{Domain: "quality", Level: Medium},
		{Domain: "privacy", Level: Critical},
		{Domain: "privacy", Level: Failed},
		{Domain: "empty", Level: NoData},
	})
	want := []DomainSummary{
		{Domain: "empty", Worst: NoData, Scorers: 1, NoData: 1},
		{Domain: "privacy", Worst: Failed, Scorers: 2, Critical: 1, Error: 1},
		{Domain: "quality", Worst: Medium, Scorers: 2, Medium: 1, NoData: 1},
		{Domain: "safety", Worst: High, Scorers: 2, High: 1, Low: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Domains =\n%+v\nwant\n%+v", got, want)
	}
}
