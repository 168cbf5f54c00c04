package agentleak

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/lfcli/lf/pkg/agentleak/detect"
	"github.com/lfcli/lf/pkg/diag"
	"github.com/lfcli/lf/pkg/kind"
	"github.com/lfcli/lf/pkg/yamlsrc"
)

// Config is an agentleak.yaml: which channels and detectors run, how
// findings are scored and what the privacy policy forbids.
type Config struct {
	ProjectName string
	Channels    map[string]bool // nil: every channel
	Detectors   map[string]bool
	Scoring     Scoring
	Vault       VaultScope
	Custom      []CustomDetector
	Policy      Policy
}

// Scoring holds the AgentRisk settings.
type Scoring struct {
	FailBelow       float64
	BlockOnCritical bool
	Weights         [4]float64
	LevelOverrides  map[string]int
}

// VaultScope sets the audited denominator instead of "everything detected".
type VaultScope struct {
	Levels map[int]int // level -> number of secrets
	RhoS   *float64
}

// CustomDetector is a user regular expression reporting one data type.
type CustomDetector struct {
	Name       string
	Pattern    string
	Severity   string
	DataType   string
	Confidence float64
	Level      int
	re         *regexp.Regexp
}

// Policy is the privacy policy: any violation blocks the trace.
type Policy struct {
	MaxRiskIndex    *float64
	MaxFindings     *int
	ForbidLevels    []int
	ForbidChannels  []string
	ForbidDataTypes []string
}

// DefaultConfig is the configuration used when no file is given, the
// defaults of schemas/agentleak-config.schema.json: every channel and
// detector on, AgentLeak's default scoring.
//
// They are written out here rather than read from an empty file through the
// schema: compiling the schema costs several milliseconds, a large part of
// a small scan's start-up. TestDefaultsFromSchema holds this to what
// ParseConfig makes of an empty file, so the schema stays the source.
func DefaultConfig() *Config {
	c := &Config{Detectors: make(map[string]bool, len(Families))}
	for _, f := range Families {
		c.Detectors[f] = true
	}
	c.Scoring = Scoring{FailBelow: 40, BlockOnCritical: true, Weights: [4]float64{1, 2, 3, 4}}
	return c
}

func (c *Config) channelOn(ch string) bool { return c.Channels == nil || c.Channels[ch] }

// rawConfig mirrors the file; pointers tell absent from zero.
type rawConfig struct {
	Project *struct {
		Name string `json:"name"`
	} `json:"project"`
	Channels  []string        `json:"channels"`
	Detectors map[string]bool `json:"detectors"`
	Scoring   *struct {
		FailBelow       *float64       `json:"fail_below"`
		BlockOnCritical *bool          `json:"block_on_critical"`
		Weights         []float64      `json:"weights"`
		LevelOverrides  map[string]int `json:"level_overrides"`
	} `json:"scoring"`
	Vault *struct {
		Levels any      `json:"levels"`
		RhoS   *float64 `json:"rho_s"`
	} `json:"vault"`
	CustomDetectors []struct {
		Name       string  `json:"name"`
		Pattern    string  `json:"pattern"`
		Severity   string  `json:"severity"`
		DataType   string  `json:"data_type"`
		Confidence float64 `json:"confidence"` // default in the schema
		Level      int     `json:"level"`
	} `json:"custom_detectors"`
	PrivacyPolicy *struct {
		MaxRiskIndex    *float64 `json:"max_risk_index"`
		MaxFindings     *int     `json:"max_findings"`
		ForbidLevels    []int    `json:"forbid_levels"`
		ForbidChannels  []string `json:"forbid_channels"`
		ForbidDataTypes []string `json:"forbid_data_types"`
	} `json:"privacy_policy"`
}

// LoadConfig reads and validates an agentleak.yaml. Warnings (unknown keys)
// come back with a nil error; errors make the config unusable.
func LoadConfig(path, display string) (*Config, diag.List, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, diag.Invalidf("agentleak config %s: %v", display, err)
	}
	return ParseConfig(display, data)
}

// ConfigFile is the file kind agentleak.yaml: an empty file is the
// default config; keys the schema does not define are warnings (AgentLeak
// configs carry keys of their own); defaults of custom detectors come from
// schemas/agentleak-config.schema.json.
var ConfigFile = kind.Kind[rawConfig, struct{}]{
	Name:        "agentleak-config",
	Description: "an AgentLeak config",
	Keys:        []string{"detectors", "channels", "custom_detectors", "privacy_policy", "scoring"},
	Schema:      "agentleak-config",
	EmptyOK:     true,
	Lint: func(doc *yamlsrc.Doc, _ string) diag.List {
		ds := kind.UnknownKeys("agentleak-config", doc, "")
		ds = append(ds, checkPatterns(doc)...)
		return append(ds, redactValuesOff(doc)...)
	},
}

