import FSPolicy
import Foundation

/// The order a `tree:` is built in, whatever the order of the file: parents before children,
/// by depth, and within one depth by path (so the nodes get the same ids from any listing of
/// the same entries).
///
/// With that order, `ListedParents` gives each entry's parent entry and whether it has
/// children, which lets the tree be built without looking anything up in the world
/// (`World.appendNewNode`).
enum TreeOrder {
    /// The entries of `decls` by depth, then by path (`String`'s order).
    ///
    /// A depth's entries already in that order (a scan file's or `fmt`'s tree, and most
    /// generated ones) are taken as they are. Others are sorted: on ASCII paths, where `String`'s
    /// order is the order of the bytes, eight bytes at a time as one integer (`sortASCII`); on
    /// other paths with `String`'s comparison.
    static func order(_ decls: [NodeDecl]) -> [Int] {
        var byDepth: [[Int]] = []
        var ascii: [Bool] = []
        for i in decls.indices {
            let (k, plain) = withBytes(decls[i].path) { u -> (Int, Bool) in
                var n = 0
                var any: UInt8 = 0
                for b in u {
                    any |= b
                    if b == 0x2F { n += 1 }
                }
                return (n - (u.count == 1 && n == 1 ? 1 : 0), any < 0x80)
            }
            while byDepth.count <= k {
                byDepth.append([])
                ascii.append(true)
            }
            byDepth[k].append(i)
            if !plain { ascii[k] = false }
        }
        var order: [Int] = []
        order.reserveCapacity(decls.count)
        for k in byDepth.indices {
            var bucket: [Int] = []
            swap(&bucket, &byDepth[k])
            var sorted = true
            for j in bucket.indices.dropFirst() where !(decls[bucket[j - 1]].path < decls[bucket[j]].path) {
                sorted = false
                break
            }
            if !sorted {
                if ascii[k] { sortASCII(&bucket, decls) } else { bucket.sort { decls[$0].path < decls[$1].path } }
            }
            order.append(contentsOf: bucket)
        }
        return order
    }

    /// Sorts `bucket` by the bytes of its entries' paths, all ASCII: by the sixteen bytes after
    /// the prefix they all share, read as two big-endian integers, then each run of equal
    /// pairs by the next sixteen bytes, and so on. A run in which some path ends within the
    /// sixteen bytes is sorted by comparing the paths.
    ///
    /// Against `Array.sort` comparing the paths, on the 1,000,000 entries of a shuffled scan
    /// file this is what keeps the shuffled file's `validate` within 1.5× of the sorted one's
    /// (docs/performance.md, target 43).
    static func sortASCII(_ bucket: inout [Int], _ decls: [NodeDecl]) {
        guard bucket.count > 1 else { return }
        // The prefix every path shares.
        var shared = withBytes(decls[bucket[0]].path) { $0.count }
        withBytes(decls[bucket[0]].path) { first in
            for e in bucket.dropFirst() {
                withBytes(decls[e].path) { u in
                    let n = min(shared, u.count)
                    var k = 0
                    while k < n && u[k] == first[k] { k += 1 }
                    shared = k
                }
            }
        }
        var keys = [(key: UInt64, next: UInt64, entry: Int32, ends: Bool)](repeating: (0, 0, 0, false), count: bucket.count)
        for j in bucket.indices { keys[j].entry = Int32(bucket[j]) }
        // Runs still to sort: positions in `keys` and the offset of their next sixteen bytes
        // (read together: in a shuffled file a path's bytes are a cache miss, and sixteen
        // bytes after the shared prefix tell most paths apart in one pass).
        var runs: [(lo: Int, hi: Int, offset: Int)] = [(0, bucket.count, shared)]
        while let (lo, hi, offset) = runs.popLast() {
            for j in lo..<hi {
                (keys[j].key, keys[j].next, keys[j].ends) = withBytes(decls[Int(keys[j].entry)].path) { u -> (UInt64, UInt64, Bool) in
                    var key: UInt64 = 0, next: UInt64 = 0
                    let n = u.count - offset
                    for t in 0..<8 { key = key << 8 | (t < n ? UInt64(u[offset + t]) : 0) }
                    for t in 8..<16 { next = next << 8 | (t < n ? UInt64(u[offset + t]) : 0) }
                    return (key, next, n <= 16)
                }
            }
            keys[lo..<hi].sort { $0.key < $1.key || ($0.key == $1.key && $0.next < $1.next) }
            var start = lo
            while start < hi {
                var end = start + 1
                var ends = keys[start].ends
                while end < hi && keys[end].key == keys[start].key && keys[end].next == keys[start].next {
                    ends = ends || keys[end].ends
                    end += 1
                }
                if end - start > 1 {
                    if ends {
                        keys[start..<end].sort { decls[Int($0.entry)].path < decls[Int($1.entry)].path }
                    } else {
                        runs.append((start, end, offset + 16))
                    }
                }
                start = end
            }
        }
        for j in bucket.indices { bucket[j] = Int(keys[j].entry) }
    }
}

