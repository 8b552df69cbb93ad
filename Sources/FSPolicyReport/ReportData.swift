import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender

/// Builds the data block of the report: everything the page shows, computed here from the same
/// decisions and texts as the other commands (the page's script only looks things up).
///
/// Per node: its attributes as text (interned tables) and, per rule set, the index of its row
/// of the grid — one verdict per (user, op), a verdict being (allowed, errno, layer, rule) —
/// rows interned, so equal rows are stored once. Full explanations (the text of
/// `fspolicy explain`) only for the first nodes in priority order (nodes with findings or
/// failed expectations, then the tree breadth first) up to `explainedCells` cells.
final class ReportBuilder {
    let options: ReportOptions
    var stats = ReportStats()
    /// Set when a grid would be too big for a page (the report is then refused).
    var tooBig: String?
    /// Entries of the grid's memo tables (shared answers per attribute set and stopping folder,
    /// search answers per folder attributes): past this, answers are asked instead of kept.
    static let memoBudget = 8_000_000

    func overBudget(_ file: String, cells: Int, ops: Int, rows: Int, after: Int, of count: Int, width: Int = 1) -> String {
        let classes = ops > 0 ? cells / ops : 0
        return "the grid of \(file) is over the report's limit of \(options.gridLimit.formatted3) characters of distinct rows per file: "
            + "a row has \(cells.formatted3) cells (\(classes.formatted3) classes of users that the tree tells apart × \(ops) operations"
            + (width > 1 ? ", \(width) characters each" : "")
            + "), and \(rows.formatted3) distinct rows were met in the first \(after.formatted3) of \(count.formatted3) nodes"
    }
    /// Explanation lines, interned across the whole report.
    var lines: [String] = []
    var lineIndex: [String: Int] = [:]

    init(options: ReportOptions) { self.options = options }

    func line(_ s: String) -> Int {
        if let i = lineIndex[s] { return i }
        lineIndex[s] = lines.count
        lines.append(s)
        return lines.count - 1
    }

    func textLines(_ text: String) -> [Int] {
        Escaping.terminal(text).split(separator: "\n", omittingEmptySubsequences: false).map { line(String($0)) }
    }

    /// A table of strings with their indices, in first-use order.
    struct Table {
        var items: [String] = []
        var index: [String: Int] = [:]
        mutating func id(_ s: String) -> Int {
            if let i = index[s] { return i }
            index[s] = items.count
            items.append(s)
            return items.count - 1
        }
    }

    struct Attr: Hashable {
        var type: NodeType, uid: UID, gid: GID, mode: UInt16, flags: UInt32, acl: Int32, posixACL: Int32
        var volume: UInt16, protection: ProtectionClass, open: Bool
        init(_ n: Node) {
            type = n.type; uid = n.uid; gid = n.gid; mode = n.mode.rawValue; flags = n.flags.rawValue
            acl = n.acl; posixACL = n.posixACL; volume = n.volume; protection = n.protection; open = n.openBeforeLock
        }
    }

    struct Verdict: Hashable { var allowed: Bool; var errno: String; var layer: String; var rule: String }

    // MARK: One file

