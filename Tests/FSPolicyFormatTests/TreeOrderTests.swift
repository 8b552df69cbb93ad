import FSPolicy
@testable import FSPolicyFormat
@testable import FSPolicyYAML
@testable import FSPolicyRender
@testable import FSPolicyAudit
@testable import FSPolicyReport
import Foundation
import Testing

/// A `tree:` is built in one order whatever the order of its file (`TreeOrder`: by depth, then
/// by path); when every entry's parent is listed, from its listing (`ListedParents`: each
/// entry's parent found without a lookup in the world, each node appended, the indexes filled
/// at the end); otherwise the general way. Both ways must give the same policy.
@Suite struct TreeOrderTests {
    static func decls(_ paths: [String]) -> [NodeDecl] {
        paths.map { NodeDecl(path: $0, loc: SourceLocation(file: "t.yaml", line: 1, column: 1), value: nil) }
    }

    static func listing(_ paths: [String]) -> ListedParents? {
        let d = decls(paths)
        return ListedParents(d, order: TreeOrder.order(d))
    }

    @Test("a listing gives each entry's parent, where its name starts and whether it has children")
    func recognised() throws {
        let paths = ["/", "/a", "/a/b", "/a/b/c", "/a/d", "/a-b", "/é", "/é/x", "/z"]
        let l = try #require(Self.listing(paths))
        #expect(l.parent == [-1, 0, 1, 2, 1, 0, 0, 6, 0])
        #expect(l.hasChildren == [true, true, true, false, false, false, true, false, false])
        #expect(paths.indices.dropFirst().map { String(l.name($0, of: paths[$0])) } == ["a", "b", "c", "d", "a-b", "é", "x", "z"])
        // Without `/`, the root's children have no parent entry.
        let noRoot = try #require(Self.listing(["/a", "/a/b", "/c"]))
        #expect(noRoot.parent == [-1, 0, -1] && noRoot.hasChildren == [true, false, false])
        // Breadth first: the parents come in the order of the list.
        let wide = try #require(Self.listing(["/", "/a", "/b", "/a/x", "/a/y", "/b/z", "/a/x/q"]))
        #expect(wide.parent == [-1, 0, 0, 1, 1, 2, 3])
        #expect(wide.hasChildren == [true, true, true, true, false, false, false])
        let wideNoRoot = try #require(Self.listing(["/a", "/b", "/a/x", "/b/y", "/b/y/z"]))
        #expect(wideNoRoot.parent == [-1, -1, 0, 1, 3] && wideNoRoot.hasChildren == [true, true, false, true, false])
    }

