package agentleak

import (
	"fmt"
	"testing"
)

// TestRecordKeysMatchTaskKeys: the recorder's keys are TaskKeys' keys, for
// repeated scenario ids, repeated run ids and ids that look like generated
// keys.
func TestRecordKeysMatchTaskKeys(t *testing.T) {
	var want TaskKeys
	var got recordKeys
	ids := [][2]string{{"a@r#3", "x"}}
	for rep := 0; rep < 40; rep++ {
		for _, s := range []string{"a", "b", "a@r"} {
			ids = append(ids, [2]string{s, "r"}, [2]string{s, fmt.Sprint("r", rep%3)})
		}
	}
	for i, id := range ids {
		if w, g := want.Next(id[0], id[1]), got.Next(id[0], id[1]); w != g {
			t.Fatalf("trace %d (%s, %s): key %q, TaskKeys gives %q", i, id[0], id[1], g, w)
		}
	}
}
