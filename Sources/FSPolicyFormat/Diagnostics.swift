import FSPolicy

/// A position in an input file (1-based line and column).
public struct SourceLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }
    /// `description`'s bytes appended to `b`.
    public func append(to b: inout ByteBuffer) {
        b.append(string: file); b.append(0x3A); b.append(decimal: line); b.append(0x3A); b.append(decimal: column)
    }

    public static func < (a: SourceLocation, b: SourceLocation) -> Bool {
        (a.file, a.line, a.column) < (b.file, b.line, b.column)
    }
}

public enum Severity: String, Sendable {
    case error, warning
}

/// One problem found in an input, with a stable code, a one-line message and an optional hint.
public struct Diagnostic: Hashable, Sendable {
    public var location: SourceLocation
    public var severity: Severity
    /// Stable code, e.g. `unknown-key`, `bad-mode`, `bad-ace`.
    public var code: String
    public var message: String
    public var help: String?

    public init(_ location: SourceLocation, _ severity: Severity = .error, code: String, _ message: String, help: String? = nil) {
        self.location = location
        self.severity = severity
        self.code = code
        self.message = message
        self.help = help
    }

    /// `file:line:column: error: message` and, when there is one, `  help: …` on the next line.
    public var rendered: String {
        var s = "\(Escaping.line(location.description)): \(severity.rawValue): \(Escaping.line(message))"
        if let h = help { s += "\n  help: \(Escaping.line(h))" }
        return s
    }
}

/// Collects diagnostics in the order they are found; `sorted` gives file order.
public struct DiagnosticBag: Sendable {
    public private(set) var items: [Diagnostic] = []
    /// The same diagnostics as a set, so that a repeat is found in constant time.
    private var seen: Set<Diagnostic> = []
    public init() {}
    /// Diagnostics reported so far, repeats included (to tell whether a step reported anything).
    public private(set) var attempts = 0
    public mutating func add(_ d: Diagnostic) {
        attempts += 1
        if seen.insert(d).inserted { items.append(d) }
    }
    public mutating func error(_ loc: SourceLocation, code: String, _ msg: String, help: String? = nil) {
        add(Diagnostic(loc, .error, code: code, msg, help: help))
    }
    public mutating func warning(_ loc: SourceLocation, code: String, _ msg: String, help: String? = nil) {
        add(Diagnostic(loc, .warning, code: code, msg, help: help))
    }
    public mutating func append(contentsOf other: DiagnosticBag) { for d in other.items { add(d) } }
    public var hasErrors: Bool { items.contains { $0.severity == .error } }
    public var sorted: [Diagnostic] { items.sorted { $0.location < $1.location } }
}
