/// Each directory's children in the order they were added, as links between nodes: the first
/// child of a directory, each child's next sibling, and the last child (for appending). Three
/// numbers a node, where a dictionary of arrays cost a hashed entry and an allocated array for
/// every directory (a million nested directories made a million of each, and lookups in a table
/// that no cache held).
@usableFromInline struct ChildLinks: Sendable {
    private var first: [NodeID] = []
    private var last: [NodeID] = []
    private var next: [NodeID] = []

    /// Room for node `id` (nodes are numbered from 0 in the order they are made).
    mutating func addNode() {
        first.append(-1)
        last.append(-1)
        next.append(-1)
    }

    mutating func reserveCapacity(_ count: Int) {
        first.reserveCapacity(count)
        last.reserveCapacity(count)
        next.reserveCapacity(count)
    }

    /// Adds `child` after `dir`'s last child.
    mutating func append(_ child: NodeID, to dir: NodeID) {
        let d = Int(dir)
        next[Int(child)] = -1
        if last[d] < 0 { first[d] = child } else { next[Int(last[d])] = child }
        last[d] = child
    }

    /// Takes `child` out of `dir`'s children (nothing when it is not one).
    mutating func remove(_ child: NodeID, from dir: NodeID) {
        let d = Int(dir)
        var prev: NodeID = -1
        var c = first[d]
        while c >= 0 && c != child { prev = c; c = next[Int(c)] }
        guard c >= 0 else { return }
        let after = next[Int(c)]
        if prev < 0 { first[d] = after } else { next[Int(prev)] = after }
        if last[d] == child { last[d] = prev }
        next[Int(c)] = -1
    }

    /// The first-child and next-sibling links, read in place (`withView`).
    @usableFromInline struct View {
        @usableFromInline let first: UnsafeBufferPointer<NodeID>
        @usableFromInline let next: UnsafeBufferPointer<NodeID>
        /// `dir`'s first child, or -1.
        @inlinable func firstChild(of dir: NodeID) -> NodeID { Int(dir) < first.count ? first[Int(dir)] : -1 }
        /// The child after `child`, or -1.
        @inlinable func nextSibling(of child: NodeID) -> NodeID { Int(child) < next.count ? next[Int(child)] : -1 }
    }

    /// Calls `body` with a view of the links (valid during the call).
    func withView<R>(_ body: (View) -> R) -> R {
        first.withUnsafeBufferPointer { f in next.withUnsafeBufferPointer { n in body(View(first: f, next: n)) } }
    }

    /// `dir`'s children, in the order they were added.
    func children(of dir: NodeID) -> Children { Children(links: self, start: Int(dir) < first.count ? first[Int(dir)] : -1) }

    struct Children: Sequence {
        let links: ChildLinks
        let start: NodeID
        func makeIterator() -> Iterator { Iterator(links: links.next, cur: start) }
        struct Iterator: IteratorProtocol {
            let links: [NodeID]
            var cur: NodeID
            mutating func next() -> NodeID? {
                guard cur >= 0 else { return nil }
                defer { cur = links[Int(cur)] }
                return cur
            }
        }
    }
}
