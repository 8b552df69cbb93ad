import Foundation

/// An entry of `expect:` of the common shape read at once (`quickEntry`), and the words the
/// quick expectation reading (`PolicyLoader+QuickExpect.swift`) shares with it.
extension FastYAMLParser {

    /// Whether `word` (`shortKeyWord`'s form) is a key `quickEntry` takes: one of the quick
    /// reading's of `expect:` (`Compiler.quickExpectKeys`); its bit (bit k for the k-th key,
    /// as `Compiler.quickKey` reads it), or 0. (`QuickEntryTests`
    /// holds these words to the keys' bytes.)
    @inline(__always) package static func entryKeyBit(_ word: UInt64) -> UInt32 {
        switch word {
        case 0x0200_0000_0000_7361: return 1  // as
        case 0x0200_0000_0000_706F: return 1 << 1  // op
        case 0x0400_0000_6874_6170: return 1 << 2  // path
        case 0x0600_746C_7573_6572: return 1 << 3  // result
        case 0x0500_006F_6E72_7265: return 1 << 4  // errno
        case 0x0500_0072_6579_616C: return 1 << 5  // layer
        case 0x0400_0000_656D_616E: return 1 << 6  // name
        case 0x0500_0072_6574_6661: return 1 << 7  // after
        case 0x0400_0000_746E_6968: return 1 << 8  // hint
        default: return 0
        }
    }

    /// Whether `quickEntry` takes byte `b` in a plain scalar: a letter, a digit or one of
    /// `_./~-`, each a byte `flowScalar` reads on past (bit b of the 128-bit set).
    @inline(__always) package static func entryPlain(_ b: UInt8) -> Bool {
        b < 64
            ? (0x03FF_E000_0000_0000 as UInt64) >> UInt64(b) & 1 != 0
            : b < 128 && (0x47FF_FFFE_87FF_FFFE as UInt64) >> UInt64(b &- 64) & 1 != 0
    }

    /// The flow mapping at `i` (a `{`), when it is one line of the shape most `expect:` entries
    /// have (`{as: bob, op: read, path: "/srv/a", result: allow}`): keys of the quick reading
    /// (`entryKeyBit`), each once, each followed by `: `; values plain scalars of the bytes
    /// `entryPlain` takes, not starting with `-`, or double-quoted scalars without a backslash;
    /// `,` between pairs and spaces where `flowMapping` allows them, `}` at the end. Its nodes
    /// and children are made as `flowMapping` makes them (the same nodes for the same bytes)
    /// without its general steps: no scalar read by `flowScalar`, no key compared with another
    /// (a key met twice is the same bit twice). Nil, with nothing read or made, for anything
    /// else: `flowMapping` then reads it (and decides, as for any entry, what to do with it).
    /// An ASCII text only (a column is a byte offset).
    package mutating func quickEntry() -> Int32? {
        guard let base = buf.baseAddress else { return nil }
        let n = buf.count, open = i, from = lineStart
        let l = Int32(line)
        let m = Int32(nodes.count)
        let c0 = Int32(children.count)
        // The nodes made here first (the mapping's, then each key's and value's), then added.
        return withUnsafeTemporaryAllocation(of: FastYAMLDocument.Node.self, capacity: 19) { made -> Int32? in
            var k = open + 1
            var seen: UInt32 = 0
            var count = 1
            while k < n && base[k] == 0x20 { k &+= 1 }
            while true {
                // A key: lowercase letters, then `: `.
                let ks = k
                while k < n && base[k] >= 0x61 && base[k] <= 0x7A { k &+= 1 }
                let kl = k &- ks
                guard kl >= 1, kl <= 7, k + 1 < n, base[k] == 0x3A, base[k + 1] == 0x20 else { return nil }
                let bit = Self.entryKeyBit(shortKeyWord(ks, kl))
                guard bit != 0, seen & bit == 0 else { return nil }
                seen |= bit
                made[count] = .init(line: l, offset: ks &- from, kind: 0, style: 0, a: ks, b: kl)
                k &+= 2
                while k < n && base[k] == 0x20 { k &+= 1 }
                // A value.
                guard k < n else { return nil }
                if base[k] == 0x22 {
                    let q = k
                    k &+= 1
                    // Eight bytes at a time while none is a quote, a backslash or a line feed.
                    while k + 8 <= n {
                        let w = UnsafeRawPointer(base).loadUnaligned(fromByteOffset: k, as: UInt64.self)
                        if SWAR.hasByte(w, 0x22) | SWAR.hasByte(w, 0x5C) | SWAR.hasByte(w, 0x0A) != 0 { break }
                        k &+= 8
                    }
                    while k < n && base[k] != 0x22 {
                        if base[k] == 0x5C || base[k] == 0x0A { return nil }
                        k &+= 1
                    }
                    guard k < n else { return nil }
                    // A quoted scalar's node is where its opening quote is.
                    made[count &+ 1] = .init(line: l, offset: q &- from, kind: 0, style: 2, a: q &+ 1, b: k &- q &- 1)
                    k &+= 1
                } else {
                    let vs = k
                    guard base[k] != 0x2D, Self.entryPlain(base[k]) else { return nil }
                    k &+= 1
                    while k < n && Self.entryPlain(base[k]) { k &+= 1 }
                    made[count &+ 1] = .init(line: l, offset: vs &- from, kind: 0, style: 0, a: vs, b: k &- vs)
                }
                count &+= 2
                while k < n && base[k] == 0x20 { k &+= 1 }
                guard k < n else { return nil }
                if base[k] == 0x2C {
                    guard count < 19 else { return nil }
                    k &+= 1
                    while k < n && base[k] == 0x20 { k &+= 1 }
                    continue
                }
                guard base[k] == 0x7D else { return nil }
                k &+= 1
                break
            }
            guard k - from < 1 << 27 else { return nil }
            let pairs = (count - 1) / 2
            made[0] = .init(line: l, offset: open &- from, kind: 1, style: 0, a: Int(c0), b: pairs)
            nodes.append(contentsOf: UnsafeBufferPointer(rebasing: made[0..<count]))
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 18) { kids in
                for c in 0..<(count - 1) { kids[c] = m + 1 + Int32(c) }
                children.append(contentsOf: UnsafeBufferPointer(rebasing: kids[0..<(count - 1)]))
            }
            i = k
            quickEntries += 1
            return m
        }
    }
}
