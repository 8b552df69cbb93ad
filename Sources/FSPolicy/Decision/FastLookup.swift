/// Path lookup straight from the bytes of the path: no splitting, no String or Substring work.
/// Handles the common case — no `.` or `..`, no symlink on the way; for anything else it returns
/// nil (after undoing what it recorded) and the general walk runs.
extension Eval {
    enum AncestorCheck { case passed, denied(Outcome), tooDeep }

    /// Search checks on `n`'s ancestors, root first (the directories a walk to `n` looks names
    /// up in), then on `n` itself when `including`. Paths deeper than 32 levels are left to the
    /// general walk (`tooDeep`, nothing checked).
    mutating func searchAncestors(of n: NodeID, including: Bool) -> AncestorCheck {
        if !including && n == World.root { return .passed }
        return withUnsafeTemporaryAllocation(of: NodeID.self, capacity: 32) { slots -> AncestorCheck in
            var count = 0
            var cur = including ? n : world[n].parent
            while true {
                if count == slots.count { return .tooDeep }
                slots[count] = cur
                count += 1
                if cur == World.root { break }
                cur = world[cur].parent
            }
            return checkAncestors(slots, count: count)
        }
    }

    /// Search checks on the directories `slots[0..<count]` (from the lowest up to the root),
    /// root first. `slots` is written.
    mutating func checkAncestors(_ slots: UnsafeMutableBufferPointer<NodeID>, count: Int) -> AncestorCheck {
        var i = count - 1
        if !tracing && appBox == nil {
            // The common case inline: directories with no ACL and no rewrite, judged on
            // their mode bits; the rest goes through searchCheck. Same rule as
            // `quickSearch` (keep the two in step): calling it here copies the whole Eval
            // per directory, about 12% more instructions per decision (callgrind).
            let uid = subject.uid
            let isRoot = searchBypass
            let linux = sem == .linux
            let macos = sem == .macos
            let directOnly = linux && !subject.nestedOnly.isEmpty
            // First, with nothing called that could change `self` (so nothing is retained
            // for the loop), top down, the directories the quick check (no ACL, no rewrite,
            // mode bits) cannot pass are gathered at the top of `slots`; a quick failure
            // ends the list (searchCheck will deny there). Then searchCheck judges those.
            var kept = count
            quickPass: while i >= 0 {
                let node = world.nodes[Int(slots[i])]
                i -= 1
                var quick = !(node.acl >= 0 || node.posixACL >= 0 || node.protection != .unspecified)
                // x for owner, group and other: every subject may search, under every rule set
                // (an identity rewrite only picks which class applies). Most directories.
                if quick && node.mode.rawValue & 0o111 == 0o111 { continue }
                if quick && isRoot { continue }
                if quick && world.volumeBits[Int(node.volume)].ignoreOwnership && !linux { quick = false }
                if quick && macos && (node.uid == WellKnown.unknownID || node.gid == WellKnown.unknownID) { quick = false }
                var failed = false
                if quick {
                    let bits: UInt16
                    if node.uid == uid {
                        bits = node.mode.rawValue >> 6
                    } else {
                        var member = false
                        for g in subject.groups where g == node.gid { member = true; break }
                        if member && directOnly && !subject.isDirectMember(node.gid) { member = false }
                        bits = member ? node.mode.rawValue >> 3 : node.mode.rawValue
                    }
                    if bits & 1 != 0 { continue }
                    failed = true
                }
                // (slots[i + 1] was just read; kept > i + 1, so nothing unread is written.)
                kept -= 1
                slots[kept] = slots[i + 1]
                if failed { break quickPass }
            }
            for k in stride(from: count - 1, through: kept, by: -1) {
                if let denied = searchCheck(slots[k]) { return .denied(denied) }
            }
            return .passed
        }
        if tracing && sem == .linux && tracedSearchShortcut && appBox == nil {
            // A traced walk under linux: a directory the mode bits let the caller search gets
            // its step here, as `searchCheck` makes it first (`linuxTracedSearch`, then `step`),
            // without the rest of `searchCheck`'s call; any other goes through `searchCheck`.
            // About a tenth of the instructions of a traced decision (callgrind), which a report
            // pays for every failure.
            while i >= 0 {
                let dir = slots[i]
                i -= 1
                if let ev = linuxTracedSearch(dir) {
                    step(.traversal, .searchGranted, .allow, dir, .search, [], ev)
                    continue
                }
                if let denied = searchCheck(dir) { return .denied(denied) }
            }
            return .passed
        }
        while i >= 0 {
            if let denied = searchCheck(slots[i]) { return .denied(denied) }
            i -= 1
        }
        return .passed
    }

    mutating func resolveBytes(_ path: String, followTrailing: Bool) -> Result<Resolved, Outcome>? {
        if let r = resolveIndexed(path, followTrailing: followTrailing) { return r }
        return resolveComponents(path, followTrailing: followTrailing)
    }

