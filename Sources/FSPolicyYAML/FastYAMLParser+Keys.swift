import FSPolicy
import Foundation

/// Duplicate keys: found in one pass per mapping, set aside, remembered for the report.
extension FastYAMLParser {

    /// The value of scalar `i` as a string (while the document is being read).
    package func value(_ i: Int32) -> String {
        let n = nodes[Int(i)]
        if n.b < 0 { return unescaped[Int(n.a)] }
        return String(decoding: UnsafeBufferPointer(rebasing: buf[Int(n.a)..<Int(n.a + n.b)]), as: UTF8.self)
    }

    /// Keys of one mapping that are equal: scalars with the same value (as Swift strings). Keys
    /// of ASCII bytes taken verbatim from the text are compared as bytes (the same thing for
    /// them); a mapping with any other key compares strings; a key that is a list or a mapping
    /// equals no other. Each later occurrence of a key is set aside with its value and
    /// remembered in `duplicates` (each is reported, and the reading goes on without it).
    package mutating func checkDuplicates(from base: Int) throws {
        let count = (pending.count - base) / 2
        if count < 2 { return }
        // A few keys of ASCII bytes taken verbatim (an entry's fields): compared pair by pair
        // in place; the rest as below.
        if count <= 8 {
            // Keys of up to eight bytes in an ASCII text (an entry's `as`, `op`, `path`, …): each
            // loaded as one word with its length, the words compared.
            if ascii {
                let distinct = withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 8) { w -> Bool in
                    for k in 0..<count {
                        let n = nodes[Int(pending[base + 2 * k])]
                        guard n.kind == 0, n.b >= 0, n.b <= 7 else { return false }
                        let v = shortKeyWord(Int(n.a), Int(n.b))
                        for i in 0..<k where w[i] == v { return false }
                        w[k] = v
                    }
                    return true
                }
                if distinct { return }
            }
            var simple = true
            for j in stride(from: base, to: pending.count, by: 2) where simple {
                let n = nodes[Int(pending[j])]
                if n.b < 0 || n.kind != 0 { simple = false; break }
                // (A text all of ASCII, as `acceptableBytes` found, has no other byte to look for.)
                if !ascii { for k in Int(n.a)..<Int(n.a + n.b) where buf[k] >= 0x80 { simple = false; break } }
            }
            if simple {
                var equal = false
                for j in stride(from: base + 2, to: pending.count, by: 2) where !equal {
                    let n = nodes[Int(pending[j])]
                    for i in stride(from: base, to: j, by: 2) {
                        let o = nodes[Int(pending[i])]
                        if o.b == n.b && memcmpEqual(Int(o.a), Int(n.a), Int(n.b)) { equal = true; break }
                    }
                }
                if !equal { return }
            }
        }
        var kids = Array(pending[base...])
        try checkDuplicates(&kids)
        pending.removeLast(pending.count - base)
        pending.append(contentsOf: kids)
    }

    /// The bytes of a key of up to seven bytes taken verbatim from the text, zero above them,
    /// and its length in the top byte: two such keys are equal when their words are.
    @inline(__always) package func shortKeyWord(_ start: Int, _ length: Int) -> UInt64 {
        Self.shortKeyWord(buf, start, length)
    }

    /// The same in any text (the quick reading's, `Compiler.quickKey`).
    @inline(__always) package static func shortKeyWord(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int) -> UInt64 {
        SWAR.partialWord(buf, start, length) | UInt64(length) << 56
    }

    package mutating func checkDuplicates(_ kids: inout [Int32]) throws {
        let count = kids.count / 2
        if count < 2 { return }
        var found: [(later: Int, first: Int)] = []
        var ascii = true
        for j in stride(from: 0, to: kids.count, by: 2) {
            let n = nodes[Int(kids[j])]
            if n.b < 0 || n.kind != 0 { ascii = false; break }
            if !self.ascii { for k in Int(n.a)..<Int(n.a + n.b) where buf[k] >= 0x80 { ascii = false; break } }
            if !ascii { break }
        }
        if !ascii {
            var seen: [String: Int] = [:]
            var complex: [Int] = []
            for j in stride(from: 0, to: kids.count, by: 2) {
                guard nodes[Int(kids[j])].kind == 0 else { complex.append(j); continue }
                let v = value(kids[j])
                if let f = seen[v] { found.append((j, f)) } else { seen[v] = j }
            }
            // Keys that are lists or mappings: two equal ones are refused (where the first is
            // written), as nothing in a policy file can use them.
            for (n, j) in complex.enumerated() {
                for f in complex[..<n] where same(kids[f], kids[j]) {
                    let k = nodes[Int(kids[f])]
                    var place = lineOffset(Int(k.line))
                    var q = place
                    while q < buf.count && (buf[q] == 0x20 || buf[q] == 0x2D) { q += 1 }
                    if at(q) == 0x3F || at(q) == 0x5B || at(q) == 0x7B { place = q }
                    throw error(
                        at: place, code: "duplicate-key", "a mapping has two equal keys that are lists or mappings",
                        help: "keys in a policy file are plain names and paths; each may appear once")
                }
            }
        } else if strictlyIncreasing(kids) {
            // Keys in increasing byte order (a scan file's or fmt's tree) are all different.
        } else if count <= 8 {
            for j in stride(from: 2, to: kids.count, by: 2) {
                let n = nodes[Int(kids[j])]
                for i in stride(from: 0, to: j, by: 2) {
                    let o = nodes[Int(kids[i])]
                    if o.b == n.b && memcmpEqual(Int(o.a), Int(n.a), Int(n.b)) { found.append((j, i)); break }
                }
            }
        } else {
            // Open addressing over (hash, node) with byte comparison. Each slot holds the high
            // half of its key's hash beside the key's position plus one (0: empty), so that a key
            // is compared with another's bytes only when their hashes agree (in a mapping of
            // another order than increasing, each other key is a cache miss away).
            var cap = 16
            while cap < count * 2 { cap <<= 1 }
            var slots = [UInt64](repeating: 0, count: cap)
            for j in stride(from: 0, to: kids.count, by: 2) {
                let n = nodes[Int(kids[j])]
                let h = World.fnv(UnsafeBufferPointer(rebasing: buf[Int(n.a)..<Int(n.a + n.b)]))
                let tag = h & 0xFFFF_FFFF_0000_0000
                var s = Int(truncatingIfNeeded: h ^ (h >> 29)) & (cap - 1)
                var first = -1
                while slots[s] != 0 {
                    if slots[s] & 0xFFFF_FFFF_0000_0000 == tag {
                        let at = Int(slots[s] & 0xFFFF_FFFF) - 1
                        let o = nodes[Int(kids[at])]
                        if o.b == n.b && memcmpEqual(Int(o.a), Int(n.a), Int(n.b)) { first = at; break }
                    }
                    s = (s + 1) & (cap - 1)
                }
                if first >= 0 { found.append((j, first)) } else { slots[s] = tag | UInt64(j + 1) }
            }
        }
        if found.isEmpty { return }
        for (later, first) in found { duplicates.append((key: kids[later], first: kids[first])) }
        let drop = Set(found.map(\.later))
        var kept: [Int32] = []
        kept.reserveCapacity(kids.count - 2 * drop.count)
        for j in stride(from: 0, to: kids.count, by: 2) where !drop.contains(j) { kept.append(kids[j]); kept.append(kids[j + 1]) }
        kids = kept
    }

    /// Whether the keys (verbatim ASCII scalars) are in strictly increasing byte order.
    package func strictlyIncreasing(_ kids: [Int32]) -> Bool {
        guard let base = buf.baseAddress else { return false }
        var prev = nodes[Int(kids[0])]
        for j in stride(from: 2, to: kids.count, by: 2) {
            let n = nodes[Int(kids[j])]
            let common = Int(min(prev.b, n.b))
            let c = memcmp(base + Int(prev.a), base + Int(n.a), common)
            if c > 0 || (c == 0 && prev.b >= n.b) { return false }
            prev = n
        }
        return true
    }

    @inline(__always) package func memcmpEqual(_ x: Int, _ y: Int, _ n: Int) -> Bool {
        var k = 0
        while k < n { if buf[x + k] != buf[y + k] { return false }; k += 1 }
        return true
    }

    /// Whether nodes `a` and `b` are equal as values (kinds, scalars' values, children in order).
    package func same(_ a: Int32, _ b: Int32) -> Bool {
        let x = nodes[Int(a)], y = nodes[Int(b)]
        guard x.kind == y.kind else { return false }
        if x.kind == 0 { return value(a) == value(b) }
        guard x.b == y.b else { return false }
        let count = x.kind == 1 ? 2 * Int(x.b) : Int(x.b)
        for c in 0..<count where !same(children[Int(x.a) + c], children[Int(y.a) + c]) { return false }
        return true
    }

    /// The offset where line `n` (1-based) begins.
    package func lineOffset(_ n: Int) -> Int {
        var line = 1, k = 0
        while line < n, k < buf.count {
            if buf[k] == 0x0A { line += 1 }
            k += 1
        }
        return k
    }
}
