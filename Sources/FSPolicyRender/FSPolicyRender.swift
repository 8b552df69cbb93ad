// FSPolicyRender — renderers of decisions.
//
// The words and bytes a decision is shown in: text (`TextRenderer`: verdicts, reasons, traces,
// the learner's trace, tree listings), the JSON of a decision and its evidence
// (`JSON+Decision.swift`), keychain text (`KeychainRenderer`), and the escaping of a line of
// text and of a CSV field (`SafeText.swift`). Pure: it computes text from decisions and never
// decides. One exception, so that renderers and the command line share it: `OutputSink`, the
// one sink every command's output goes through (standard output or `-o FILE`, written through
// FSPolicyIO).
//
// Depends on the core, FSPolicyFormat and FSPolicyIO. Checks (FSPolicyAudit) use it to word mismatches;
// whole reports are put together in FSPolicyReport; the quiz's picture of the world is in
// FSPolicyTeach.
