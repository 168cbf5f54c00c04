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
	if limit <= 0 {
		limit = -1
	}
	rows, err := e.st.DB.QueryContext(ctx, `SELECT calculated_at, score FROM (
		SELECT calculated_at, score FROM agentrisk_history WHERE tenant_id = ? AND agent_id = ?
		ORDER BY calculated_at DESC LIMIT ?) ORDER BY calculated_at`, tenantID, agentID, limit)
	if err != nil {
		return nil, fmt.Errorf("agentrisk: %w", err)
	}
	defer rows.Close()
	var out []HistoryPoint
	for rows.Next() {
		var ts string
		var p HistoryPoint
		if err := rows.Scan(&ts, &p.Score); err != nil {
			return nil, fmt.Errorf("agentrisk: %w", err)
		}
		p.At = parseTime(ts)
		out = append(out, p)
	}
	return out, rows.Err()
}
