import Synchronization

/// Command-line arguments as the bytes the shell gave, not as Swift's decoding of them: a byte
/// that is not part of valid UTF-8 became U+FFFD there, so a path argument named another file
/// (`can … $'/srv/bad\xff'` answered ENOENT for a file that exists; `--output $'out\xff'` wrote
/// `out\u{FFFD}`). Here such a byte is written `\ooo`, the spelling names have in policy files
/// and scan files (`NameEscaping`), so a path in the tree is found whichever way it is typed;
/// and the arguments changed so are remembered, so that a file named by one is opened by its
/// real bytes or refused with a message, never taken for another name.
public enum RawArguments {
    /// The arguments that were not valid UTF-8, as `arguments(_:)` gives them.
    public static var notUTF8: Set<String> { escaped.withLock { $0 } }
    private static let escaped = Mutex<Set<String>>([])

    /// `argv` as strings: each valid UTF-8 argument as it is, any other with every byte outside
    /// a valid sequence written `\ooo` (and remembered in `notUTF8`).
    public static func arguments(_ argv: [[UInt8]]) -> [String] {
        argv.map { bytes in
            if let s = String(validating: bytes, as: UTF8.self) { return s }
            let s = escapingInvalidUTF8(bytes)
            escaped.withLock { _ = $0.insert(s) }
            return s
        }
    }

    /// The process's own arguments, read from `CommandLine.unsafeArgv`.
    public static func fromProcess() -> [String] {
        var raw: [[UInt8]] = []
        for i in 0..<Int(CommandLine.argc) {
            guard let p = CommandLine.unsafeArgv[i] else { continue }
            var n = 0
            while p[n] != 0 { n += 1 }
            raw.append(Array(UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: n)))
        }
        return arguments(raw)
    }

    /// `bytes` as text: valid UTF-8 sequences as they are (a tab, a backslash too), every other
    /// byte as `\ooo`. Text that is valid UTF-8 is unchanged.
    public static func escapingInvalidUTF8(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        var i = 0
        while i < bytes.count {
            let n = validSequenceLength(bytes, at: i)
            if n > 0 {
                out.append(contentsOf: bytes[i..<(i + n)])
                i += n
            } else {
                out.append(contentsOf: NameEscaping.octal(bytes[i]).utf8)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The length of the valid UTF-8 sequence starting at `i` (RFC 3629: no overlong forms,
    /// no surrogates, nothing above U+10FFFF), 0 if none starts there.
    static func validSequenceLength(_ b: [UInt8], at i: Int) -> Int {
        let lead = b[i]
        if lead < 0x80 { return 1 }
        func cont(_ k: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool { i + k < b.count && range.contains(b[i + k]) }
        switch lead {
        case 0xC2...0xDF: return cont(1) ? 2 : 0
        case 0xE0: return cont(1, 0xA0...0xBF) && cont(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return cont(1) && cont(2) ? 3 : 0
        case 0xED: return cont(1, 0x80...0x9F) && cont(2) ? 3 : 0
        case 0xF0: return cont(1, 0x90...0xBF) && cont(2) && cont(3) ? 4 : 0
        case 0xF1...0xF3: return cont(1) && cont(2) && cont(3) ? 4 : 0
        case 0xF4: return cont(1, 0x80...0x8F) && cont(2) && cont(3) ? 4 : 0
        default: return 0
        }
    }

    /// The bytes an argument stands for: its real ones when it was not UTF-8 (`\ooo` undone),
    /// else its text's.
    public static func bytes(of argument: String) -> [UInt8] {
        notUTF8.contains(argument) ? NameEscaping.unescape(argument) : Array(argument.utf8)
    }

    /// Why `path`, an argument, cannot name a file as it is written (nil when it can): it was
    /// not UTF-8, and this call opens files by text.
    public static func fileProblem(_ path: String) -> String? {
        notUTF8.contains(path) ? "the name is not UTF-8 text, and fspolicy names this file by text" : nil
    }
}