    func world(_ input: ReportInput, explainBudget: inout Int) -> JSON {
        if tooBig != nil { return .null }
        let p = input.policy
        let primary = input.semantics[0]
        let ev = Evaluator(policy: p, semantics: primary, tracing: false)
        let world = ev.world(after: nil)
        let t = TextRenderer(policy: p, world: world)

        // Nodes in tree order: parents before children, siblings by the bytes of their names.
        var order: [NodeID] = []
        var parentOf: [Int] = []
        var stack: [(NodeID, Int)] = [(World.root, -1)]
        while let (n, parent) = stack.popLast() {
            let me = order.count
            order.append(n)
            parentOf.append(parent)
            let kids = world.children(of: n).map { (world.name(of: $0), $0) }
                .sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            for (_, c) in kids.reversed() { stack.append((c, me)) }
        }
        let count = order.count
        stats.nodes += count

        var names: [JSON] = []
        var lsTab = Table(), ugTab = Table(), flagTab = Table(), srcTab = Table(), aclTab = Table()
        var aclLines: [[String]] = []
        var ls: [Int] = [], own: [Int] = [], grp: [Int] = [], flg: [Int] = [], acl: [Int] = []
        var srcFile: [Int] = [], srcLine: [Int] = [], srcColumn: [Int] = []
        var links: [JSON] = []
        var paths: [String] = []
        paths.reserveCapacity(count)
        _ = flagTab.id("")
        for (i, n) in order.enumerated() {
            let node = world[n]
            let path = i == 0 ? "/" : (parentOf[i] == 0 ? "/" : paths[parentOf[i]] + "/") + world.name(of: n)
            paths.append(path)
            names.append(.string(i == 0 ? "/" : Escaping.line(world.name(of: n))))
            let aces = world.acl(of: n)?.entries ?? []
            let posix = world.posixACL(of: n).flatMap { $0.isMinimal ? nil : $0 }
            let mapped = world.mappedACLNodes.contains(n)
            let linux = primary == .linux
            let showACEs = !linux && !mapped && !aces.isEmpty
            // ls -l shows `+` for an extended access ACL or a default ACL.
            let plus = showACEs || posix != nil || (node.isDir && world.defaultPOSIXACL(of: n) != nil) ? "+" : " "
            ls.append(lsTab.id(String(node.type.lsChar) + node.mode.symbolic + plus))
            own.append(ugTab.id(Escaping.line(world.userName(node.uid))))
            grp.append(ugTab.id(Escaping.line(world.groupName(node.gid))))
            flg.append(flagTab.id(t.flagNames(node.flags).joined(separator: ",")))
            var al: [String] = []
            if let px = posix {
                al += t.posixLines(px, effective: true)
            } else if showACEs {
                for (k, ace) in aces.enumerated() { al.append("\(k): " + world.aceText(ace, forDirectory: node.isDir)) }
            }
            if node.isDir, let d = world.defaultPOSIXACL(of: n) { al += t.posixLines(d, prefix: "default:", effective: true) }
            if al.isEmpty {
                acl.append(-1)
            } else {
                let key = al.map(Escaping.line).joined(separator: "\n")
                let id = aclTab.id(key)
                if id == aclLines.count { aclLines.append(al.map(Escaping.line)) }
                acl.append(id)
            }
            if let l = p.nodeLocation(path), l.line > 0 {
                srcFile.append(srcTab.id(Escaping.line(l.file))); srcLine.append(l.line); srcColumn.append(l.column)
            } else {
                srcFile.append(-1); srcLine.append(0); srcColumn.append(0)
            }
            if node.type == .symlink, let target = world.symlinkTargets[n] {
                links.append(.array([.int(i), .string(Escaping.line(target))]))
            }
        }
        var indexOfNode: [NodeID: Int] = [:]
        for (i, n) in order.enumerated() { indexOfNode[n] = i }

        // Check and lint first: their nodes come first for explanations.
        var priority: [Int] = []
        var seenPriority = Set<Int>()
        func prioritize(_ path: String) {
            if let n = world.lookup(path), let i = indexOfNode[n], seenPriority.insert(i).inserted { priority.append(i) }
        }
        // What `lint` reports, the same way: the tree's findings and the apps', with the file's
        // `findings:` settings (rules off, severities, suppressions) applied.
        var lintJSON: [JSON] = []
        for item in LintItem.collect(p, file: p.file, semantics: primary).items {
            let f = item.finding
            if !f.path.isEmpty { prioritize(f.path) }
            var o: [(String, JSON)] = [
                ("code", .string(f.code)), ("name", .string(LintCatalog.rule(f.code)?.name ?? "")),
                ("severity", .string(f.severity.rawValue)),
                ("node", .int(f.path.isEmpty ? -1 : world.lookup(f.path).flatMap { indexOfNode[$0] } ?? -1)),
                ("path", .string(Escaping.line(f.path))), ("message", .string(Escaping.line(f.message))),
                ("fix", .string(Escaping.line(f.fix)))
            ]
            if let l = item.location, l.line > 0 { o.append(("src", .string(Escaping.line(l.description)))) }
            lintJSON.append(.object(o))
        }
        let expectJSON = expectations(p, world: world, indexOfNode: indexOfNode, prioritize: prioritize)

        // The grid, per rule set. Each node's row (one verdict per class of users and op) is
        // interned as it is made, so only the distinct rows are ever held, and the limit on them
        // is checked before a row is kept: a grid too big for a page is refused in memory
        // bounded by the limit, never built first (docs/cli.md, Limits).
        var verdictTab: [Verdict] = []
        var verdictIndex: [Verdict: Int] = [:]
        func verdictID(_ d: Decision) -> Int {
            let v = Verdict(allowed: d.allowed, errno: d.errno?.rawValue ?? "", layer: d.layer.rawValue, rule: d.rule.rawValue)
            if let i = verdictIndex[v] { return i }
            verdictIndex[v] = verdictTab.count
            verdictTab.append(v)
            return verdictTab.count - 1
        }
        var rowIndex: [[UInt16]: Int32] = [:]
        var rowList: [[UInt16]] = []
        var rowCells = 0
        var rowsPerSemantics: [[Int32]] = []
        var classOfPerSemantics: [[Int]] = []
        let file = Escaping.line(p.file)
        for sem in input.semantics where tooBig == nil {
            // Steps are applied under each rule set, so each has its own world after them: the
            // nodes of the tree shown are found there by path (absent: decided as absent).
            let semWorld = sem == primary ? world : Evaluator(policy: p, semantics: sem, tracing: false).world(after: nil)
            let ids: [NodeID?] = sem == primary ? order.map { $0 } : paths.map { semWorld.lookup($0) }
            var views = ViewWorlds()
            let users = input.users.map { (name: $0.name, subject: ReportInput.subject($0.name, $0.subject, in: semWorld, views: &views)) }
            var r: [Int32] = []
            r.reserveCapacity(count)
            let classOf = grid(
                world: semWorld, semantics: sem, users: users, ops: input.ops, ids: ids, parentOf: parentOf,
                paths: paths, file: file, verdictID: verdictID
            ) { row in
                if verdictTab.count > Int(UInt16.max) {
                    self.tooBig = "the grid of \(file) has more than \(UInt16.max) distinct verdicts, over the limit of a report (docs/cli.md, Limits)"
                    return false
                }
                let key = row.map { UInt16($0) }
                if let id = rowIndex[key] { r.append(id); return true }
                rowCells += key.count
                if rowCells > options.gridLimit {
                    self.tooBig = self.overBudget(
                        file, cells: key.count, ops: input.ops.count, rows: rowList.count + 1,
                        after: r.count + 1, of: count)
                    return false
                }
                rowIndex[key] = Int32(rowList.count)
                r.append(Int32(rowList.count))
                rowList.append(key)
                return true
            }
            rowsPerSemantics.append(r)
            classOfPerSemantics.append(classOf)
        }
        rowIndex = [:]
        let width = verdictTab.count <= 62 ? 1 : verdictTab.count <= 62 * 62 ? 2 : 3
        if tooBig == nil && rowCells * width > options.gridLimit {
            tooBig = self.overBudget(
                file, cells: rowList.first?.count ?? 0, ops: input.ops.count, rows: rowList.count,
                after: count, of: count, width: width)
        }
        if tooBig != nil { return .null }
        var rowTab = Table()
        rowTab.items = rowList.map { ReportBuilder.encode($0, width: width) }
        rowList = []
        let rows: [JSON] = rowsPerSemantics.map { .array($0.map { .int(Int($0)) }) }
        stats.rows += rowTab.items.count
        stats.verdicts += verdictTab.count
        let dirCount = order.reduce(0) { $0 + (world[$1].isDir ? 1 : 0) }
        let shownOps = dirCount * input.opIndices(directory: true).count + (count - dirCount) * input.opIndices(directory: false).count
        stats.cells += shownOps * input.users.count * input.semantics.count

        // Full explanations for the first nodes in priority order, then breadth first.
        let perNode = max(1, input.users.count * max(input.opIndices(directory: true).count, input.opIndices(directory: false).count) * input.semantics.count)
        var chosen: [Int] = []
        var taken = Set<Int>()
        func take(_ i: Int) -> Bool {
            guard explainBudget >= perNode else { return false }
            if taken.insert(i).inserted { chosen.append(i); explainBudget -= perNode }
            return true
        }
        var more = true
        for i in priority where more { more = take(i) }
        if more {
            var kids = [[Int]](repeating: [], count: count)
            for i in 1..<max(1, count) { kids[parentOf[i]].append(i) }
            var queue = [0], head = 0
            while head < queue.count && more {
                let i = queue[head]; head += 1
                more = take(i)
                queue += kids[i]
            }
        }
        var explained: [JSON] = []
        for (s, sem) in input.semantics.enumerated() {
            let sev = Evaluator(policy: p, semantics: sem)
            let st = TextRenderer(policy: p, world: sev.world(after: nil))
            for i in chosen {
                let shown = input.opIndices(directory: world[order[i]].isDir)
                for (u, user) in input.users.enumerated() {
                    for k in shown {
                        let op = input.ops[k]
                        let spec = RequestSpec(op: op, path: paths[i])
                        let subject = ReportInput.ref(user.name, user.subject)
                        guard let d = sev.decide(spec, subject: subject) else { continue }
                        let text = st.explain(d, spec: spec, subject: subject, who: user.name, semantics: sem)
                        explained.append(.array([.int(i), .int(u), .int(k), .int(s), .array(textLines(text).map { .int($0) })]))
                        stats.explainedCells += 1
                    }
                }
            }
        }
        stats.explainedNodes += chosen.count

        return .object([
            ("file", .string(Escaping.line(p.file))),
            ("semantics", .array(input.semantics.map { .string($0.rawValue) })),
            ("fileSemantics", .string(p.semantics.rawValue)),
            ("users", .array(input.users.map { .string(Escaping.line($0.name)) })),
            ("ops", .array(input.ops.map { .string($0.word) })),
            ("opsFile", .array(input.opIndices(directory: false).map { .int($0) })),
            ("opsDir", .array(input.opIndices(directory: true).map { .int($0) })),
            ("count", .int(count)),
            ("name", .array(names)),
            ("parent", .array(parentOf.map { .int($0) })),
            ("ls", .array(ls.map { .int($0) })), ("lsTab", .array(lsTab.items.map { .string($0) })),
            ("own", .array(own.map { .int($0) })), ("grp", .array(grp.map { .int($0) })),
            ("ugTab", .array(ugTab.items.map { .string($0) })),
            ("flg", .array(flg.map { .int($0) })), ("flgTab", .array(flagTab.items.map { .string($0) })),
            ("acl", .array(acl.map { .int($0) })), ("aclTab", .array(aclLines.map { .array($0.map { .string($0) }) })),
            ("srcFile", .array(srcFile.map { .int($0) })), ("srcLine", .array(srcLine.map { .int($0) })),
            ("srcColumn", .array(srcColumn.map { .int($0) })), ("srcTab", .array(srcTab.items.map { .string($0) })),
            ("links", .array(links)),
            ("verdicts", .array(verdictTab.map { .array([.int($0.allowed ? 1 : 0), .string($0.errno), .string($0.layer), .string($0.rule)]) })),
            ("width", .int(width)),
            ("rowTab", .array(rowTab.items.map { .string($0) })),
            ("rows", .array(rows)),
            ("classOf", .array(classOfPerSemantics.map { .array($0.map { .int($0) }) })),
            ("explained", .array(explained)),
            ("explainedNodes", .int(chosen.count)),
            ("expect", expectJSON),
            ("lint", .array(lintJSON))
        ])
    }