/// Each entry's parent entry in a `tree:` in which every entry's parent is listed too (a scan
/// file, any complete listing, in any order), found on `TreeOrder`'s order: the children of
/// one directory come together there, so the parent is looked up once per directory, in a
/// table of the paths one level up; and whether each entry has children.
///
/// Its arrays are by position in that order, the order the tree is built in, and a parent is
/// named by its position too: in a file of another order an array by the entries' places in
/// the file would be read a cache miss at a time, three an entry (docs/performance.md, target
/// 43). `parent` and `hasChildren` give the same by entry.
///
/// Nil when some entry's parent is not listed, a path is not canonical, or a `/` byte in a path
/// is not a separator character (a combining mark after it): the tree is then built the
/// general way, which splits paths into characters and makes the missing directories.
struct ListedParents {
    /// The order the arrays follow: `TreeOrder.order` of the entries.
    let order: [Int]
    /// The position of the parent of the entry at each position; -1 for the root node when `/`
    /// is not listed (and for `/`).
    let parentAt: [Int32]
    /// Where the name of the entry at each position starts in its path's bytes (0 only for `/`).
    let nameStartAt: [Int32]
    /// Whether any entry lies below the entry at each position.
    let hasChildrenAt: [Bool]

    init?(_ decls: [NodeDecl], order: [Int]) {
        let n = decls.count
        var parent = [Int32](repeating: -1, count: n)
        var nameStart = [Int32](repeating: 0, count: n)
        var hasChildren = [Bool](repeating: false, count: n)
        var root: Int32 = -1
        // The depth being read, where its entries start in `order`, and a table of the paths
        // of the depth above (by position).
        var depth = 0
        var levelStart = 0
        var above = PathTable()
        // The previous entry's parent and its path's bytes (compared without going to that
        // entry's string, which in a shuffled file lies elsewhere in memory).
        var previous: Int32 = -1
        var previousText: [UInt8] = []
        // In a file of another order each entry's path is a cache miss away from the previous
        // one's: the paths of the next `ahead` entries are loaded together first.
        let ahead = 64
        var loaded = [UInt8](repeating: 0, count: ahead)
        for (position, i) in order.enumerated() {
            if position % ahead == 0 {
                for q in position..<min(position + ahead, order.count) {
                    let utf8 = decls[order[q]].path.utf8
                    loaded[q - position] = (utf8.first ?? 0) ^ (utf8.last ?? 0)
                }
            }
            let found: Bool = withBytes(decls[i].path) { u in
                guard let (last, d) = ListedParents.lastSeparator(u, { ListedParents.slashesSeparate(decls[i].path) }) else { return false }
                if last < 0 {
                    guard position == 0 else { return false }
                    root = 0
                    return true
                }
                if d != depth {
                    guard d == depth + 1 else { return false }
                    if d >= 2 {
                        above = PathTable(capacity: position - levelStart)
                        for q in levelStart..<position { withBytes(decls[order[q]].path) { above.insert(Int32(q), hash: World.fnv($0)) } }
                    }
                    depth = d
                    levelStart = position
                    previous = -1
                }
                var up = root
                if last > 0 {
                    // The previous entry's parent, else the table's entry for the text before the last `/`.
                    if previous >= 0, previousText.count == last,
                        previousText.withUnsafeBufferPointer({ memcmp($0.baseAddress!, u.baseAddress!, last) == 0 })
                    {
                        up = previous
                    } else {
                        let h = World.fnv(UnsafeBufferPointer(rebasing: u[..<last]))
                        guard let e = above.find(hash: h, where: { ListedParents.isParent(decls[order[Int($0)]].path, of: u, last) }) else {
                            return false
                        }
                        up = e
                        previous = e
                        previousText = Array(u[..<last])
                    }
                }
                parent[position] = up
                nameStart[position] = Int32(last + 1)
                if up >= 0 { hasChildren[Int(up)] = true }
                return true
            }
            if !found { return nil }
        }
        self.order = order
        self.parentAt = parent
        self.nameStartAt = nameStart
        self.hasChildrenAt = hasChildren
    }

