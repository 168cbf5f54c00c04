package compliance

// The data-type and channel groups the controls are decided by: the
// engine's groupings, as facts (see docs/compliance.md).
var (
	secretTypes     = []string{"private_key", "aws_access_key", "github_token", "slack_token", "stripe_key", "jwt", "connection_string", "secret_assignment", "api_key"}
	healthTypes     = []string{"health_identifier", "health_condition", "medication", "sick_leave"}
	cardholderTypes = []string{"credit_card", "account_number", "iban"}
	educationTypes  = []string{"student_id", "education_record", "school_record", "grade", "transcript"}
	childTypes      = []string{"child", "minor", "student_id", "education_record"}
	financialTypes  = []string{"account_number", "iban", "income", "credit_score", "loan_amount", "account_balance", "financial_record"}
	telecomTypes    = []string{"phone_number", "subscriber_id", "location", "ip_address", "client_identifier"}
	insuranceTypes  = []string{"insurance_id", "policy_number", "claim_number", "health_identifier", "health_condition"}
	piiIDTypes      = []string{"person_name", "name", "ssn", "sin", "date_of_birth", "address", "email", "phone_number", "ip_address", "client_identifier"}
	contactTypes    = []string{"phone_number", "subscriber_id"}

	internalChannels = []string{"tool_call", "shared_memory", "inter_agent_message", "log", "generated_file"}
)