    static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    /// Cell verdict ids as fixed-width base-62 digits.
    static func encode(_ cells: [UInt16], width: Int) -> String {
        var s = ""
        s.reserveCapacity(cells.count * width)
        for c in cells {
            var v = Int(c)
            var d: [Character] = []
            for _ in 0..<width { d.append(digits[v % 62]); v /= 62 }
            s.append(contentsOf: d.reversed())
        }
        return s
    }

    // MARK: The grid

    /// For every node (report order), the verdict ids of classes × ops (class-major), handed to
    /// `emit` as it is made (which returns false to stop); returns the class of each user. Users
    /// in one class get the same answers everywhere, so a row per class is all the page needs,
    /// however many users there are.
    ///
    /// Decided once per class of equivalent subjects (the set engine's classes). For an op
    /// decided on the node alone (`Authorizer.isDecidedOnNode`) on a plain node (not a symlink,
    /// below directories only, its path leading back to it), the decision is the same for every
    /// node with the same attributes the class reaches, and for every node below the directory
    /// where the class's walk stops: those decisions are asked once and shared. Everything else
    /// is asked of `Authorizer.decide`.
    func grid(
        world: World, semantics: Semantics, users: [(name: String, subject: Subject)], ops: [Operation],
        ids: [NodeID?], parentOf: [Int], paths: [String], file: String, verdictID: (Decision) -> Int,
        emit: ([Int]) -> Bool
    ) -> [Int] {
        let engine = SetEngine(world: world, semantics: semantics, subjects: users.map(\.subject), ops: ops)
        let auth = Authorizer(world: world, semantics: semantics, tracing: false)
        let classes = engine.classCount
        let reps = engine.representatives.map { users[$0].subject }
        let classOf = engine.classOf
        // A service with a mount view is answered by path: never through the shared answers.
        var byPath = [Bool](repeating: false, count: classes)
        for c in engine.pathClasses { byPath[c] = true }
        let slots = classes * ops.count
        // One row alone over the limit: refused before anything of the size of a row is made.
        if slots > options.gridLimit {
            tooBig = self.overBudget(file, cells: slots, ops: ops.count, rows: 0, after: 0, of: ids.count)
            return classOf
        }
        // The ancestors of the node being decided (report order is depth first, parents first),
        // each with, per class, the report index of the directory where its walk stops (-1: it
        // reaches the node; nil when the node is not plain), and what its children inherit: only
        // the current path's arrays are held, and siblings share theirs.
        var ancestors: [(index: Int, blocked: [Int32]?, forChildren: [Int32]??)] = []
        var searchMemo: [Attr: [Bool]] = [:]
        var memo: [Int32] = []
        var memoEntries = 0
        var attrBase: [Attr: Int] = [:]
        var stopBase: [Int: Int] = [:]
        /// A new run of `slots` memo entries, or -1 once the memo is at its limit.
        func newBase() -> Int {
            guard memoEntries + slots <= ReportBuilder.memoBudget else { return -1 }
            memoEntries += slots
            let base = memo.count
            memo += [Int32](repeating: -1, count: slots)
            return base
        }
        var perClass = [Int](repeating: 0, count: slots)
        for i in ids.indices {
            if i > 0 { while let top = ancestors.last, top.index != parentOf[i] { ancestors.removeLast() } }
            guard let n = ids[i] else {
                // Not in this rule set's world: every cell is asked (and denied as absent).
                ancestors.append((i, nil, .some(nil)))
                for c in 0..<classes {
                    for (k, op) in ops.enumerated() {
                        perClass[c * ops.count + k] = verdictID(auth.decide(Request(subject: reps[c], op: op, path: paths[i])))
                        stats.decisions += 1
                    }
                }
                if !emit(perClass) { return classOf }
                continue
            }
            let node = world[n]
            // Reach.
            var b: [Int32]? = nil
            if i == 0 {
                b = n == World.root ? [Int32](repeating: -1, count: classes) : nil
            } else if var top = ancestors.last, top.blocked != nil, let pn = ids[parentOf[i]], node.parent == pn,
                world[pn].type == .dir, isPlain(world, n)
            {
                if let inherited = top.forChildren {
                    b = inherited
                } else {
                    let pa = Attr(world[pn])
                    let search: [Bool]
                    if let s = searchMemo[pa] {
                        search = s
                    } else {
                        search = reps.map { auth.searchGranted($0, dir: pn) }
                        if memoEntries + classes <= ReportBuilder.memoBudget {
                            memoEntries += classes
                            searchMemo[pa] = search
                        }
                    }
                    var nb = top.blocked!
                    for c in 0..<classes where nb[c] < 0 && !search[c] { nb[c] = Int32(parentOf[i]) }
                    b = nb
                    top.forChildren = .some(nb)
                    ancestors[ancestors.count - 1] = top
                }
            }
            ancestors.append((i, b, nil))
            // The shared answers live in one flat array: `slots` entries per attribute set
            // (reached) and per stopping directory (not reached), -1 until asked.
            var reachedBase = -1
            if b != nil {
                let attr = Attr(node)
                if let base = attrBase[attr] {
                    reachedBase = base
                } else {
                    reachedBase = newBase()
                    if reachedBase >= 0 { attrBase[attr] = reachedBase }
                }
            }
            for (k, op) in ops.enumerated() {
                let onNode = Authorizer.isDecidedOnNode(op) && b != nil
                for c in 0..<classes {
                    let slot = c * ops.count + k
                    var at = -1
                    if onNode, !byPath[c], let stop = b?[c] {
                        if stop < 0 {
                            at = reachedBase < 0 ? -1 : reachedBase + slot
                        } else {
                            var base = stopBase[Int(stop)] ?? -1
                            if base < 0 {
                                base = newBase()
                                if base >= 0 { stopBase[Int(stop)] = base }
                            }
                            at = base < 0 ? -1 : base + slot
                        }
                        if at >= 0 {
                            let v = memo[at]
                            if v >= 0 { perClass[slot] = Int(v); continue }
                        }
                    }
                    let v = verdictID(auth.decide(Request(subject: reps[c], op: op, path: paths[i])))
                    stats.decisions += 1
                    if at >= 0 { memo[at] = Int32(v) }
                    perClass[slot] = v
                }
            }
            if !emit(perClass) { return classOf }
        }
        return classOf
    }

