/// Path lookup straight from the bytes of the path: no splitting, no String or Substring work.
/// Handles the common case — no `.` or `..`, no symlink on the way; for anything else it returns
/// nil (after undoing what it recorded) and the general walk runs.
extension Eval {
    mutating func resolveBytes(_ path: String, followTrailing: Bool) -> Result<Resolved, Outcome>? {
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
                    if isLast { return .success(Resolved(parent: cur, node: nil)) }
                    return .failure(finish(.deny(.ENOENT, .traversal, .notFound, cur, .node(cur)), []))
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
