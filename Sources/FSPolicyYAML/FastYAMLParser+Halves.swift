import Foundation
import Synchronization

/// A big section of the document (a value of a top-level key longer than `splitBytes`) read
/// in two halves, the second on a thread of its own, its nodes then appended to the first's.
extension FastYAMLParser {

    /// The second half of a section read on another thread: its parser, and whether it gave up
    /// (both to be read only after `wait`).
    package final class SecondHalf: @unchecked Sendable {
        package var parser: FastYAMLParser
        package var failed = false
        package let done = DispatchSemaphore(value: 0)
        /// Set by the thread when it is done (`done` is signalled then).
        package let finished = Atomic<Bool>(false)
        package var waited = false
        /// Where this half begins and the section ends; the first half's nodes and children
        /// when it began, and its offset.
        package let begins: Int, sectionEnd: Int
        package let firstNodes: Int, firstChildren: Int, firstBegins: Int
        package init(_ p: FastYAMLParser, begins: Int, sectionEnd: Int, firstNodes: Int, firstChildren: Int, firstBegins: Int) {
            parser = p
            self.begins = begins; self.sectionEnd = sectionEnd
            self.firstNodes = firstNodes; self.firstChildren = firstChildren; self.firstBegins = firstBegins
        }
        /// Waits for the thread (once; the buffer it reads must outlive it).
        package func wait() {
            if waited { return }
            waited = true
            done.wait()
        }
    }

    /// For a section longer than `splitBytes` whose elements start at `i`: a line about half
    /// way through it that starts an element at `indent` (`- ` for a list, a key for a mapping),
    /// read from there on by a parser on another thread, this one stopping there (`stop`).
    /// Nil when the section is short or no such line is found near the middle.
    package mutating func startSecondHalf(indent: Int, mapping: Bool) -> SecondHalf? {
        guard buf.count - i > splitBytes, let base = buf.baseAddress else { return nil }
        // The section ends at the next line with something at the left edge (the next key of
        // the document, or anything else the reader will judge then).
        var sectionEnd = buf.count
        var e = i
        while let next = lineAfter(e, base: base, end: buf.count) {
            e = next
            if e < buf.count, buf[e] != 0x20, buf[e] != 0x0A, buf[e] != 0x23 { sectionEnd = e; break }
        }
        guard sectionEnd - i > splitBytes else { return nil }
        // A little before the middle: this thread then copies the other half's nodes after its
        // own (`take`), which the other thread would otherwise wait for (a million expectations
        // on two cores: the copy is about a quarter of the time either half takes).
        var k = i + (sectionEnd - i) * 45 / 100
        let end = min(sectionEnd, k + (1 << 20))
        var found = -1
        while let next = lineAfter(k, base: base, end: end) {
            k = next
            var j = k
            while j < end && j - k < indent && buf[j] == 0x20 { j += 1 }
            guard j - k == indent, j + 1 < end else { continue }
            let b = buf[j]
            if mapping {
                // A key: a path, a quoted scalar, or a word.
                if b == 0x2F || b == 0x22 || b == 0x27 || (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) {
                    found = k; break
                }
            } else if b == 0x2D && buf[j + 1] == 0x20 {
                found = k; break
            }
        }
        guard found > 0 else { return nil }
        // The second half's first line number: this one's plus the line feeds in between.
        var lines = 0
        var q = lineStart
        while let next = lineAfter(q, base: base, end: found) {
            lines += 1
            q = next
        }
        var p = FastYAMLParser(buf: buf, doc: doc)
        p.ascii = ascii
        p.entryShortcut = entryShortcut
        p.isSecondHalf = true
        p.depth = depth
        p.flowDepth = flowDepth
        p.parentIndent = parentIndent
        p.i = found + indent
        p.lineStart = found
        p.line = line + lines
        p.nodes.reserveCapacity((buf.count - found) / 6)
        p.children.reserveCapacity((buf.count - found) / 6)
        let half = SecondHalf(p, begins: found, sectionEnd: sectionEnd, firstNodes: nodes.count, firstChildren: children.count, firstBegins: i)
        stop = found
        Thread.detachNewThread {
            half.parser.stackBase = FastYAMLParser.stackAddress()
            do {
                if mapping { try half.parser.mappingPairs(indent: indent) } else { try half.parser.sequenceItems(indent: indent) }
            } catch { half.failed = true }
            half.finished.store(true, ordering: .releasing)
            half.done.signal()
        }
        return half
    }

