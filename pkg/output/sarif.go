package output

import (
	"encoding/json"
	"io"
)

// SARIFVersion is the SARIF version written, and SARIFSchema its schema URI.
const (
	SARIFVersion = "2.1.0"
	SARIFSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
)

// SARIFWriter collects the findings of every value written and, on Close,
// writes one SARIF 2.1.0 log with one run of the tool "lf": a rule per
// distinct RuleID (in order of first appearance) and a result per finding.
type SARIFWriter struct {
	w        io.Writer
	tool     string
	version  string
	findings []Finding
}

// NewSARIF returns a SARIF writer on w naming the tool driver toolVersion.
func NewSARIF(w io.Writer, toolVersion string) *SARIFWriter {
	return &SARIFWriter{w: w, tool: "lf", version: toolVersion}
}

// Write adds v's findings; v must be a Finder.
func (s *SARIFWriter) Write(v any) error {
	f, ok := v.(Finder)
	if !ok {
		return notSupported("sarif", v)
	}
	s.findings = append(s.findings, f.Findings()...)
	return nil
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string        `json:"id"`
	Name                 string        `json:"name,omitempty"`
	ShortDescription     *sarifMessage `json:"shortDescription,omitempty"`
	DefaultConfiguration *sarifConfig  `json:"defaultConfiguration,omitempty"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  int             `json:"ruleIndex"`
	Level      string          `json:"level"`
	Message    sarifMessage    `json:"message"`
	Locations  []sarifLocation `json:"locations,omitempty"`
	Properties map[string]any  `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
	Message          *sarifMessage  `json:"message,omitempty"`
	Properties       map[string]any `json:"properties,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogical struct {
	Name               string `json:"name,omitempty"`
	FullyQualifiedName string `json:"fullyQualifiedName,omitempty"`
	Kind               string `json:"kind,omitempty"`
}

// Close writes the SARIF log.
func (s *SARIFWriter) Close() error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: s.tool, Version: s.version, Rules: []sarifRule{}}}, Results: []sarifResult{}}
	index := map[string]int{}
	for _, f := range s.findings {
		i, ok := index[f.RuleID]
		if !ok {
			i = len(run.Tool.Driver.Rules)
			index[f.RuleID] = i
			r := sarifRule{ID: f.RuleID, Name: f.RuleName, DefaultConfiguration: &sarifConfig{Level: sarifLevel(f.Level)}}
			if f.Description != "" {
				r.ShortDescription = &sarifMessage{Text: f.Description}
			}
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, r)
		}
		res := sarifResult{RuleID: f.RuleID, RuleIndex: i, Level: sarifLevel(f.Level), Message: sarifMessage{Text: f.Message}, Properties: f.Properties}
		if f.URI != "" {
			loc := sarifLocation{PhysicalLocation: &sarifPhysical{ArtifactLocation: sarifArtifact{URI: f.URI}}}
			if f.Line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line}
			}
			if f.Pointer != "" {
				// SARIF has no JSON-pointer region: the pointer goes in the
				// location's property bag, where viewers show it.
				loc.Properties = map[string]any{"jsonPointer": f.Pointer}
			}
			res.Locations = append(res.Locations, loc)
		}
		run.Results = append(run.Results, res)
	}
	enc := json.NewEncoder(s.w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: SARIFSchema, Version: SARIFVersion, Runs: []sarifRun{run}})
}

func sarifLevel(l string) string {
	switch l {
	case "error", "warning", "note", "none":
		return l
	}
	return "warning"
}
