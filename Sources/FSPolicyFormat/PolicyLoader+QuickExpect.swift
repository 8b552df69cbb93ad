import FSPolicy
import Dispatch
import FSPolicyYAML

/// The quick reading of `expect:` (issue 20): a file of many expectations is mostly entries like
/// `{as: bob, op: read, path: /srv/a, result: allow}`. Such an entry, as the fast YAML reader
/// stored it, is read straight from the text's bytes into an `Expectation`: no YNode array, no
/// dictionary of keys, and one string per distinct subject or operation for the whole file.
///
/// One grammar: the quick reading takes an entry only when the full reading
/// (`readExpectation`) would take it without a word — every key one of a few, every value a
/// plain or quoted scalar that is not null, a subject that is a declared user, a numeric uid or
/// an app, an operation that needs nothing but its path and is not a step's, a plain path (no
/// pattern), `allow` or `deny`, a known errno or layer — and then gives the same values. Any
/// other entry (other keys, a flow or block collection as a value, an unknown name, anything
/// that would be reported) is read in full, which reports it as before. `FastYAMLTests`
/// compares the two readings, field by field, on every fixture and on generated entries of
/// every form and their mutants.
///
/// What it earns over the full reading is measured where it is chosen
/// (`Compiler.readExpectations`, PolicyLoader+Expect.swift).
extension Compiler {
    /// Keys the quick reading knows, by index: 0 `as`, 1 `op`, 2 `path`, 3 `result`, 4 `errno`,
    /// 5 `layer`, 6 `name`, 7 `after`, 8 `hint`.
    static let quickExpectKeys: [[UInt8]] = ["as", "op", "path", "result", "errno", "layer", "name", "after", "hint"].map { Array($0.utf8) }

    /// Reads the whole `expect:` list (entries of other shapes through `readExpectation`).
    /// False when the node is not a list.
    ///
    /// A long list is read quickly on several threads, each a contiguous part of it into the
    /// slots of one array (the quick reading only reads: the text, the document, the names);
    /// the entries it leaves are then read in full on this thread, in order among the others,
    /// so the expectations and the diagnostics are those of reading the list from first to last.
    ///
    /// `early` is the same reading started before the tree was built (`startQuickRead`), taken
    /// when the names it read with are still the file's (a scan import's tree, `linux:`,
    /// `apps:` or `steps:` may have changed them since: then it is read again).
    mutating func readExpectationsQuickly(_ n: YNode, early: QuickRead? = nil) -> Bool {
        let context = quickContext
        if let early {
            early.done.wait()
            earlyReadTaken = early.context.sameNames(as: context)
        }
        let q: QuickRead
        if let early, earlyReadTaken == true {
            q = early
        } else {
            guard let made = quickRead(n, context: context) else { return false }
            made.run()
            q = made
        }
        quickExpectations += q.takenCount
        if q.all {
            if p.expectations.isEmpty { p.expectations = q.read } else { p.expectations.append(contentsOf: q.read) }
            q.read = []
            // What `Reader.keyed` leaves after an entry of known keys.
            if q.count > 0 && !r.suggested.isEmpty { r.suggested = [] }
            return true
        }
        // A mixed list, in order: the entries read quickly, the others read in full here.
        p.expectations.reserveCapacity(p.expectations.count + q.count)
        for j in 0..<q.count {
            // (Moved out: a copy would retain each of its strings.)
            if let e = q.some[j].take() {
                p.expectations.append(e)
                if !r.suggested.isEmpty { r.suggested = [] }
            } else {
                readExpectation(YNode(fast: q.d, q.d.children[q.first + j]), index: j)
            }
        }
        q.some = []
        return true
    }

    /// The names the quick reading resolves with, as they are now.
    var quickContext: QuickContext { QuickContext(users: userNames, appIDs: p.appIDs, steps: p.steps.count) }

