package agentleak

import "testing"

func TestIDSet(t *testing.T) {
	var s idSet
	for _, id := range []int{3, 3, 0, 63, 64, 200, 64} {
		s.add(id)
	}
	if s.n != 5 {
		t.Fatalf("5 distinct ids added, set holds %d", s.n)
	}
	s.reset()
	if s.n != 0 {
		t.Fatalf("reset left %d ids", s.n)
	}
	// After a reset every id counts again.
	s.add(200)
	s.add(3)
	s.add(200)
	if s.n != 2 {
		t.Fatalf("2 distinct ids after reset, set holds %d", s.n)
	}
}
