// FSPolicyTeach — teaching: `fspolicy quiz`.
//
// Which expectations and keychain calls are asked as questions (`QuizQuestion.swift`,
// `KeychainQuiz.swift`), the picture of the world shown with each (`WorldPicture.swift`), and
// the quiz run that asks, reveals, grades and scores (`QuizSession.swift`). Reading the answers
// and writing to the terminal stay in the command line. Pure.
//
// Depends on the core, FSPolicyFormat, FSPolicyRender (the learner's trace and explanations)
// and FSPolicyAudit (the evaluator that decides each question).
