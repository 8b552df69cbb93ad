// FSPolicyAudit — checks and audits.
//
// `check`: the evaluator, expectations and quantified ones, the checked-file reports that
// decide and render in parallel (`Check.swift`), findings and who may run a program. Set
// questions: the set engine behind `matrix` and `access`, `diff` of two worlds, dead grants and
// `lint`, with its findings per file collected under a file's `findings:` section
// (`LintItems.swift`). Pure.
//
// Depends on the core, FSPolicyFormat and FSPolicyRender (mismatches are worded by the text
// renderer).