// ParseConfig parses config data; file names it in messages.
func ParseConfig(file string, data []byte) (*Config, diag.List, error) {
	raw, ds := ConfigFile.Parse(file, data, struct{}{}).One()
	if ds.HasErrors() {
		return nil, ds, diag.Invalid(ds)
	}
	// Every default is the schema's, already in raw.
	c := &Config{Detectors: map[string]bool{}}
	if raw.Project != nil {
		c.ProjectName = raw.Project.Name
	}
	if raw.Channels != nil {
		c.Channels = map[string]bool{}
		for _, ch := range raw.Channels {
			c.Channels[ch] = true
		}
	}
	for k, on := range raw.Detectors {
		c.Detectors[k] = on
	}
	if s := raw.Scoring; s != nil {
		if s.FailBelow != nil {
			c.Scoring.FailBelow = *s.FailBelow
		}
		if s.BlockOnCritical != nil {
			c.Scoring.BlockOnCritical = *s.BlockOnCritical
		}
		if len(s.Weights) == 4 {
			copy(c.Scoring.Weights[:], s.Weights)
		}
		c.Scoring.LevelOverrides = s.LevelOverrides
	}
	if v := raw.Vault; v != nil {
		c.Vault.RhoS = v.RhoS
		switch lv := v.Levels.(type) {
		case map[string]any:
			c.Vault.Levels = map[int]int{}
			for k, n := range lv {
				l, _ := strconv.Atoi(strings.TrimPrefix(strings.ToUpper(k), "L"))
				f, _ := n.(float64)
				c.Vault.Levels[l] = int(f)
			}
		case []any:
			c.Vault.Levels = map[int]int{}
			for i, n := range lv {
				f, _ := n.(float64)
				c.Vault.Levels[i+1] = int(f)
			}
		}
	}
	for _, cd := range raw.CustomDetectors {
		re := regexp.MustCompile(cd.Pattern) // checked by checkPatterns
		d := CustomDetector{Name: cd.Name, Pattern: cd.Pattern, Severity: cd.Severity, DataType: cd.DataType, Confidence: cd.Confidence, Level: cd.Level, re: re}
		if d.DataType == "" {
			d.DataType = d.Name
		}
		if d.Level == 0 {
			d.Level = detect.LevelForSeverity(d.Severity)
		}
		c.Custom = append(c.Custom, d)
	}
	if p := raw.PrivacyPolicy; p != nil {
		c.Policy = Policy{MaxRiskIndex: p.MaxRiskIndex, MaxFindings: p.MaxFindings, ForbidLevels: p.ForbidLevels, ForbidChannels: p.ForbidChannels, ForbidDataTypes: p.ForbidDataTypes}
	}
	if ds.HasErrors() {
		return nil, ds, diag.Invalid(ds)
	}
	return c, ds, nil
}

// checkPatterns compiles every custom detector's pattern, so that a bad
// regular expression is reported with the other problems of the file.
func checkPatterns(doc *yamlsrc.Doc) diag.List {
	var out diag.List
	list, _ := doc.Get("/custom_detectors")
	items, _ := list.([]any)
	for i, it := range items {
		m, _ := it.(map[string]any)
		p, ok := m["pattern"].(string)
		if !ok {
			continue
		}
		if _, err := regexp.Compile(p); err != nil {
			out = append(out, doc.Errorf(fmt.Sprintf("/custom_detectors/%d/pattern", i), "invalid regular expression: %v", strings.TrimPrefix(err.Error(), "error parsing regexp: ")))
		}
	}
	return out
}

// redactValuesOff warns about `privacy: {redact_values: false}`: lf
// redacts every value it prints or stores unless the command is given
// --show-values, and a config cannot turn that off (a config is shared in
// the repository; printing secrets is the reader's decision). The key is
// kept in the schema, deprecated, because AgentLeak configs carry it.
func redactValuesOff(doc *yamlsrc.Doc) diag.List {
	if v, _ := doc.Get("/privacy/redact_values"); v == false {
		return diag.List{doc.Warnf("/privacy/redact_values", "redact_values: false has no effect: values are redacted unless --show-values is given")}
	}
	return nil
}

func (p *Policy) violations(res *Result) []string {
	var out []string
	if p.MaxRiskIndex != nil && res.RiskIndex > *p.MaxRiskIndex {
		out = append(out, fmt.Sprintf("policy: risk index %.4f above %g", res.RiskIndex, *p.MaxRiskIndex))
	}
	if p.MaxFindings != nil && res.LeakedSecrets > *p.MaxFindings {
		out = append(out, fmt.Sprintf("policy: %d leaked secrets, at most %d allowed", res.LeakedSecrets, *p.MaxFindings))
	}
	if len(p.ForbidLevels)+len(p.ForbidChannels)+len(p.ForbidDataTypes) == 0 {
		return out
	}
	hit := map[string]bool{}
	for _, f := range res.Findings {
		if !f.Leaked {
			continue
		}
		for _, l := range p.ForbidLevels {
			if f.Level == l && !hit["l"+strconv.Itoa(l)] {
				hit["l"+strconv.Itoa(l)] = true
				out = append(out, fmt.Sprintf("policy: a level %d secret leaked", l))
			}
		}
		for _, ch := range p.ForbidChannels {
			if f.Channel == ch && !hit["c"+ch] {
				hit["c"+ch] = true
				out = append(out, fmt.Sprintf("policy: a secret leaked on forbidden channel %s", ch))
			}
		}
		for _, dt := range p.ForbidDataTypes {
			if f.DataType == dt && !hit["d"+dt] {
				hit["d"+dt] = true
				out = append(out, fmt.Sprintf("policy: forbidden data type %s leaked", dt))
			}
		}
	}
	return out
}