    /// Each entry's parent entry, by the entries' places in the list; -1 for the root node when
    /// `/` is not listed (and for `/`).
    var parent: [Int32] {
        var byEntry = [Int32](repeating: -1, count: order.count)
        for (position, i) in order.enumerated() where parentAt[position] >= 0 { byEntry[i] = Int32(order[Int(parentAt[position])]) }
        return byEntry
    }

    /// Whether any entry lies below each entry, by the entries' places in the list.
    var hasChildren: [Bool] {
        var byEntry = [Bool](repeating: false, count: order.count)
        for (position, i) in order.enumerated() { byEntry[i] = hasChildrenAt[position] }
        return byEntry
    }

    /// Where the last `/` of a path (its bytes `u`) is and the path's depth; -1 and 0 for `/`
    /// itself; nil when the path is not absolute, its name is empty, `.` or `..`, or a `/`
    /// byte in it is not a separator (`slashesSeparate` says, asked only of a path that is not ASCII).
    private static func lastSeparator(_ u: UnsafeBufferPointer<UInt8>, _ slashesSeparate: () -> Bool) -> (Int, Int)? {
        let count = u.count
        guard count > 0, u[0] == 0x2F else { return nil }
        if count == 1 { return (-1, 0) }
        var last = 0
        var slashes = 0
        var any: UInt8 = 0
        for k in 0..<count {
            let b = u[k]
            any |= b
            if b == 0x2F {
                last = k
                slashes += 1
            }
        }
        if any >= 0x80 && !slashesSeparate() { return nil }
        let nameLength = count - last - 1
        guard nameLength > 0 else { return nil }
        if nameLength <= 2 && u[last + 1] == 0x2E && (nameLength == 1 || u[last + 2] == 0x2E) { return nil }
        return (last, slashes)
    }

    /// Whether `candidate` is the text of `u` before its last `/` (at `last`).
    @inline(__always) private static func isParent(_ candidate: String, of u: UnsafeBufferPointer<UInt8>, _ last: Int) -> Bool {
        withBytes(candidate) { q in q.count == last && memcmp(q.baseAddress!, u.baseAddress!, last) == 0 }
    }

    /// Every `/` byte of `path` is a `/` character: each character that is `/` holds one such
    /// byte, so the two counts are equal exactly when no other character holds one.
    static func slashesSeparate(_ path: String) -> Bool {
        var bytes = 0, characters = 0
        for b in path.utf8 where b == 0x2F { bytes += 1 }
        for ch in path where ch == "/" { characters += 1 }
        return bytes == characters
    }

    /// The name of entry `i` (its place in the list), whose path is `path`.
    func name(_ i: Int, of path: String) -> Substring {
        let utf8 = path.utf8
        let position = order.firstIndex(of: i)!
        return path[utf8.index(utf8.startIndex, offsetBy: Int(nameStartAt[position]))...]
    }
}

/// Entries by the hash of their paths: open addressing, the caller checking each candidate.
private struct PathTable {
    private var slots: [(hash: UInt64, entry: Int32)]
    private var mask: Int

    init(capacity: Int = 0) {
        var c = 16
        while c < capacity * 2 { c *= 2 }
        slots = Array(repeating: (0, -1), count: capacity == 0 ? 1 : c)
        mask = capacity == 0 ? 0 : c - 1
    }

    mutating func insert(_ entry: Int32, hash: UInt64) {
        var s = Int(truncatingIfNeeded: hash) & mask
        while slots[s].entry >= 0 { s = (s + 1) & mask }
        slots[s] = (hash, entry)
    }

    func find(hash: UInt64, where matches: (Int32) -> Bool) -> Int32? {
        var s = Int(truncatingIfNeeded: hash) & mask
        while slots[s].entry >= 0 {
            if slots[s].hash == hash && matches(slots[s].entry) { return slots[s].entry }
            s = (s + 1) & mask
        }
        return nil
    }
}
