package model

// AIApp describes the AI app a project's risk scorers and runs belong to,
// as LatticeFlow's `lf app` reference does (schemas/ai_apps.schema.json).
// Its Key is the app's key in the store.
type AIApp struct {
	Key             string        `json:"key"`
	DisplayName     string        `json:"display_name"`
	Description     string        `json:"description,omitempty"`
	LongDescription string        `json:"long_description,omitempty"`
	Tags            []string      `json:"tags,omitempty"`
	KeyInfo         *AIAppKeyInfo `json:"key_info,omitempty"`
}

// AIAppKeyInfo is what decides which risks matter for an AI app. A field
// left out is unknown: "" for the enumerations, nil for the booleans.
type AIAppKeyInfo struct {
	// LifecycleStage is ideation, r_and_d, development, testing, production
	// or retired.
	LifecycleStage string `json:"lifecycle_stage,omitempty"`
	// UserTypes is internal_specialist, internal_all or external.
	UserTypes string `json:"user_types,omitempty"`
	// DataClassification is public, internal, confidential or restricted.
	DataClassification  string `json:"data_classification,omitempty"`
	HasPIIAccess        *bool  `json:"has_pii_access,omitempty"`
	HasClientDataAccess *bool  `json:"has_client_data_access,omitempty"`
	// BuiltBy is in_house or third_party.
	BuiltBy string `json:"built_by,omitempty"`
}
