import ArgumentParser

/// The exit codes of every command, named by what they mean (docs/cli.md lists which each
/// command uses). 0 is `ExitCode.success` and 64, a command line that cannot be parsed, is
/// `ExitCode.validationFailure`, both from ArgumentParser.
extension ExitCode {
    /// Something the command checks did not hold: an expectation failed, a finding at the
    /// `--fail-on` severity, a change (`diff`, `fmt --check`), a wrong quiz answer, a step that
    /// did not do what it said, a path a scan could not read.
    static let failed = ExitCode(1)
    /// The answer is "denied" (`can`, keychain questions).
    static let denied = ExitCode(2)
    /// Invalid input: a file that does not load, a request that cannot be asked, an output
    /// that cannot be written.
    static let invalid = ExitCode(3)
    /// The answer is unknown (or an expectation is, without `--allow-unknown`).
    static let unknown = ExitCode(4)
}