    /// The quick reading of the list `n` with the names of `context`, not started; nil when
    /// `n` is not a list.
    func quickRead(_ n: YNode, context: QuickContext) -> QuickRead? {
        let d = n.doc, li = n.index
        let list = d.nodes[Int(li)]
        guard list.kind == 2 else { return nil }
        let count = Int(list.b)
        let workers = quickWorkers ?? max(1, min(count / 65_536, Workers.count(nil)))
        // Several parts a thread, taken as the threads come free: with one part each, a thread
        // that was slowed (by the other's page faults, by the machine) left the rest waiting.
        let parts = workers == 1 ? 1 : max(workers, min(count / 16_384, workers * 8))
        return QuickRead(d: d, first: Int(list.a), count: count, parts: parts, context: context)
    }

    /// A long `expect:` list's quick reading started on other threads with the names known
    /// now, while this one goes on to build the tree (for a million expectations on two cores,
    /// the tree's single thread no longer runs alone); `readExpectations` takes it. Nil for a
    /// short list, or a node that is not a list.
    func startQuickRead(_ n: YNode) -> QuickRead? {
        guard fastExpect, let q = quickRead(n, context: quickContext), q.count >= earlyCount else { return nil }
        DispatchQueue.global().async { q.run() }
        return q
    }

    /// One quick reading of a list: the expectations it read (all of them, or those it could
    /// with nil for the others) and the names it read them with.
    final class QuickRead: @unchecked Sendable {
        /// The shortest list read early (`startQuickRead`).
        static let earlyCount = 65_536
        let d: FastYAMLDocument
        let first: Int, count: Int, parts: Int
        let context: QuickContext
        /// Every entry, when all were read quickly (`all`).
        var read: [Expectation] = []
        /// Otherwise each entry read quickly, nil for those read in full.
        var some: [Expectation?] = []
        var all = true
        var takenCount = 0
        /// Signalled once `run` is done.
        let done = DispatchSemaphore(value: 0)

        init(d: FastYAMLDocument, first: Int, count: Int, parts: Int, context: QuickContext) {
            self.d = d; self.first = first; self.count = count; self.parts = parts; self.context = context
        }

        func run() {
            // Slot j holds entry j when the quick reading took it; `taken[j]` says whether it did.
            var taken = [Bool](repeating: false, count: count)
            var all = true
            var some: [Expectation?] = []
            let read = [Expectation](unsafeUninitializedCapacity: count) { slots, initialized in
                taken.withUnsafeMutableBufferPointer { taken in
                    let job = QuickJob(
                        d: d, first: first, count: count, parts: parts, context: context,
                        slots: slots, taken: taken)
                    if parts == 1 { job.run(0) } else { DispatchQueue.concurrentPerform(iterations: parts) { job.run($0) } }
                    all = !taken.contains(false)
                    if all { initialized = count; return }
                    // Mixed: the entries read quickly moved out of their slots (this array stays empty).
                    some.reserveCapacity(count)
                    for j in 0..<count { some.append(taken[j] ? (slots.baseAddress! + j).move() : nil) }
                    initialized = 0
                }
            }
            self.all = all
            self.takenCount = taken.count { $0 }
            if all { self.read = read } else { self.some = some }
            done.signal()
        }
    }

    /// What the quick reading looks names up in (read only, shared by its threads).
    struct QuickContext: @unchecked Sendable {
        let users: [String: UID]
        let appIDs: [String]
        let steps: Int
        /// Whether the quick reading finds the same names in both (and the same number of steps).
        func sameNames(as other: QuickContext) -> Bool {
            steps == other.steps && appIDs == other.appIDs && users == other.users
        }
    }

    /// One quick reading of a list in `parts` contiguous parts: `run(w)` reads the `w`-th part
    /// of the entries, each into its slot, marking the slots it filled.
    struct QuickJob: @unchecked Sendable {
        let d: FastYAMLDocument
        let first: Int, count: Int, parts: Int
        let context: QuickContext
        let slots: UnsafeMutableBufferPointer<Expectation>
        let taken: UnsafeMutableBufferPointer<Bool>

