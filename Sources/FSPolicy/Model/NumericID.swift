/// A uid or gid written as a number: ASCII decimal digits only (no sign, no spaces), from 0 to
/// 4,294,967,294. 4,294,967,295 is `(uid_t)-1`: to `chown` it means "leave unchanged", and
/// no user or group can have it, so it is not an id.
public func numericID<S: StringProtocol>(_ s: S) -> UInt32? {
    guard !s.isEmpty, s.utf8.count <= 10, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
        let v = UInt32(s), v != UInt32.max
    else { return nil }
    return v
}

/// The text of `(uid_t)-1`, refused wherever an id is expected.
public let noIDText = "4294967295"
