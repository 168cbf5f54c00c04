package project

import (
	"path/filepath"

	"github.com/lfcli/lf/pkg/yamlsrc"
)

// FileType is a type of YAML file found in a project, told apart by its
// top-level keys, and the schema it is validated against.
type FileType struct {
	Name        string   // e.g. "entities"
	Description string   // for messages, e.g. "a run file"
	Schema      string   // schemas/<Schema>.schema.json
	Keys        []string // top-level keys that identify it (any one); entity files: their schema's sections
}

// EntityFileType is the type of files that hold entities.
var EntityFileType = FileType{Name: "entities", Description: "an entity file", Schema: "project"}

var (
	markerType = FileType{Name: "lf", Description: "the project's lf.yaml", Schema: "lf"}
	fileTypes  = []*FileType{
		{Name: "run", Description: "a run file (use `lf run -f`)", Schema: "run", Keys: []string{"apply", "evaluations"}},
		{Name: "vaults", Description: "an AgentLeak vaults file", Schema: "vaults", Keys: []string{"vaults"}},
		{Name: "agentleak-config", Description: "an AgentLeak config", Schema: "agentleak-config", Keys: []string{"detectors", "channels", "custom_detectors", "privacy_policy", "scoring"}},
		{Name: "risk-config", Description: "a tenant risk config file (use `lf set risk-config -f`)", Schema: "risk-config", Keys: []string{"risk_configs"}},
		{Name: "alert-rules", Description: "an alert rules file", Schema: "alert-rules", Keys: []string{"alert_rules"}},
		{Name: "server-config", Description: "an `lf serve` config", Schema: "server-config", Keys: []string{"apiKeys", "addr", "recalcInterval", "smtp", "webhookAllowHosts"}},
		{Name: "agent-risk-cases", Description: "agent risk decision cases (use `lf agents decide -f`)", Schema: "", Keys: []string{"cases"}},
	}
)

// Classify tells a file's type from its name and top-level keys. Anything
// unrecognised is treated as an entity file, so its schema errors name the
// unknown keys.
func Classify(path string, doc *yamlsrc.Doc) *FileType {
	if filepath.Base(path) == MarkerFile {
		return &markerType
	}
	top, ok := doc.Value.(map[string]any)
	if !ok {
		return &EntityFileType
	}
	for _, k := range orders().section {
		if _, ok := top[k]; ok {
			return &EntityFileType
		}
	}
	for _, t := range fileTypes {
		for _, k := range t.Keys {
			if _, ok := top[k]; ok {
				return t
			}
		}
	}
	return &EntityFileType
}

// Recognised tells whether a file is one of lf's: lf.yaml, or a file with
// a top-level key of one of the file types.
func Recognised(f *File) bool {
	if f.Type == &markerType {
		return true
	}
	top, ok := f.Doc.Value.(map[string]any)
	if !ok {
		return false
	}
	for _, t := range append([]*FileType{&EntityFileType}, fileTypes...) {
		for _, k := range t.identifying() {
			if _, ok := top[k]; ok {
				return true
			}
		}
	}
	return false
}

// identifying returns the top-level keys that identify files of the type.
func (t *FileType) identifying() []string {
	if t == &EntityFileType {
		return orders().section
	}
	return t.Keys
}
