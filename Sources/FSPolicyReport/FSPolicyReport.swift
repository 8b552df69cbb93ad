// FSPolicyReport — every command's output document.
//
// `check`'s JSON, JUnit and SARIF (`Reports.swift`), keychain reports, and `fspolicy report`'s
// self-contained HTML page (`HTMLReport`, its data, script and style). Pure.
//
// Depends on the core, FSPolicyFormat, FSPolicyRender and FSPolicyAudit.
