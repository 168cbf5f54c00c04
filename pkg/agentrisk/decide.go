package agentrisk

import "math"

// tierFor maps a score to a tier: Normal below elevatedThreshold, Elevated
// below highThreshold, High below criticalThreshold, Critical from there.
func tierFor(cfg *RiskConfig, score int) Tier {
	switch {
	case score >= cfg.CriticalThreshold:
		return TierCritical
	case score >= cfg.HighThreshold:
		return TierHigh
	case score >= cfg.ElevatedThreshold:
		return TierElevated
	default:
		return TierNormal
	}
}

// decide is Decide without copies. The rate-limit stage runs first: with
// enforcement on, an effective Elevated or High tier, no active grace period
// and a configured limiter, the tenant-scoped limit is scaled by the tier's
// multiplier. Pre-existing shadow mode turns an over-limit block into a log.
// Then the risk stage (enforcement on only): High forces shadow mode for the
// rest of the request; Critical blocks unless the method is allow-listed, or
// logs the block in pre-existing shadow mode.
func decide(cfg *RiskConfig, agent *AgentState, req *Request, tenantCount int) Decision {
	tier := tierFor(cfg, agent.Score)
	eff := tier
	if agent.OverrideTier != "" {
		eff = agent.OverrideTier
	}
	d := Decision{Tier: tier, EffectiveTier: eff, Action: ActionAllow, Multiplier: 1, Shadow: req.Shadow}

	// Rate-limit stage.
	if rl := cfg.RateLimit; rl != nil && rl.Limit > 0 {
		if cfg.Enabled && !inGrace(cfg, agent) {
			switch eff {
			case TierElevated:
				d.Multiplier = cfg.ElevatedRateMult
			case TierHigh:
				d.Multiplier = cfg.HighRateMult
			}
		}
		if tenantCount >= EffectiveLimit(rl.Limit, d.Multiplier) {
			d.Reason = ReasonRateLimit
			if req.Shadow {
				d.LoggedOnly = true
			} else {
				d.Action = ActionBlock
				return d
			}
		}
	}
	if !cfg.Enabled {
		return d
	}

	// Risk stage.
	switch eff {
	case TierHigh:
		d.Shadow = true
	case TierCritical:
		for _, m := range cfg.CriticalAllowedMethods {
			if m == req.Method {
				return d
			}
		}
		d.Reason = ReasonCriticalRisk
		if req.Shadow {
			d.LoggedOnly = true
		} else {
			d.Action = ActionBlock
		}
	}
	return d
}

// inGrace reports whether the agent entered its tier less than
// gracePeriodSeconds ago. An unknown time in tier counts as long ago.
func inGrace(cfg *RiskConfig, agent *AgentState) bool {
	return agent.SecondsInTier != nil && *agent.SecondsInTier < float64(cfg.GracePeriodSeconds)
}

// EffectiveLimit is the tenant limit scaled by the multiplier, rounded down
// but never below 1 request per window. A request is over the limit when the
// tenant already used EffectiveLimit requests in the window.
func EffectiveLimit(limit int, mult float64) int {
	f := math.Floor(float64(limit)*mult + 1e-9)
	if f >= math.MaxInt32 { // no overflow whatever the limit (validated configs stop at MaxRateLimit)
		return math.MaxInt32
	}
	n := int(f)
	if n < 1 {
		n = 1
	}
	return n
}