        func run(_ w: Int) {
            let lo = count * w / parts, hi = count * (w + 1) / parts
            var subjects = ScalarTable<(String, SubjectRef)?>()
            var ops = ScalarTable<Operation?>()
            // The document's arrays read in place (each access to a class's array would check it).
            let nodeArray = d.nodes, childArray = d.children
            nodeArray.withUnsafeBufferPointer { nodes in
                childArray.withUnsafeBufferPointer { children in
                    withBytes(d.text) { buf in
                        for j in lo..<hi {
                            taken[j] = Compiler.quickExpectation(
                                d, children[first + j], index: j, buf: buf, nodes: nodes, children: children,
                                context: context, subjects: &subjects, ops: &ops, into: slots.baseAddress! + j)
                        }
                    }
                }
            }
        }
    }

    /// The entry `item` (the `index`-th) read quickly into `slot` (uninitialized; moved in, not
    /// copied: a copy retains every string of it): false, the slot left as it was, when the
    /// full reading must read it.
    static func quickExpectation(
        _ d: FastYAMLDocument, _ item: Int32, index: Int, buf: UnsafeBufferPointer<UInt8>,
        nodes: UnsafeBufferPointer<FastYAMLDocument.Node>, children: UnsafeBufferPointer<Int32>,
        context: QuickContext,
        subjects: inout ScalarTable<(String, SubjectRef)?>, ops: inout ScalarTable<Operation?>,
        into slot: UnsafeMutablePointer<Expectation>
    ) -> Bool {
        let m = nodes[Int(item)]
        guard m.kind == 1 else { return false }
        // The value node of each known key, or -1.
        var v: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32) = (-1, -1, -1, -1, -1, -1, -1, -1, -1)
        var c = Int(m.a)
        for _ in 0..<Int(m.b) {
            let kn = nodes[Int(children[c])]
            let vi = children[c + 1]
            c += 2
            // Keys and values are scalars; a value from the text as it is unless it is a name or hint.
            guard kn.kind == 0, kn.b >= 0, nodes[Int(vi)].kind == 0,
                let w = Self.quickKey(buf, kn)
            else { return false }
            switch w {
            case 0: guard v.0 < 0 else { return false }; v.0 = vi
            case 1: guard v.1 < 0 else { return false }; v.1 = vi
            case 2: guard v.2 < 0 else { return false }; v.2 = vi
            case 3: guard v.3 < 0 else { return false }; v.3 = vi
            case 4: guard v.4 < 0 else { return false }; v.4 = vi
            case 5: guard v.5 < 0 else { return false }; v.5 = vi
            case 6: guard v.6 < 0 else { return false }; v.6 = vi
            case 7: guard v.7 < 0 else { return false }; v.7 = vi
            default: guard v.8 < 0 else { return false }; v.8 = vi
            }
        }
        guard v.0 >= 0, v.1 >= 0, v.2 >= 0, v.3 >= 0 else { return false }
        // `as`: one subject (not `*` or `group:NAME`), resolved once per distinct text.
        let an = nodes[Int(v.0)]
        guard an.b >= 0, !Self.isNull(buf, an) else { return false }
        let aStart = Int(an.a), aLen = Int(an.b)
        if aLen == 1 && buf[aStart] == 0x2A { return false }
        if aLen >= 6 && Self.equal(buf, aStart, Self.groupPrefix) { return false }
        let subject: (String, SubjectRef)?
        if let known = subjects.value(buf, aStart, aLen) {
            subject = known
        } else {
            let s = String(decoding: UnsafeBufferPointer(rebasing: buf[aStart..<aStart + aLen]), as: UTF8.self)
            var found: (String, SubjectRef)? = nil
            if let u = context.users[s] {
                found = (s, .user(u))
            } else if let num = numericID(s) {
                found = (s, .user(num))
            } else if context.appIDs.contains(s) {
                found = (s, .app(s))
            }
            subjects.insert(buf, aStart, aLen, found)
            subject = found
        }
        guard let (asText, subjectRef) = subject else { return false }
        // `op`: an operation that needs no other key and can be a question.
        let on = nodes[Int(v.1)]
        guard on.b >= 0, !Self.isNull(buf, on) else { return false }
        let op: Operation?
        if let known = ops.value(buf, Int(on.a), Int(on.b)) {
            op = known
        } else {
            var found = Operation(word: String(decoding: UnsafeBufferPointer(rebasing: buf[Int(on.a)..<Int(on.a + on.b)]), as: UTF8.self))
            if let o = found,
                o.needsTarget || o.isAdministrative || o == .chmod || o == .lchmod || o == .chown || o == .lchown || o == .chgrp || o == .chflags
                    || o == .setacl
            {
                found = nil
            }
            ops.insert(buf, Int(on.a), Int(on.b), found)
            op = found
        }
        guard let op else { return false }
        // `path`: a plain path (its own canonical form), not a pattern.
        let pn = nodes[Int(v.2)]
        guard pn.b >= 0, Self.isPlainPatternFree(buf, Int(pn.a), Int(pn.b)) else { return false }
        let path = String(decoding: UnsafeBufferPointer(rebasing: buf[Int(pn.a)..<Int(pn.a + pn.b)]), as: UTF8.self)
        // `result`.
        let rn = nodes[Int(v.3)]
        guard rn.b >= 0 else { return false }
        let allow: Bool
        if Self.equal(buf, Int(rn.a), Int(rn.b), Self.allowWord) {
            allow = true
        } else if Self.equal(buf, Int(rn.a), Int(rn.b), Self.denyWord) {
            allow = false
        } else {
            return false
        }
        // Made in its slot and changed there: a local moved in at the end was copied (each of
        // its strings retained) and then destroyed. A key that turns out wrong below leaves the
        // slot as it found it.
        slot.initialize(
            to: Expectation(
                index: index, location: SourceLocation(file: d.file, line: Int(m.line), column: Int(m.column)),
                request: RequestSpec(op: op, path: path)))
        func fail() -> Bool {
            slot.deinitialize(count: 1)
            return false
        }
        slot.pointee.asText = asText
        slot.pointee.subject = subjectRef
        slot.pointee.result = allow
        // `errno` (only with `deny`) and `layer`.
        if v.4 >= 0 {
            let en = nodes[Int(v.4)]
            guard !allow, en.b >= 0, !Self.isNull(buf, en), let x = Errno(rawValue: d.scalar(v.4)) else { return fail() }
            slot.pointee.errno = x
        }
        if v.5 >= 0 {
            let ln = nodes[Int(v.5)]
            guard ln.b >= 0, !Self.isNull(buf, ln), let x = Layer(rawValue: d.scalar(v.5)), x != .keychain else { return fail() }
            slot.pointee.layer = x
        }
        if v.6 >= 0 {
            guard !Self.isNull(buf, nodes[Int(v.6)]) else { return fail() }
            slot.pointee.name = Escaping.line(d.scalar(v.6))
        }
        if v.7 >= 0 {
            guard nodes[Int(v.7)].b >= 0, let a = Int(d.scalar(v.7)), a >= 0, a <= context.steps else { return fail() }
            slot.pointee.after = a
        }
        if v.8 >= 0 {
            guard !Self.isNull(buf, nodes[Int(v.8)]) else { return fail() }
            slot.pointee.hint = d.scalar(v.8)
        }
        return true
    }

    static let groupPrefix = Array("group:".utf8)
    static let allowWord = Array("allow".utf8)
    static let denyWord = Array("deny".utf8)

    /// Index in `quickExpectKeys` of the verbatim scalar `n`, by its bytes: the bit
    /// `FastYAMLParser.entryKeyBit` gives them as one word.
    @inline(__always)
    static func quickKey(_ buf: UnsafeBufferPointer<UInt8>, _ n: FastYAMLDocument.Node) -> Int? {
        let length = Int(n.b)
        guard length >= 1, length <= 7 else { return nil }
        let bit = FastYAMLParser.entryKeyBit(FastYAMLParser.shortKeyWord(buf, Int(n.a), length))
        return bit == 0 ? nil : bit.trailingZeroBitCount
    }

    /// Whether the `length` bytes at `start` are `word`.
    @inline(__always) static func equal(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int, _ word: [UInt8]) -> Bool {
        guard length == word.count else { return false }
        return equal(buf, start, word)
    }

    /// Whether the bytes at `start` begin with `word`.
    @inline(__always) static func equal(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ word: [UInt8]) -> Bool {
        var k = 0
        while k < word.count { if buf[start + k] != word[k] { return false }; k += 1 }
        return true
    }

    /// `YNode.isNull` of a verbatim scalar: plain, and empty, `~` or `null` in one of its spellings.
    static func isNull(_ buf: UnsafeBufferPointer<UInt8>, _ n: FastYAMLDocument.Node) -> Bool {
        guard n.style == 0 else { return false }
        let s = Int(n.a)
        switch n.b {
        case 0: return true
        case 1: return buf[s] == 0x7E
        case 4:
            let (a, b, c, e) = (buf[s], buf[s + 1], buf[s + 2], buf[s + 3])
            return (a == 0x6E || a == 0x4E) && ((b == 0x75 && c == 0x6C && e == 0x6C) || (a == 0x4E && b == 0x55 && c == 0x4C && e == 0x4C))
        default: return false
        }
    }

    /// `Compiler.isPlainPath` of the bytes, and not `PathGlob.isPattern` (no `*` or `{`; for
    /// the printable ASCII of a plain path, a search for either is a search for its byte).
    static func isPlainPatternFree(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int) -> Bool {
        guard length >= 1, let base = buf.baseAddress else { return false }
        return PlainPath.isPlain(base + start, count: length, patternFree: true)
    }
}

