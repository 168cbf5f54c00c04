package detect

// Detector families, as named in a config's `detectors` section.
const (
	famPII        = "pii"
	famSecrets    = "secrets"
	famHealthcare = "healthcare"
	famFinance    = "finance"
	famHR         = "hr"
	famKeyname    = "keyname"
)

// Families lists the built-in detector families.
var Families = []string{famPII, famSecrets, famHealthcare, famFinance, famHR, famKeyname}

var detectorName = map[string]string{
	famPII:        "pii_detector",
	famSecrets:    "secrets_detector",
	famHealthcare: "healthcare_detector",
	famFinance:    "finance_detector",
	famHR:         "hr_detector",
	famKeyname:    "keyname_detector",
}

// DefaultLevel is the level of a data type found by other means than its
// built-in detector (key names, vault fields): the built-in detectors'
// level for their data types, the engine's for a few others, else 3.
func DefaultLevel(dt string) int {
	if l, ok := detectorLevels()[dt]; ok {
		return l
	}
	switch dt {
	case "name", "full_name", "first_name", "last_name":
		return 1
	case "phone", "email_address":
		return 2
	case "diagnosis", "condition", "health", "canary", "password", "social_security_number", "api_key", "access_token":
		return 4
	}
	return 3
}

// SeverityFor maps a level to the severity keyname and vault findings get.
func SeverityFor(level int) string {
	switch level {
	case 4:
		return "critical"
	case 3:
		return "high"
	case 2:
		return "medium"
	}
	return "low"
}

// LevelForSeverity is the level of a custom detector that names none.
func LevelForSeverity(sev string) int {
	switch sev {
	case "critical":
		return 4
	case "high":
		return 3
	case "medium":
		return 2
	}
	return 1
}