    @Test(
        "any order of the same entries gives the same parents",
        arguments: [
            ["/a/b", "/a"],  // a child before its parent
            ["/a", "/b", "/a/x", "/b/y", "/a/z"],  // back into a directory already left
            ["/a", "/"],  // `/` not first
            ["/a/b", "/a-b/c", "/a", "/a-b", "/a.b", "/a/b/c"]  // names sorting before `/` (sorted by path, not depth first)
        ])
    func anyOrder(_ paths: [String]) throws {
        let l = try #require(Self.listing(paths), "\(paths)")
        for (i, p) in paths.enumerated() {
            let up = p.split(separator: "/").dropLast().joined(separator: "/")
            let expected = up.isEmpty ? paths.firstIndex(of: "/") : paths.firstIndex(of: "/" + up)
            if p == "/" { #expect(l.parent[i] == -1) } else { #expect(l.parent[i] == Int32(expected ?? -1), "\(paths): \(p)") }
            #expect(l.hasChildren[i] == paths.contains { $0 != p && $0.hasPrefix(p == "/" ? "/" : p + "/") }, "\(paths): \(p)")
        }
    }

    @Test(
        "any other list is left to the general way",
        arguments: [
            ["/a", "/a/b/c"],  // a parent not listed
            ["/a/b"],  // no entry at depth 1
            ["/a", "//b"], ["/a", "/a/"], ["/a", "/a/."], ["/a", "/a/.."], ["a"], [""],
            ["/a", "/a/\u{301}b"]  // a `/` byte that is part of a character: not a separator
        ])
    func refused(_ paths: [String]) {
        #expect(Self.listing(paths) == nil, "\(paths)")
    }

    @Test("the order: by depth, then by path as strings compare, from any order of the entries", arguments: [UInt64(1), 2, 3])
    func order(seed: UInt64) {
        var state = seed
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        // Names that share long prefixes, differ within and across eight-byte words, and end
        // inside them; ASCII only, and with a non-ASCII name.
        let parts = ["a", "a-b", "a.b", "ab", "abcdefgh", "abcdefghi", "abcdefgh-", "abcdefgh/x", "A", "0", "d00001", "d00010", "f0000001"]
        for ascii in [true, false] {
            var paths = Set<String>()
            for _ in 0..<400 {
                var p = ""
                for _ in 0...next(4) { p += "/" + parts[next(parts.count)] + (next(3) == 0 ? "\(next(20))" : "") }
                if !ascii && next(10) == 0 { p += "/é\(next(5))" }
                paths.insert(p)
            }
            var list = Array(paths)
            for i in stride(from: list.count - 1, to: 0, by: -1) { list.swapAt(i, next(i + 1)) }
            let d = Self.decls(list)
            let got = TreeOrder.order(d).map { list[$0] }
            let depth = { (p: String) in p.utf8.filter { $0 == 0x2F }.count }
            let expected = list.sorted { (depth($0), $0) < (depth($1), $1) }
            #expect(got == expected, "seed \(seed), ascii \(ascii)")
        }
    }

    enum Order { case depthFirst, breadthFirst, shuffled }

    /// A random tree as a policy file, its entries in depth-first or breadth-first order, or shuffled.
    static func policy(seed: UInt64, order: Order, folding: Bool) -> (text: String, paths: [String]) {
        var state = seed
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        var lines: [(path: String, line: String)] = []
        func walk(_ dir: String, depth: Int) {
            var names = Set<String>()
            for _ in 0..<(depth == 0 ? 6 : next(5)) {
                let base = ["etc", "home", "mnt", "var", "Readme", "README", "x"][next(7)]
                let name = next(4) == 0 ? base + "-\(next(30))" : (next(6) == 0 ? "é\(next(9))" : base + "\(next(40))")
                guard names.insert(name).inserted else { continue }
                let path = (dir == "/" ? "" : dir) + "/" + name
                let dirNode = depth < 4 && next(3) == 0
                var fields = ["owner: \"u\(next(3))\"", "group: \"g\(next(2))\"", "mode: \"0\(["755", "750", "644", "600", "1777"][next(5)])\""]
                // (A directory's type is left out at times: the paths below it make it one.)
                if dirNode && next(2) == 0 { fields.insert("type: dir", at: 0) }
                if !dirNode && next(8) == 0 { fields = ["type: symlink", "target: \"../x\""] }
                if next(6) == 0 && !fields[0].hasPrefix("type: symlink") && !(dirNode && !fields[0].hasPrefix("type: dir")) {
                    // (The mode's group digit is the mask, its other digit `other::`.)
                    fields[fields.count - 1] = "mode: \"0750\""
                    fields.append("acl: [\"user::rwx\", \"user:u1:r-x\", \"group::r-x\", \"mask::r-x\", \"other::---\"]")
                }
                if dirNode && next(5) == 0 { fields.append("defaultAcl: [\"user::rwx\", \"group::r-x\", \"other::---\"]") }
                lines.append((path, "  \"\(path)\": {\(fields.joined(separator: ", "))}"))
                if dirNode { walk(path, depth: depth + 1) }
            }
        }
        lines.append(("/", "  \"/\": {type: dir, owner: \"root\", group: \"root\", mode: \"0755\"}"))
        walk("/", depth: 0)
        switch order {
        case .depthFirst: break
        case .breadthFirst:
            // By depth, keeping the order within each depth: each directory's children together,
            // in the order of the directories.
            let depth = { (p: String) in p == "/" ? 0 : p.split(separator: "/").count }
            lines = lines.enumerated().sorted { (depth($0.element.path), $0.offset) < (depth($1.element.path), $1.offset) }.map(\.element)
        case .shuffled:
            for i in stride(from: lines.count - 1, to: 0, by: -1) { lines.swapAt(i, next(i + 1)) }
        }
        let mount = lines.first { $0.path.hasPrefix("/mnt") && !$0.path.dropFirst().contains("/") }?.path ?? "/mnt"
        let text = """
            fspolicy: 1
            semantics: linux
            users:
              root: {uid: 0, group: root}
              u0: {uid: 1000, group: g0}
              u1: {uid: 1001, group: g1}
              u2: {uid: 1002, group: g0, groups: [g1]}
            groups:
              root: {gid: 0}
              g0: {gid: 1000}
              g1: {gid: 1001}
            volumes:
              "\(mount)": {\(folding ? "caseSensitive: false" : "noexec: true")}
            tree:
            \(lines.map(\.line).joined(separator: "\n"))

            """
        return (text, lines.map(\.path))
    }

    @Test("generated trees: built from the listing or the general way, the same policy", arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func sameWorld(seed: UInt64) throws {
        for (order, folding) in [(Order.depthFirst, false), (.breadthFirst, false), (.shuffled, false), (.depthFirst, true)] {
            let (text, paths) = Self.policy(seed: seed, order: order, folding: folding)
            // The listing is recognised in any order (with a volume that folds names, the tree is
            // still built the general way).
            #expect(Self.listing(paths) != nil, "seed \(seed), \(order)")
            let fromListing = PolicyLoader.load(text: text, file: "t.yaml", semanticsOverride: nil)
            let general = PolicyLoader.loadCounting(
                text: text, file: "t.yaml", semanticsOverride: nil, fastExpect: true,
                generalTree: true
            ).policy
            #expect(!fromListing.diagnostics.hasErrors, "\(fromListing.diagnostics.sorted.map(\.rendered))")
            #expect(fromListing.world.nodeCount == paths.count)
            let a = FastYAMLTests.dump(fromListing), b = FastYAMLTests.dump(general)
            #expect(
                a == b, "seed \(seed), \(order), folding \(folding): first difference \(zip(a, b).first { $0 != $1 }.map { "\($0.0)\n\($0.1)" } ?? "in length")"
            )
            #expect(!a.contains { $0.hasSuffix("found false") })
        }
    }
}
