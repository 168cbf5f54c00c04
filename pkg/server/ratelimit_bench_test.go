package server

import (
	"context"
	"testing"
	"time"

	"github.com/lfcli/lf/pkg/store"
	"github.com/lfcli/lf/pkg/store/postgres/pgtest"
)

// BenchmarkRateCounter is the rate stage of a verdict: counted alone (one
// process) and with slots leased from PostgreSQL (replicas), where a lease
// of limit/50 slots goes to the store in the background.
func BenchmarkRateCounter(b *testing.B) {
	const limit = 1_000_000
	decide := func(used int) bool { return used < limit }
	b.Run("local", func(b *testing.B) {
		c := newRateCounter()
		now := time.Now()
		for b.Loop() {
			c.do("t1", 3600, limit, now, decide)
		}
	})
	b.Run("shared-postgres", func(b *testing.B) {
		st, err := store.Open(context.Background(), pgtest.New(b))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		coord, _ := st.Coordinator()
		c := newRateCounter()
		c.shared = coord
		now := time.Now()
		for b.Loop() {
			c.do("t1", 3600, limit, now, decide)
		}
	})
}