    /// A node whose own path leads back to it through directories only (the set engine's test).
    func isPlain(_ world: World, _ n: NodeID) -> Bool {
        let node = world[n]
        if node.type == .symlink { return false }
        let name = world.name(of: n)
        if name == "." || name == ".." || name.isEmpty { return false }
        if !world.volumes[Int(node.volume)].caseSensitive {
            return world.child(node.parent, Substring(name)) == n
        }
        return true
    }

    // MARK: Check

    func expectations(_ p: Policy, world: World, indexOfNode: [NodeID: Int], prioritize: (String) -> Void) -> JSON {
        var ev = Evaluator(policy: p)
        ev.maxExamples = options.maxExamples
        let report = StreamedFileReport(evaluator: ev)
        var items: [JSON] = []
        func nodeIndex(_ path: String) -> Int { world.lookup(path).flatMap { indexOfNode[$0] } ?? -1 }
        let renderers = RendererCache(report)
        report.forEachOutcome { o in
            let e = o.expectation
            var f: [(String, JSON)] = [
                ("ok", .bool(o.passed)), ("label", .string(Escaping.line(e.label))),
                ("src", .string(Escaping.line("\(e.location.file):\(e.location.line)"))),
                ("path", .string(Escaping.line(e.request.path))),
                ("node", .int(e.glob == nil ? nodeIndex(e.request.path) : -1))
            ]
            if !o.passed {
                if e.glob == nil { prioritize(e.request.path) }
                let t = renderers.renderer(for: o)
                f.append(("expected", .string(Escaping.line(e.expectedText))))
                if let d = o.decision {
                    f.append(
                        (
                            "actual",
                            .string(
                                Escaping.line(
                                    t.oneLine(d, target: t.oneLineTarget(d, path: e.request.path))
                                        + " [layer \(d.layer.rawValue), rule \(d.rule.rawValue)]"))
                        ))
                    if !e.isQuantified, let s = e.subject {
                        let text = t.explain(d, spec: e.request, subject: s, who: e.asText ?? "", semantics: p.semantics)
                        f.append(("trace", .array(textLines(text).map { .int($0) })))
                    }
                } else if let a = o.actualAllowed {
                    f.append(("actual", .string(Escaping.line("allowed: " + (a.isEmpty ? PrincipalName.noOne : a.joined(separator: ", "))))))
                }
                f.append(("mismatches", .array(o.mismatches.map { .string(Escaping.line($0)) })))
                if e.isQuantified {
                    f.append(("pairs", .int(o.pairsChecked)))
                    f.append(("cxCount", .int(o.counterexampleCount)))
                    f.append(
                        (
                            "cx",
                            .array(
                                o.counterexamples.map { c in
                                    prioritize(c.path)
                                    var spec = e.request
                                    spec.path = c.path
                                    let text = t.explain(c.decision, spec: spec, subject: .user(c.uid), who: c.user, semantics: p.semantics)
                                    return .object([
                                        ("user", .string(Escaping.line(c.user))), ("path", .string(Escaping.line(c.path))),
                                        ("node", .int(indexOfNode[c.node] ?? nodeIndex(c.path))),
                                        ("mismatch", .string(Escaping.line(c.mismatch))),
                                        ("actual", .string(Escaping.line(t.oneLine(c.decision, target: t.oneLineTarget(c.decision, path: c.path))))),
                                        ("trace", .array(textLines(text).map { .int($0) }))
                                    ])
                                })
                        ))
                }
            }
            items.append(.object(f))
        }
        return .object([
            ("count", .int(report.count)), ("passed", .int(report.passed)), ("failed", .int(report.failed)),
            ("items", .array(items))
        ])
    }
}

extension Int {
    /// The number with commas between groups of three digits (`24,000,000`).
    var formatted3: String {
        let digits = String(magnitude)
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return (self < 0 ? "-" : "") + out
    }
}