    /// The offset after the first line feed in `k..<end`, or nil when there is none.
    @inline(__always) package func lineAfter(_ k: Int, base: UnsafePointer<UInt8>, end: Int) -> Int? {
        guard k < end, let nl = memchr(base + k, 0x0A, end - k) else { return nil }
        return UnsafePointer<UInt8>(nl.assumingMemoryBound(to: UInt8.self)) - base + 1
    }

    /// Appends the second half's elements after this half's, which stopped where it began:
    /// its nodes, children and scalars renumbered as if this parser had read them. If this
    /// half ended before (the section was shorter than it looked), the second half read
    /// something else and is dropped.
    package mutating func take(_ half: SecondHalf) throws {
        let reached = lineStart == stop
        stop = -1
        if reached && !half.finished.load(ordering: .acquiring) { prepareRoom(for: half) }
        half.wait()
        guard reached else { return }
        if half.failed { throw FastYAML.SplitFailed() }
        // An anchor of the second half could be named by an alias of the first: read it whole.
        if !half.parser.anchors.isEmpty { throw FastYAML.SplitFailed() }
        splitSections += 1
        let p = half.parser
        let n = Int32(nodes.count), c = Int32(children.count), u = Int32(unescaped.count)
        // Copied whole, then renumbered in place (an append a node checked the array each time).
        nodes.append(contentsOf: p.nodes)
        nodes.withUnsafeMutableBufferPointer { all in
            for k in Int(n)..<all.count {
                if all[k].kind != 0 { all[k].a &+= c } else if all[k].b < 0 { all[k].a &+= u }
            }
        }
        children.append(contentsOf: p.children)
        children.withUnsafeMutableBufferPointer { all in
            for k in Int(c)..<all.count { all[k] &+= n }
        }
        unescaped.append(contentsOf: p.unescaped)
        for f in p.folded { folded.append(f + n) }
        quickEntries += p.quickEntries
        for d in p.duplicates { duplicates.append((key: d.key + n, first: d.first + n)) }
        for x in p.pending { pending.append(x + n) }
        i = p.i
        line = p.line
        lineStart = p.lineStart
        colAt = 0
        colValue = 1
    }

    /// While the second half is still being read: the pages its nodes and children will be
    /// copied to (past this half's, in the room reserved for them), made now, as many as this
    /// half's count per byte says it will need. The copy would otherwise wait for a page fault
    /// every 4 KiB after the other thread is done (a million entries: 0.1 s, this thread
    /// alone). Pages are only made, their bytes not written (`MADV_POPULATE_WRITE`, Linux 5.14;
    /// elsewhere, or when it fails, nothing is done).
    package func prepareRoom(for half: SecondHalf) {
        #if os(Linux)
            let firstBytes = half.begins - half.firstBegins
            guard firstBytes > 0 else { return }
            let secondBytes = half.sectionEnd - half.begins
            @inline(__always) func populate<T>(_ a: [T], expected: Int) {
                let wanted = min(a.capacity, a.count + expected + expected / 16)
                guard wanted > a.count else { return }
                a.withUnsafeBufferPointer { b in
                    guard let base = b.baseAddress else { return }
                    let page = 4096
                    let from = (UInt(bitPattern: base + a.count) + UInt(page - 1)) & ~UInt(page - 1)
                    let to = UInt(bitPattern: base + wanted) & ~UInt(page - 1)
                    guard to > from, let start = UnsafeMutableRawPointer(bitPattern: from) else { return }
                    _ = madvise(start, Int(to - from), 23)  // MADV_POPULATE_WRITE
                }
            }
            populate(nodes, expected: (nodes.count - half.firstNodes) * secondBytes / firstBytes)
            populate(children, expected: (children.count - half.firstChildren) * secondBytes / firstBytes)
        #endif
    }
}