// Frameworks lists the frameworks and their controls in the order every
// evaluation reports them: ids, names and links are the frameworks' own,
// the rationale is lf's one-line reading of why the evidence puts the
// control at risk.
var Frameworks = []FrameworkSpec{
	{ID: "gdpr", Name: "GDPR (EU 2016/679)", URL: "https://eur-lex.europa.eu/eli/reg/2016/679/oj", Controls: []ControlSpec{
		{ID: "gdpr.art5.1c", Name: "Art. 5(1)(c) — Data minimisation", Rationale: "personal data reached internal channels beyond what the task needed", rule: channelsIn(internalChannels)},
		{ID: "gdpr.art5.1b", Name: "Art. 5(1)(b) — Purpose limitation", Rationale: "the privacy policy forbids these channels or data types and they leaked", rule: policyRules("forbid_channels", "forbid_data_types"), needs: []string{"forbid_channels", "forbid_data_types"}},
		{ID: "gdpr.art5.1f", Name: "Art. 5(1)(f) — Integrity & confidentiality", Rationale: "personal data left the agent on these channels", rule: allChannels},
		{ID: "gdpr.art9", Name: "Art. 9 — Special category data", Rationale: "health data, a special category, leaked", rule: typesIn(healthTypes)},
		{ID: "gdpr.art32", Name: "Art. 32 — Security of processing", Rationale: "credentials or keys that protect processing leaked", rule: typesIn(secretTypes)},
		{ID: "gdpr.art25", Name: "Art. 25 — Data protection by design and by default", Rationale: "the policy requires vault-declared data only, and other data was disclosed", rule: policyRules("require_explicit_vault"), needs: []string{"require_explicit_vault"}},
	}},
	{ID: "law25", Name: "Québec Law 25 (Bill 64)", URL: "https://www.legisquebec.gouv.qc.ca/en/document/cs/P-39.1", Controls: []ControlSpec{
		{ID: "law25.sensitive", Name: "Sensitive personal information", Rationale: "sensitive data (level 3 or 4) leaked", rule: sensitiveLevels},
		{ID: "law25.confidentiality", Name: "Confidentiality by default", Rationale: "personal data left the agent on these channels", rule: allChannels},
	}},
	{ID: "nist_ai_rmf", Name: "NIST AI RMF (AI 100-1)", URL: "https://www.nist.gov/itl/ai-risk-management-framework", Controls: []ControlSpec{
		{ID: "nist.measure2.7", Name: "MEASURE 2.7 — Privacy risk assessed", Rationale: "this scan is itself the privacy-risk measurement the control asks for", rule: nothing, info: true},
		{ID: "nist.privacy_enhanced", Name: "Trustworthy AI — Privacy-Enhanced", Rationale: "the risk index is 0.4 or more, or a level 4 secret leaked", rule: privacyEnhanced},
		{ID: "nist.manage1.3", Name: "MANAGE 1.3 — Risk treated before deployment", Rationale: "the run failed its privacy gate", rule: blockedRun},
	}},
	{ID: "owasp_llm", Name: "OWASP LLM Top 10 (2025)", URL: "https://genai.owasp.org/", Controls: []ControlSpec{
		{ID: "owasp.llm02", Name: "LLM02 — Sensitive Information Disclosure", Rationale: "sensitive information was disclosed on these channels", rule: allChannels},
		{ID: "owasp.llm06", Name: "LLM06 — Excessive Agency (tool exposure)", Rationale: "sensitive data was handed to a tool", rule: channelsIn([]string{"tool_call"})},
	}},
	{ID: "eu_ai_act", Name: "EU AI Act (2024/1689)", URL: "https://eur-lex.europa.eu/eli/reg/2024/1689/oj", Controls: []ControlSpec{
		{ID: "euaiact.art10", Name: "Art. 10 — Data governance", Rationale: "sensitive data (level 3 or 4) was not governed within the system", rule: sensitiveLevels},
	}},
	{ID: "hipaa", Name: "HIPAA Privacy & Security Rule (45 CFR 164)", URL: "https://www.hhs.gov/hipaa/for-professionals/privacy/index.html", Controls: []ControlSpec{
		{ID: "hipaa.164.502b", Name: "§164.502(b) — Minimum necessary", Rationale: "health data travelled on internal channels", rule: typesInWhenChannels(healthTypes, internalChannels)},
		{ID: "hipaa.164.312a", Name: "§164.312(a) — Access control & transmission security", Rationale: "health data leaked", rule: typesIn(healthTypes)},
		{ID: "hipaa.164.514", Name: "§164.514 — De-identification", Rationale: "health data leaked together with identifiers", rule: healthWithIdentity},
	}},
	{ID: "pci_dss", Name: "PCI-DSS v4.0", URL: "https://www.pcisecuritystandards.org/", Controls: []ControlSpec{
		{ID: "pci.req3", Name: "Req. 3 — Protect stored account data", Rationale: "cardholder data leaked", rule: typesIn(cardholderTypes)},
		{ID: "pci.req4", Name: "Req. 4 — Protect data in transmission", Rationale: "cardholder data leaked, and these channels carried leaks", rule: channelsWhenTypes(nil, cardholderTypes)},
		{ID: "pci.req3.4", Name: "Req. 3.4 — PAN not exposed in logs / tools", Rationale: "cardholder data leaked while logs, tools or files carried leaks", rule: channelsWhenTypes([]string{"log", "tool_call", "generated_file"}, cardholderTypes)},
	}},
	{ID: "ferpa", Name: "FERPA (20 U.S.C. §1232g)", URL: "https://www.ecfr.gov/current/title-34/subtitle-A/part-99", Controls: []ControlSpec{
		{ID: "ferpa.education_records", Name: "Education records confidentiality", Rationale: "education records leaked", rule: typesIn(educationTypes)},
		{ID: "ferpa.authority", Name: "Access and disclosure authority", Rationale: "data was disclosed internally or in the final output", rule: channelsIn(append([]string{"final_output"}, internalChannels...))},
	}},
	{ID: "coppa", Name: "COPPA (16 CFR Part 312)", URL: "https://www.ecfr.gov/current/title-16/chapter-I/subchapter-C/part-312", Controls: []ControlSpec{
		{ID: "coppa.child_data", Name: "Children's personal information", Rationale: "children's data leaked", rule: typesIn(childTypes)},
		{ID: "coppa.disclosure", Name: "Parental-consent boundary", Rationale: "data was disclosed internally or in the final output", rule: channelsIn(append([]string{"final_output"}, internalChannels...))},
	}},
	{ID: "glba", Name: "GLBA (15 U.S.C. §§6801–6809)", URL: "https://www.ftc.gov/legal-library/browse/statutes/gramm-leach-bliley-act", Controls: []ControlSpec{
		{ID: "glba.nonpublic_personal_information", Name: "Non-public personal information", Rationale: "non-public financial information leaked", rule: typesIn(financialTypes)},
		{ID: "glba.safeguards", Name: "Safeguards rule boundary", Rationale: "data was disclosed internally or in the final output", rule: channelsIn(append([]string{"final_output"}, internalChannels...))},
	}},
	{ID: "tcpa", Name: "TCPA (47 U.S.C. §227)", URL: "https://www.fcc.gov/general/telemarketing-and-robocalls", Controls: []ControlSpec{
		{ID: "tcpa.contact_data", Name: "Contact data protection", Rationale: "contact numbers leaked", rule: typesIn(contactTypes)},
		{ID: "tcpa.outbound_action", Name: "Outbound communication authorization", Rationale: "data went out through a tool or the final output", rule: channelsIn([]string{"tool_call", "final_output"})},
	}},
	{ID: "insurance", Name: "Insurance privacy profile", URL: "https://content.naic.org/insurance-topics/privacy-protection", Controls: []ControlSpec{
		{ID: "insurance.policyholder_data", Name: "Policyholder and claims data", Rationale: "policyholder or claims data leaked", rule: typesIn(insuranceTypes)},
		{ID: "insurance.minimum_necessary", Name: "Minimum necessary disclosure", Rationale: "data travelled on internal channels", rule: channelsIn(internalChannels)},
	}},
	{ID: "telecom", Name: "Telecom privacy profile (CPNI)", URL: "https://www.fcc.gov/general/customer-proprietary-network-information-cpni", Controls: []ControlSpec{
		{ID: "telecom.cpni", Name: "Customer proprietary network information", Rationale: "subscriber or network data leaked", rule: typesIn(telecomTypes)},
		{ID: "telecom.account_boundary", Name: "Subscriber account boundary", Rationale: "data was disclosed internally or in the final output", rule: channelsIn(append([]string{"final_output"}, internalChannels...))},
	}},
	{ID: "real_estate", Name: "Real-estate privacy profile", URL: "https://www.nar.realtor/about-nar/policies/code-of-ethics", Controls: []ControlSpec{
		{ID: "real_estate.client_data", Name: "Client and transaction data", Rationale: "client identity or financial data leaked", rule: typesIn(append(append([]string{}, piiIDTypes...), financialTypes...))},
		{ID: "real_estate.transaction_boundary", Name: "Transaction confidentiality", Rationale: "data travelled on internal channels", rule: channelsIn(internalChannels)},
	}},
}
