import FSPolicy

/// ANSI styling, used only when allowed (a terminal, no NO_COLOR, no --no-color).
public struct Style: Sendable {
    public var enabled: Bool
    public init(enabled: Bool) { self.enabled = enabled }
    /// Colored text is marked with two noncharacters around the color's code; the output
    /// filter (`Escaping.terminal(_:color:)`) turns the marks into the terminal's sequences, so
    /// no escape character in the rendered text can ever come from anywhere but here.
    package static let open = Unicode.Scalar(UInt32(0xFDD0))!
    package static let close = Unicode.Scalar(UInt32(0xFDD1))!
    package func wrap(_ s: String, _ code: String) -> String {
        enabled ? String(Style.open) + code + String(Style.close) + s + String(Style.open) + "0" + String(Style.close) : s
    }
    public func bold(_ s: String) -> String { wrap(s, "1") }
    public func red(_ s: String) -> String { wrap(s, "31") }
    public func green(_ s: String) -> String { wrap(s, "32") }
    public func yellow(_ s: String) -> String { wrap(s, "33") }
    public func dim(_ s: String) -> String { wrap(s, "2") }

    /// The mark that starts color `code` (nothing when disabled), in bytes.
    public func begin(_ code: StaticString, _ b: inout ByteBuffer) {
        guard enabled else { return }
        b.append(Style.openMark)
        b.append(code)
        b.append(Style.closeMark)
    }
    /// The mark that ends a color.
    public func end(_ b: inout ByteBuffer) {
        guard enabled else { return }
        b.append(Style.openMark)
        b.append(0x30)
        b.append(Style.closeMark)
    }
    /// `open` and `close` in UTF-8.
    package static let openMark: (UInt8, UInt8, UInt8) = (0xEF, 0xB7, 0x90)
    package static let closeMark: (UInt8, UInt8, UInt8) = (0xEF, 0xB7, 0x91)
    /// The marks that start bold, in UTF-8.
    package static let boldMarks: [UInt8] = [0xEF, 0xB7, 0x90, 0x31, 0xEF, 0xB7, 0x91]
}
