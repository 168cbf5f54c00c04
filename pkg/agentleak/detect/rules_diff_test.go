package detect

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/lfcli/lf/pkg/internal/testfiles"
)

// TestFastRulesMatchPlainOnPreTexts holds the fast path to the plain
// expressions on the necessary-check tests' texts, which add to the
// differential test's fragments every kind of space the rules' \s takes
// (\x1c-\x1f among them) inside the shapes the rules want.
func TestFastRulesMatchPlainOnPreTexts(t *testing.T) {
	t.Parallel()
	testfiles.SkipUnlessFull(t)
	for i, text := range preTexts(12, 3000) {
		for _, fam := range familySets()[:1] {
			fast, plain := fastRules(fam, text), plainRulesList(fam, text)
			if !reflect.DeepEqual(fast, plain) {
				t.Fatalf("%s: %q\nfast:  %q\nplain: %q", fmt.Sprint("text ", i), text, fast, plain)
			}
		}
	}
}
