package agentleak

// dataType is what the engine knows about one data type: its sensitivity
// level (1 public-ish .. 4 special category) and the detector family.
type dataType struct {
	level    int
	severity string
	conf     float64
	detector string
}

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

// builtinTypes are the pattern data types with their level, severity and
// confidence as AgentLeak reports them.
var builtinTypes = map[string]dataType{
	"email":                     {2, "medium", 0.95, famPII},
	"ssn":                       {4, "high", 0.85, famPII},
	"sin":                       {4, "high", 0.8, famPII},
	"phone_number":              {2, "medium", 0.65, famPII},
	"credit_card":               {4, "high", 0.95, famPII},
	"ip_address":                {2, "low", 0.6, famPII},
	"date_of_birth":             {3, "medium", 0.75, famPII},
	"person_name":               {1, "medium", 0.55, famPII},
	"address":                   {3, "high", 0.7, famPII},
	"postal_code":               {3, "medium", 0.6, famPII}, // reported as data type address
	"client_identifier":         {2, "medium", 0.7, famPII},
	"national_insurance_number": {4, "high", 0.8, famPII},

	"api_key":           {4, "critical", 0.9, famSecrets},
	"access_token":      {4, "critical", 0.85, famSecrets},
	"private_key":       {4, "critical", 0.95, famSecrets},
	"jwt":               {4, "high", 0.85, famSecrets},
	"aws_access_key":    {4, "critical", 0.97, famSecrets},
	"github_token":      {4, "critical", 0.95, famSecrets},
	"slack_token":       {4, "critical", 0.9, famSecrets},
	"stripe_key":        {4, "critical", 0.95, famSecrets},
	"llm_api_key":       {4, "critical", 0.95, famSecrets},
	"google_api_key":    {4, "critical", 0.93, famSecrets},
	"bearer_token":      {4, "high", 0.8, famSecrets},
	"connection_string": {4, "high", 0.75, famSecrets},
	"secret_assignment": {4, "high", 0.65, famSecrets},

	"health_identifier": {4, "critical", 0.85, famHealthcare},
	"health_condition":  {4, "medium", 0.7, famHealthcare},
	"medication":        {4, "medium", 0.65, famHealthcare},

	"account_number":  {4, "high", 0.8, famFinance},
	"iban":            {4, "high", 0.75, famFinance},
	"credit_score":    {3, "medium", 0.8, famFinance},
	"income":          {3, "medium", 0.7, famFinance},
	"balance":         {3, "medium", 0.7, famFinance},
	"account_balance": {3, "medium", 0.6, famFinance},
	"loan_amount":     {3, "medium", 0.65, famFinance},
	"internal_note":   {3, "high", 0.7, famFinance},

	"salary":              {3, "high", 0.75, famHR},
	"sick_leave":          {4, "high", 0.75, famHR},
	"disciplinary_action": {3, "high", 0.8, famHR},
	"performance_review":  {2, "medium", 0.7, famHR},
	"employment_status":   {3, "medium", 0.6, famHR},
	"hr_complaint":        {2, "medium", 0.7, famHR},
}

// defaultLevel is the level of a data type the engine has no entry for
// (vault fields, custom detectors without a level).
func defaultLevel(dt string) int {
	if t, ok := builtinTypes[dt]; ok {
		return t.level
	}
	switch dt {
	case "name", "full_name", "first_name", "last_name":
		return 1
	case "phone", "email_address":
		return 2
	case "diagnosis", "condition", "health", "canary", "password", "social_security_number":
		return 4
	}
	return 3
}

// severityFor maps a level to the severity keyname and vault findings get.
func severityFor(level int) string {
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

// levelForSeverity is the level of a custom detector that names none.
func levelForSeverity(sev string) int {
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
