package agentrisk

import (
	"context"
	"fmt"
	"time"
)

// HistoryPoint is one stored score snapshot of an agent.
type HistoryPoint struct {
	At    time.Time `json:"at"`
	Score int       `json:"score"`
}

// History returns an agent's stored score snapshots, oldest first, at most
// limit of the latest (limit <= 0: all). The HTML report draws them as a
// sparkline.
func (e *Engine) History(ctx context.Context, tenantID, agentID string, limit int) ([]HistoryPoint, error) {
	// The whole history: after the zero time, up to a time no snapshot reaches.
	pts, err := e.st.AgentHistory(ctx, tenantID, agentID, "", "9999-12-31T23:59:59Z")
	if err != nil {
		return nil, fmt.Errorf("agentrisk: %w", err)
	}
	if limit > 0 && len(pts) > limit {
		pts = pts[len(pts)-limit:]
	}
	out := make([]HistoryPoint, len(pts))
	for i, p := range pts {
		out[i] = HistoryPoint{At: parseTime(p.At), Score: p.Score}
	}
	return out, nil
}