/// Values by the bytes of a scalar of one text (an open-addressing table of byte ranges of the
/// text, compared as bytes): what the quick reading resolved for a subject or operation word.
struct ScalarTable<Value> {
    private var slots = [Int32](repeating: -1, count: 64)
    private var keys: [(start: Int, length: Int)] = []
    private var values: [Value] = []

    private static func hash(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int) -> Int {
        // Eight bytes a step (a name is mostly one word), the last word's bytes past the
        // scalar's end left out.
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(length &+ 1)
        guard length > 0, let base = buf.baseAddress else { return Int(truncatingIfNeeded: h ^ (h >> 29)) }
        let raw = UnsafeRawPointer(base)
        var k = start
        let end = start + length
        while k + 8 <= end {
            h = (h ^ raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)) &* 0xC2B2_AE3D_27D4_EB4F
            k += 8
        }
        if k < end { h = (h ^ SWAR.partialWord(buf, k, end - k)) &* 0xC2B2_AE3D_27D4_EB4F }
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }

    /// The slot of the key, or of the empty slot where it would go.
    private func slot(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int) -> Int {
        let mask = slots.count - 1
        var s = Self.hash(buf, start, length) & mask
        while slots[s] >= 0 {
            let k = keys[Int(slots[s])]
            if k.length == length {
                var i = 0
                while i < length && buf[k.start + i] == buf[start + i] { i += 1 }
                if i == length { return s }
            }
            s = (s + 1) & mask
        }
        return s
    }

    /// The value stored for the bytes, or nil when there is none.
    func value(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int) -> Value? {
        let s = slot(buf, start, length)
        return slots[s] >= 0 ? values[Int(slots[s])] : nil
    }

    mutating func insert(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int, _ value: Value) {
        if (keys.count + 1) * 2 > slots.count {
            // Grow and place every key again.
            slots = [Int32](repeating: -1, count: slots.count * 2)
            for (i, k) in keys.enumerated() { slots[slot(buf, k.start, k.length)] = Int32(i) }
        }
        let s = slot(buf, start, length)
        if slots[s] >= 0 { values[Int(slots[s])] = value; return }
        keys.append((start, length))
        values.append(value)
        slots[s] = Int32(keys.count - 1)
    }
}
