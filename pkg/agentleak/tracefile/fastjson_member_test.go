package tracefile

import (
	"testing"

	"github.com/lfcli/lf/pkg/internal/jsonlex"
)

// TestMemberWordsMatchPatterns holds decodeEvent's constant member words
// to the patterns built from the key names.
func TestMemberWordsMatchPatterns(t *testing.T) {
	if first := `"event_id": `; firstMemberW0 != jsonlex.LeWord(first[:8]) || firstMemberW1 != jsonlex.LeWord(first[8:]) {
		t.Errorf("first member words %#x %#x, want those of %q", uint64(firstMemberW0), uint64(firstMemberW1), first)
	}
	for _, c := range []struct {
		key    int
		w0, w1 uint64
	}{
		{keyChannel, memberChannelW0, memberChannelW1},
		{keySource, memberSourceW0, memberSourceW1},
		{keyTarget, memberTargetW0, memberTargetW1},
		{keyContent, memberContentW0, memberContentW1},
		{keyMetadata, memberMetadataW0, memberMetadataW1},
		{keyTimestamp, memberTimestampW0, memberTimestampW1},
	} {
		if p := memberPatterns[c.key]; c.w0 != p.w0 || c.w1 != p.w1 {
			t.Errorf("key %d: words %#x %#x, pattern %#x %#x", c.key, c.w0, c.w1, p.w0, p.w1)
		}
	}
}
