// FSPolicyRender — renderers of decisions.
//
// The words and bytes a decision is shown in: text (`TextRenderer`: verdicts, reasons, traces,
// the learner's trace and pictures, tree listings), the JSON of a decision and its evidence
// (`JSON+Decision.swift`, `ReportSink`), and keychain text (`KeychainRenderer`). Pure: it
// computes text from decisions and never decides.
//
// Depends on the core and FSPolicyFormat. Checks (FSPolicyAudit) use it to word mismatches;
// whole reports are put together in FSPolicyReport.
