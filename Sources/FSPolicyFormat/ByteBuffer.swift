import FSPolicy

/// UTF-8 bytes written through a pointer: no uniqueness or bounds check for each byte, room
/// made by doubling. The memory is freed with the buffer.
public struct ByteBuffer: ~Copyable {
    var base: UnsafeMutablePointer<UInt8>
    public private(set) var count = 0
    var capacity: Int

    public init(capacity: Int = 64) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    /// A buffer with no room, and no memory until something is written: the one a writer is
    /// made with before it takes another buffer's bytes (`swap`), once for each result of a report.
    public init(empty: Void) {
        capacity = 0
        base = UnsafeMutablePointer(bitPattern: MemoryLayout<UInt8>.alignment)!
    }

    deinit { if capacity > 0 { base.deallocate() } }

    /// The bytes as text (they are valid UTF-8 when every write was whole code points).
    public var string: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    public var isEmpty: Bool { count == 0 }
    public mutating func removeAll() { count = 0 }
    /// Forgets the bytes from `n` on.
    package mutating func truncate(to n: Int) { count = min(count, max(0, n)) }

    @inline(__always) package mutating func reserve(_ n: Int) {
        if count + n > capacity { grow(count + n) }
    }

    @inline(never) mutating func grow(_ needed: Int) {
        var c = max(capacity * 2, 16)
        while c < needed { c *= 2 }
        let b = UnsafeMutablePointer<UInt8>.allocate(capacity: c)
        b.initialize(from: base, count: count)
        if capacity > 0 { base.deallocate() }
        base = b
        capacity = c
    }

    @inline(__always) public mutating func append(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count += 1
    }

    @inline(__always) public mutating func append(_ p: UnsafeBufferPointer<UInt8>) {
        guard let from = p.baseAddress, p.count > 0 else { return }
        reserve(p.count)
        ByteBuffer.copy(from, to: base + count, count: p.count)
        count += p.count
    }

    /// `n` bytes from `from` to `to` (not overlapping). Most pieces of a report are short (a
    /// word, a key, a path's name): up to 16 bytes are moved as two eight- or four-byte words
    /// (which may overlap each other) or byte by byte, without calling `memcpy`.
    @inline(__always) static func copy(_ from: UnsafePointer<UInt8>, to: UnsafeMutablePointer<UInt8>, count n: Int) {
        if n > 16 {
            to.initialize(from: from, count: n)
        } else if n >= 8 {
            let a = UnsafeRawPointer(from).loadUnaligned(as: UInt64.self)
            let b = UnsafeRawPointer(from + (n &- 8)).loadUnaligned(as: UInt64.self)
            UnsafeMutableRawPointer(to).storeBytes(of: a, as: UInt64.self)
            UnsafeMutableRawPointer(to + (n &- 8)).storeBytes(of: b, as: UInt64.self)
        } else if n >= 4 {
            let a = UnsafeRawPointer(from).loadUnaligned(as: UInt32.self)
            let b = UnsafeRawPointer(from + (n &- 4)).loadUnaligned(as: UInt32.self)
            UnsafeMutableRawPointer(to).storeBytes(of: a, as: UInt32.self)
            UnsafeMutableRawPointer(to + (n &- 4)).storeBytes(of: b, as: UInt32.self)
        } else {
            var i = 0
            while i < n { to[i] = from[i]; i &+= 1 }
        }
    }

    @inline(__always) public mutating func append(_ s: StaticString) {
        append(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    public mutating func append(string s: String) {
        // A native string's bytes are read in place; others (bridged, small) through a copy.
        if s.utf8.withContiguousStorageIfAvailable({ append($0) }) == nil {
            var s = s
            s.withUTF8 { append($0) }
        }
    }

    @inline(__always) public mutating func append(repeating b: UInt8, count n: Int) {
        guard n > 0 else { return }
        // Eight bytes a store, the last store up to seven bytes past the end (room is made for
        // them; they are not counted).
        reserve(n + 8)
        let word = 0x0101_0101_0101_0101 &* UInt64(b)
        let to = UnsafeMutableRawPointer(base + count)
        var i = 0
        while i < n {
            to.storeBytes(of: word, toByteOffset: i, as: UInt64.self)
            i += 8
        }
        count += n
    }

    /// `n` bytes written by `body` from the start of the room it is given.
    @inline(__always) package mutating func appendReserved(_ n: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Void) {
        reserve(n)
        body(base + count)
        count += n
    }

    /// The same, with `slack` more bytes of room that `body` may write but that are not counted.
    @inline(__always) package mutating func appendReserved(_ n: Int, slack: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Void) {
        reserve(n + slack)
        body(base + count)
        count += n
    }

    /// Appends what `body` writes into room for up to `most` bytes; `body` returns how many.
    @inline(__always) package mutating func append(upTo most: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(most)
        count += body(base + count)
    }

    /// Appends what `body` writes where the function it is given says: called once with a
    /// byte count `n`, that function makes room for `n` bytes and `slack` more and returns where
    /// they go; the `n` bytes are appended (what `body` writes into the slack is not).
    @inline(__always) package mutating func appendSized(slack: Int, _ body: ((Int) -> UnsafeMutablePointer<UInt8>) -> Void) {
        var n = 0
        body { k in
            n = k
            reserve(k + slack)
            return base + count
        }
        count += n
    }

    /// `bytes` put in at offset `i`, moving what follows.
    package mutating func insert(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) {
        let n = bytes.count
        guard n > 0, let from = bytes.baseAddress else { return }
        reserve(n)
        UnsafeMutableRawPointer(base + i + n).copyMemory(from: base + i, byteCount: count - i)  // memmove: they overlap
        (base + i).update(from: from, count: n)
        count += n
    }
    package mutating func insert(_ s: StaticString, at i: Int) {
        insert(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount), at: i)
    }

    @inline(__always) package mutating func append(_ t: (UInt8, UInt8, UInt8)) {
        appendReserved(3) { p in
            p[0] = t.0; p[1] = t.1; p[2] = t.2
        }
    }

    /// The bytes from `start` on, as a pointer valid until the next write.
    package func bytes(from start: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base + start, count: count - start) }

    /// The bytes from `start` to `end`, as a pointer valid until the next write.
    package func bytes(from start: Int, to end: Int) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base + start, count: end - start) }

    // MARK: Text

    /// `String(n)`'s digits.
    public mutating func append(decimal n: Int) {
        if n >= 0 && n < 10 { append(UInt8(48 + n)) } else { JSON.int(n, into: &self) }
    }

    /// `rwx`, a dash for each missing right.
    public mutating func append(_ r: RWX) {
        reserve(3)
        base[count] = r.contains(.read) ? 0x72 : 0x2d
        base[count + 1] = r.contains(.write) ? 0x77 : 0x2d
        base[count + 2] = r.contains(.execute) ? 0x78 : 0x2d
        count += 3
    }

    public mutating func spaces(_ n: Int) {
        guard n > 0 else { return }
        reserve(n)
        for k in 0..<n { base[count + k] = 0x20 }
        count += n
    }
}
