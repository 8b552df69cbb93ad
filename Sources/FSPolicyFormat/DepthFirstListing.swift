import FSPolicy
import Foundation

/// A `tree:` listed depth first: every path comes after its parent's path, while the paths
/// between them are all in the parent's subtree (a scan file's order, and any listing that
/// walks a tree), or breadth first. Read in one pass — with a stack of the open directories,
/// or a pointer moving forward; a comparison of bytes per path, no hashing — it gives each
/// entry's parent entry and whether it has children, which `Compiler.buildTree` otherwise
/// finds with a set of every directory's path (a hashed lookup per path, each a cache miss in a
/// tree of a million paths), and lets the tree be built without looking anything up
/// (`World.appendNewNode`).
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

    /// The listing of `decls`, read depth first, else breadth first; nil when it is neither.
    init?(_ decls: [NodeDecl]) {
        guard let l = DepthFirstListing.depthFirst(decls) ?? DepthFirstListing.breadthFirst(decls) else { return nil }
        self = l
    }

    private init(parent: [Int32], nameStart: [Int32], hasChildren: [Bool]) {
        self.parent = parent
        self.nameStart = nameStart
        self.hasChildren = hasChildren
    }

    /// Depth first: a stack of the open directories below the root (each entry and its path's
    /// length in bytes); a path's parent is the directory left on top once those deeper than
    /// its parent text (the bytes before its last `/`) are closed.
    static func depthFirst(_ decls: [NodeDecl]) -> DepthFirstListing? {
        var stack: [(entry: Int32, length: Int)] = []
        return reading(decls) { i, u, last, root in
            while let top = stack.last, top.length > last { stack.removeLast() }
            var up = root
            if last > 0 {
                guard let top = stack.last, top.length == last, DepthFirstListing.isParent(decls[Int(top.entry)].path, of: u, last) else { return nil }
                up = top.entry
            }
            stack.append((Int32(i), u.count))
            return up
        }
    }

    /// Breadth first: the children of each directory together, directories in the order they
    /// were listed — so the entries' parents come in the order of the list, and one pointer
    /// moving forward finds each. Nil when some parent is not at or after the previous one's place.
    static func breadthFirst(_ decls: [NodeDecl]) -> DepthFirstListing? {
        // The entry of the last parent found (the first entry before any).
        var at = 0
        return reading(decls) { i, u, last, root in
            if last == 0 { return root }
            while at < i && !DepthFirstListing.isParent(decls[at].path, of: u, last) { at += 1 }
            return at < i ? Int32(at) : nil
        }
    }

    /// One pass over `decls`, each path checked and split at its last `/`; `/` itself is
    /// accepted only first. `parentOf(i, bytes, last, root)` gives entry `i`'s parent entry (the
    /// path's bytes, where its last `/` is, and the root's entry: -1 when `/` is not listed), or
    /// nil to give up.
    private static func reading(_ decls: [NodeDecl],
                                parentOf: (Int, UnsafeBufferPointer<UInt8>, Int, Int32) -> Int32?) -> DepthFirstListing? {
        let n = decls.count
        var parent = [Int32](repeating: -1, count: n)
        var nameStart = [Int32](repeating: 0, count: n)
        var hasChildren = [Bool](repeating: false, count: n)
        var root: Int32 = -1
        for i in 0..<n {
            let path = decls[i].path
            let listed: Bool = withBytes(path) { u in
                guard let last = lastSeparator(path, u) else { return false }
                if last < 0 {
                    guard i == 0 else { return false }
                    root = 0
                    return true
                }
                guard let up = parentOf(i, u, last, root) else { return false }
                parent[i] = up
                nameStart[i] = Int32(last + 1)
                if up >= 0 { hasChildren[Int(up)] = true }
                return true
            }
            if !listed { return nil }
        }
        return DepthFirstListing(parent: parent, nameStart: nameStart, hasChildren: hasChildren)
    }

    /// Where the last `/` of `path` (its bytes `u`) is; -1 for `/` itself; nil when the path
    /// is not absolute, its name is empty, `.` or `..`, or a `/` byte in it is not a separator.
    private static func lastSeparator(_ path: String, _ u: UnsafeBufferPointer<UInt8>) -> Int? {
        let count = u.count
        guard count > 0, u[0] == 0x2F else { return nil }
        if count == 1 { return -1 }
        var last = 0
        var any: UInt8 = 0
        for k in 0..<count {
            let b = u[k]
            any |= b
            if b == 0x2F { last = k }
        }
        if any >= 0x80 && !slashesSeparate(path) { return nil }
        let nameLength = count - last - 1
        guard nameLength > 0 else { return nil }
        if nameLength <= 2 && u[last + 1] == 0x2E && (nameLength == 1 || u[last + 2] == 0x2E) { return nil }
        return last
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

    /// The name of entry `i`, whose path is `path`.
    func name(_ i: Int, of path: String) -> Substring {
        let utf8 = path.utf8
        return path[utf8.index(utf8.startIndex, offsetBy: Int(nameStart[i]))...]
    }
}
