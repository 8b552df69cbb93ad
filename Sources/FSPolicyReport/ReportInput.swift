import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender

/// One policy file of a report, with what the report is asked about.
public struct ReportInput {
    public var policy: Policy
    /// The users of the grid (name, subject), in the order given.
    public var users: [(name: String, subject: Subject)]
    /// The operations of the grid; every one must have an answer per node (no extra values).
    public var ops: [Operation]
    /// The rule sets: the first decides, the others are compared with it.
    public var semantics: [Semantics]
    /// The ops a node's grid shows, by its type: indexes into `ops` for a directory and for
    /// anything else (nil: every op on every node).
    public var opsByType: (file: [Int], directory: [Int])?

    public init(
        policy: Policy, users: [(name: String, subject: Subject)], ops: [Operation], semantics: [Semantics],
        opsByType: (file: [Int], directory: [Int])? = nil
    ) {
        self.policy = policy
        self.users = users
        self.ops = ops
        self.semantics = semantics
        self.opsByType = opsByType
    }

    /// The subject of the grid's column `name` in `world`: a declared service's process for
    /// `service:NAME` (its capabilities and mount view, laid over that world), else the process
    /// of `subject`'s uid there.
    /// Services whose units make the same changes share one view world (`views`).
    static func subject(_ name: String, _ subject: Subject, in world: World, views: inout ViewWorlds) -> Subject {
        if name.hasPrefix("service:"), let i = world.serviceIndex(String(name.dropFirst("service:".count))) {
            return world.subject(service: i, views: &views)
        }
        return world.subject(uid: subject.uid)
    }

    /// How an explanation names the column `name`: the service, or the uid.
    static func ref(_ name: String, _ subject: Subject) -> SubjectRef {
        name.hasPrefix("service:") ? .service(String(name.dropFirst("service:".count))) : .user(subject.uid)
    }

    /// The indexes of the ops shown for a node.
    func opIndices(directory: Bool) -> [Int] {
        guard let t = opsByType else { return Array(ops.indices) }
        return directory ? t.directory : t.file
    }
}

public struct ReportOptions {
    /// How many grid cells (user × op × rule set) get their full explanation embedded, in all.
    public var explainedCells = 3000
    /// Counterexamples embedded per failing quantified expectation.
    public var maxExamples = 5
    /// Characters of distinct grid rows one file may take; a grid over it is refused as soon as
    /// the rows made so far pass it, before more is decided (docs/cli.md, Limits).
    public var gridLimit = 24_000_000
    /// The `fspolicy` words of the command line shown for a cell whose trace is not embedded.
    public var toolName = "fspolicy"
    public init() {}
}

/// Sizes of the last report built (for benchmarks and tests).
public struct ReportStats: Sendable {
    public var nodes = 0
    public var cells = 0
    public var explainedCells = 0
    public var explainedNodes = 0
    public var decisions = 0
    public var rows = 0
    public var verdicts = 0
}
