import FSPolicy
import Foundation

/// A `tree:` listed depth first: every path comes after its parent's path, while the paths
/// between them are all in the parent's subtree (a scan file's order, and any listing that
/// walks a tree); or breadth first (`init(parentsInOrder:)`). Read in one pass with a stack of the open directories — a comparison of
/// bytes per path, no hashing — it gives each entry's parent entry and whether it has
/// children, which `Compiler.buildTree` otherwise finds with a set of every directory's path
/// (a hashed lookup per path, each a cache miss in a tree of a million paths), and lets the
/// tree be built without looking anything up (`World.appendNewNode`).
///
/// Any other list (a parent missing, listed later or elsewhere, `/` not first, a path that is
/// not canonical) gives nil, and the tree is built the general way; so does a path in which a
/// `/` byte is not a separator character (a combining mark after it), because the general way
/// splits paths into characters.
struct DepthFirstListing {
    /// Each entry's parent entry; -1 for the root node when `/` is not listed (and for `/`).
    let parent: [Int32]
    /// Where each entry's name starts in its path's bytes (0 only for `/`).
    let nameStart: [Int32]
    /// Whether any entry lies below each entry.
    let hasChildren: [Bool]

    init?(_ decls: borrowing [NodeDecl]) {
        let n = decls.count
        var parent = [Int32](repeating: -1, count: n)
        var nameStart = [Int32](repeating: 0, count: n)
        var hasChildren = [Bool](repeating: false, count: n)
        // The open directories, outermost first: the entry and its path's length in bytes.
        // The root's length is 0: a path's parent text is the bytes before its last `/`.
        var stack: [(entry: Int32, length: Int)] = [(-1, 0)]
        for i in 0..<n {
            let path = decls[i].path
            let listed: Bool = withBytes(path) { u in
                let count = u.count
                guard count > 0, u[0] == 0x2F else { return false }
                if count == 1 {
                    // `/` itself, only as the first entry: the base of the stack.
                    guard i == 0 else { return false }
                    stack[0].entry = 0
                    return true
                }
                var last = 0
                var any: UInt8 = 0
                for k in 0..<count {
                    let b = u[k]
                    any |= b
                    if b == 0x2F { last = k }
                }
                if any >= 0x80 && !DepthFirstListing.slashesSeparate(path) { return false }
                let nameLength = count - last - 1
                guard nameLength > 0 else { return false }
                if nameLength <= 2 && u[last + 1] == 0x2E && (nameLength == 1 || u[last + 2] == 0x2E) { return false }
                while stack.count > 1 && stack[stack.count - 1].length > last { stack.removeLast() }
                let top = stack[stack.count - 1]
                guard top.length == last else { return false }
                if last > 0 {
                    let same = withBytes(decls[Int(top.entry)].path) { q in memcmp(q.baseAddress!, u.baseAddress!, last) == 0 }
                    guard same else { return false }
                }
                parent[i] = top.entry
                nameStart[i] = Int32(last + 1)
                if top.entry >= 0 { hasChildren[Int(top.entry)] = true }
                stack.append((Int32(i), count))
                return true
            }
            if !listed {
                guard let other = DepthFirstListing(parentsInOrder: decls) else { return nil }
                self = other
                return
            }
        }
        self.parent = parent
        self.nameStart = nameStart
        self.hasChildren = hasChildren
    }

    /// The other order a program writes a tree in: breadth first, the children of each
    /// directory together, directories in the order they were listed — so the entries' parents
    /// come in the order of the list, and one pointer moving forward finds each (compared by
    /// bytes, as above). Nil when some parent is not at or after the previous one's place.
    init?(parentsInOrder decls: borrowing [NodeDecl]) {
        let n = decls.count
        var parent = [Int32](repeating: -1, count: n)
        var nameStart = [Int32](repeating: 0, count: n)
        var hasChildren = [Bool](repeating: false, count: n)
        // The entry of the last parent found; -1 before the first, `/` if it is listed first.
        var at = -1
        var rootEntry: Int32 = -1
        for i in 0..<n {
            let path = decls[i].path
            let listed: Bool = withBytes(path) { u in
                let count = u.count
                guard count > 0, u[0] == 0x2F else { return false }
                if count == 1 {
                    guard i == 0 else { return false }
                    rootEntry = 0
                    return true
                }
                var last = 0
                var any: UInt8 = 0
                for k in 0..<count {
                    let b = u[k]
                    any |= b
                    if b == 0x2F { last = k }
                }
                if any >= 0x80 && !DepthFirstListing.slashesSeparate(path) { return false }
                let nameLength = count - last - 1
                guard nameLength > 0 else { return false }
                if nameLength <= 2 && u[last + 1] == 0x2E && (nameLength == 1 || u[last + 2] == 0x2E) { return false }
                let up: Int32
                if last == 0 {
                    up = rootEntry
                } else {
                    // The parent is the entry at `at` or a later one before this entry.
                    var k = max(at, 0)
                    while k < i && !withBytes(decls[k].path, { q in q.count == last && memcmp(q.baseAddress!, u.baseAddress!, last) == 0 }) {
                        k += 1
                    }
                    guard k < i else { return false }
                    at = k
                    up = Int32(k)
                }
                parent[i] = up
                nameStart[i] = Int32(last + 1)
                if up >= 0 { hasChildren[Int(up)] = true }
                return true
            }
            if !listed { return nil }
        }
        self.parent = parent
        self.nameStart = nameStart
        self.hasChildren = hasChildren
    }

    /// Every `/` byte of `path` is a `/` character: each character that is `/` holds one such
    /// byte, so the two counts are equal exactly when no other character holds one.
    static func slashesSeparate(_ path: String) -> Bool {
        var bytes = 0, characters = 0
        for b in path.utf8 where b == 0x2F { bytes += 1 }
        for ch in path where ch == "/" { characters += 1 }
        return bytes == characters
    }

    /// The name of entry `i`, whose path is `path`.
    func name(_ i: Int, of path: String) -> Substring {
        let utf8 = path.utf8
        return path[utf8.index(utf8.startIndex, offsetBy: Int(nameStart[i]))...]
    }
}
