// FSPolicyReport — every command's output document.
//
// `check`'s text (`Reports+Text.swift`), JSON, JUnit and SARIF (`Reports.swift`); `lint`'s text, JSON and SARIF, and the
// JUnit suite of `check --findings` (`LintReports.swift`); `matrix`'s CSV and JSON Lines rows
// (`MatrixReports.swift`); `access`'s CSV, JSON and tree (`AccessReports.swift`); `diff`'s
// text, JSON and SARIF (`DiffReports.swift`); `simulate`'s text and JSON (`SimulateReport`);
// `who`'s (`WhoReport`) and `explain --compare`'s (`CompareReport`); `validate`'s and `fmt`'s
// JSON (`FileReports`); keychain reports (`KeychainReport` in `check`, `KeychainAnswers` for
// `explain --keychain --compare` and `who --keychain`); and `fspolicy report`'s
// self-contained HTML page (`HTMLReport`, its data, script and style). Pure: the command line
// hands it results and writes the bytes it returns, or, for `check`'s long reports, hands it
// the command's `OutputSink` to write them into piece by piece.
//
// Depends on the core, FSPolicyFormat, FSPolicyRender and FSPolicyAudit.
