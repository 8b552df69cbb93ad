/// Checks a binary property list (`bplist00`) before Foundation reads it: Foundation on Linux
/// crashes on some malformed ones (a `set` object, which no property list holds, ended in a
/// segmentation fault while bridging it; found by the `plist` fuzz target). The check walks the
/// format as Apple's CFBinaryPList.c defines it: the trailer, the offset table, every object
/// reachable from the top one, with object types a property list can hold (no sets, no keyed
/// archiver UIDs), references inside the table, dictionary keys that are strings, and no object
/// containing itself.
enum BinaryPlistCheck {
    /// Nil when the data may be handed to Foundation; otherwise why not.
    static func problem(_ d: [UInt8]) -> String? {
        guard d.count >= 8 + 32, d.starts(with: Array("bplist0".utf8)) else { return "a binary property list too short to hold its trailer" }
        func uint(_ at: Int, _ size: Int) -> Int? {
            guard size >= 1, size <= 8, at >= 0, at + size <= d.count else { return nil }
            var v: UInt64 = 0
            for i in 0..<size { v = v << 8 | UInt64(d[at + i]) }
            return v > UInt64(Int.max) ? nil : Int(v)
        }
        let t = d.count - 32
        let offsetSize = Int(d[t + 6]), refSize = Int(d[t + 7])
        guard let count = uint(t + 8, 8), let top = uint(t + 16, 8), let table = uint(t + 24, 8),
            (1...8).contains(offsetSize), (1...8).contains(refSize), count >= 1, top < count,
            table >= 8, table <= t, count <= (t - table) / offsetSize
        else {
            return "its trailer gives sizes or places outside the file"
        }
        func offset(_ i: Int) -> Int? {
            guard let o = uint(table + i * offsetSize, offsetSize), o >= 8, o < table else { return nil }
            return o
        }
        /// The count of an object whose low nibble is 0xF: an int object follows.
        func length(_ o: Int) -> (count: Int, start: Int)? {
            let low = Int(d[o] & 0x0F)
            if low != 0x0F { return (low, o + 1) }
            guard o + 1 < table, d[o + 1] & 0xF0 == 0x10 else { return nil }
            let size = 1 << Int(d[o + 1] & 0x0F)
            guard let n = uint(o + 2, size) else { return nil }
            return (n, o + 2 + size)
        }
        var state = [UInt8](repeating: 0, count: count)  // 0 unseen, 1 on the path, 2 done
        var stack: [(obj: Int, refs: [Int], next: Int)] = []
        func enter(_ i: Int, asKey: Bool) -> String? {
            if state[i] == 1 { return "an object contains itself" }
            if state[i] == 2 { return nil }
            guard let o = offset(i) else { return "an object's offset is outside the object table" }
            let marker = d[o], kind = marker >> 4
            if asKey && kind != 0x5 && kind != 0x6 { return "a dictionary key is not a string" }
            switch kind {
            case 0x0: guard [0x00, 0x08, 0x09, 0x0F].contains(marker) else { return "an unknown object type" }
            case 0x1, 0x2: guard marker & 0x0F <= 3, o + 1 + (1 << Int(marker & 0x0F)) <= table else { return "a number runs past its end" }
            case 0x3: guard marker == 0x33, o + 9 <= table else { return "a date runs past its end" }
            case 0x4, 0x5, 0x6:
                guard let (n, start) = length(o) else { return "a length runs past its end" }
                let bytes = kind == 0x6 ? n.multipliedReportingOverflow(by: 2) : (partialValue: n, overflow: false)
                guard !bytes.overflow, start + bytes.partialValue <= table else { return "a value runs past its end" }
            case 0xA, 0xD:
                guard let (n, start) = length(o) else { return "a length runs past its end" }
                let total = kind == 0xD ? n.multipliedReportingOverflow(by: 2) : (partialValue: n, overflow: false)
                guard !total.overflow, total.partialValue <= (table - start) / refSize else { return "a collection runs past its end" }
                var refs: [Int] = []
                for k in 0..<total.partialValue {
                    guard let r = uint(start + k * refSize, refSize), r < count else { return "a reference outside the object table" }
                    refs.append(r)
                }
                state[i] = 1
                stack.append((i, refs, 0))
                return nil
            case 0x8: return "a keyed archiver's UID, which no property list of settings holds"
            default: return kind == 0xC ? "a set, which no property list holds" : "an unknown object type"
            }
            state[i] = 2
            return nil
        }
        if let p = enter(top, asKey: false) { return p }
        while !stack.isEmpty {
            let last = stack.count - 1
            let (obj, refs, next) = stack[last]
            if next == refs.count { state[obj] = 2; stack.removeLast(); continue }
            stack[last].next += 1
            // A dictionary's references are its keys, then its values.
            let isDict = offset(obj).map { d[$0] >> 4 == 0xD } ?? false
            if let p = enter(refs[next], asKey: isDict && next < refs.count / 2) { return p }
        }
        return nil
    }
}
