@testable import FSPolicy
import Testing

/// The world's children as links (`ChildLinks`) hold what a list per directory held: every
/// child in the order it was added, through appends, removals (first, middle, last, absent) and
/// moves, checked against plain arrays over random operations.
@Suite struct ChildLinksTests {
    @Test("the links list each directory's children as a list per directory would", arguments: [UInt64(1), 2, 3])
    func sameAsLists(seed: UInt64) {
        var rng = seed &* 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17
            return Int(rng % UInt64(n))
        }
        var links = ChildLinks()
        var lists: [[NodeID]] = []
        var parent: [NodeID] = []
        var removals = 0, moves = 0
        links.addNode(); lists.append([]); parent.append(0)
        for _ in 0..<4000 {
            let count = lists.count
            switch next(10) {
            case 0..<6:
                // A new node, most often under one of the first eight (directories with many
                // children), else under any.
                let id = NodeID(count), dir = NodeID(next(2) == 0 ? next(min(count, 8)) : next(count))
                links.addNode(); lists.append([]); parent.append(dir)
                links.append(id, to: dir)
                lists[Int(dir)].append(id)
            case 6..<8:
                // A node taken out of its parent (perhaps not listed there any more).
                let id = NodeID(1 + next(max(1, count - 1)))
                guard Int(id) < count else { continue }
                links.remove(id, from: parent[Int(id)])
                lists[Int(parent[Int(id)])].removeAll { $0 == id }
                removals += 1
            default:
                // A node moved to another directory: out of one list, at the end of another.
                let id = NodeID(1 + next(max(1, count - 1))), to = NodeID(next(count))
                guard Int(id) < count, to != id else { continue }
                links.remove(id, from: parent[Int(id)])
                lists[Int(parent[Int(id)])].removeAll { $0 == id }
                links.append(id, to: to)
                lists[Int(to)].append(id)
                parent[Int(id)] = to
                moves += 1
            }
        }
        for d in lists.indices { #expect(Array(links.children(of: NodeID(d))) == lists[d], "directory \(d)") }
        #expect(Array(links.children(of: NodeID(lists.count + 5))).isEmpty)
        #expect(removals > 500 && moves > 500 && lists.contains { $0.count > 20 })
    }
}