    /// One hash of the whole path (or of its parent, for a name that does not exist yet). The
    /// verification's walk up the path records the nodes it passes, which are the directories
    /// the search checks then: the path is walked up once, not twice.
    mutating func resolveIndexed(_ path: String, followTrailing: Bool) -> Result<Resolved, Outcome>? {
        path.utf8.withContiguousStorageIfAvailable { resolveIndexed(bytes: $0, followTrailing: followTrailing) } ?? nil
    }

    /// The same for a path given as its bytes.
    mutating func resolveIndexed(bytes buf: UnsafeBufferPointer<UInt8>, followTrailing: Bool) -> Result<Resolved, Outcome>? {
        withUnsafeTemporaryAllocation(of: NodeID.self, capacity: 33) { chain -> Result<Resolved, Outcome>? in
            var walked = 0
            let n = buf.count
            guard n > 1, buf[0] == 0x2f, buf[n - 1] != 0x2f else { return nil }
            // (Straight code, not a closure called at once: about 30 instructions fewer.)
            let f: (node: NodeID?, parent: NodeID)
            if let node = box.indexedNode(buf, chain: chain, walked: &walked) {
                f = (node, world.nodes[Int(node)].parent)
            } else {
                var k = n - 1
                while k > 0 && buf[k] != 0x2f { k -= 1 }
                let parentBytes = k == 0 ? UnsafeBufferPointer(rebasing: buf[0..<1]) : UnsafeBufferPointer(rebasing: buf[0..<k])
                walked = 0
                guard let p = k == 0 ? World.root : box.indexedNode(parentBytes, chain: chain, walked: &walked), world.nodes[Int(p)].type == .dir else {
                    return nil
                }
                let name = UnsafeBufferPointer(rebasing: buf[(k + 1)..<n])
                if name.count == 0 || (name.count == 1 && name[0] == 0x2e) || (name.count == 2 && name[0] == 0x2e && name[1] == 0x2e) { return nil }
                let (c, certain) = world.fastChild(p, name)
                // A name missing where not every name was read is the general walk's to answer (P6).
                guard certain, c == nil, world.unread.isEmpty || world.unread[p] == nil else { return nil }
                f = (nil, p)
            }
            // The directories to search, lowest first, up to the root: those the walk recorded
            // (after the node itself, when it exists), then the root. 32 at most, as in
            // `searchAncestors` (deeper paths go the general way).
            let from = f.node == nil ? 0 : 1
            if let node = f.node, world.nodes[Int(node)].type == .symlink && followTrailing { return nil }
            if walked > 32 { return nil }
            chain[walked] = World.root
            let slots = UnsafeMutableBufferPointer(rebasing: chain[from...walked])
            if slots.count > 32 { return nil }
            switch checkAncestors(slots, count: slots.count) {
            case .tooDeep: return nil
            case .denied(let d): return .failure(d)
            case .passed: return .success(Resolved(parent: f.parent, node: f.node))
            }
        }
    }

    mutating func resolveComponents(_ path: String, followTrailing: Bool) -> Result<Resolved, Outcome>? {
        path.utf8.withContiguousStorageIfAvailable { buf -> Result<Resolved, Outcome>? in
            let traceMark = trace.count
            let notesMark = notes.count
            func giveUp() -> Result<Resolved, Outcome>? {
                if trace.count > traceMark { trace.removeSubrange(traceMark...) }
                if notes.count > notesMark { notes.removeSubrange(notesMark...) }
                return nil
            }
            let n = buf.count
            var i = 0
            var cur = World.root
            while i < n && buf[i] == 0x2f { i += 1 }
            if i == n { return .success(Resolved(parent: World.root, node: World.root)) }
            while i < n {
                var j = i
                while j < n && buf[j] != 0x2f { j += 1 }
                var k = j
                while k < n && buf[k] == 0x2f { k += 1 }
                let isLast = k == n
                let len = j - i
                if (len == 1 && buf[i] == 0x2e) || (len == 2 && buf[i] == 0x2e && buf[i + 1] == 0x2e) { return giveUp() }
                if world[cur].type != .dir {
                    return .failure(finish(.deny(.ENOTDIR, .traversal, .notADirectory, cur, .node(cur)), []))
                }
                if let denied = searchCheck(cur) { return .failure(denied) }
                let (found, certain) = world.fastChild(cur, UnsafeBufferPointer(rebasing: buf[i..<j]))
                if !certain { return giveUp() }
                guard let c = found else {
                    // Not found where not every name was read: it may exist (P6).
                    if world.unread[cur] != nil {
                        return .failure(unreadLookup(cur, String(decoding: UnsafeBufferPointer(rebasing: buf[i..<j]), as: UTF8.self))!)
                    }
                    if isLast { return .success(Resolved(parent: cur, node: nil)) }
                    let name = String(decoding: UnsafeBufferPointer(rebasing: buf[i..<j]), as: UTF8.self)
                    return .failure(finish(.deny(.ENOENT, .traversal, .notFound, cur, .missing(dir: cur, name: name)), []))
                }
                if world[c].type == .symlink && (!isLast || followTrailing) { return giveUp() }
                if isLast { return .success(Resolved(parent: cur, node: c)) }
                cur = c
                i = k
            }
            return .success(Resolved(parent: world[cur].parent, node: cur))
        } ?? nil
    }
}
