import FSPolicy
import FSPolicyFormat
import FSPolicyRender

/// What `access` found, and its three outputs: CSV (`path,type`), JSON, and text (a tree).
package struct AccessListing {
    package var world: World
    package var user: String
    package var uid: UID
    package var ops: [FSPolicy.Operation]
    package var any: Bool
    package var denied: Bool
    package var semantics: Semantics
    /// The node listed from.
    package var top: NodeID
    /// Every node at or below `top`, in tree order: its depth below `top`, its path, and
    /// whether it is listed (the others are shown only to place what is below them).
    package var rows: [(node: NodeID, depth: Int, path: String, selected: Bool)]
    /// The nodes whose answer is unknown (what decides it was not read).
    package var unknown: [(node: NodeID, path: String)]
    /// The folders whose entries were not read, with why.
    package var unreadFolders: [(path: String, reason: UnreadReason)]

    package init(
        world: World, user: String, uid: UID, ops: [FSPolicy.Operation], any: Bool, denied: Bool, semantics: Semantics, top: NodeID,
        rows: [(node: NodeID, depth: Int, path: String, selected: Bool)], unknown: [(node: NodeID, path: String)],
        unreadFolders: [(path: String, reason: UnreadReason)]
    ) {
        self.world = world; self.user = user; self.uid = uid; self.ops = ops; self.any = any; self.denied = denied
        self.semantics = semantics; self.top = top; self.rows = rows; self.unknown = unknown; self.unreadFolders = unreadFolders
    }

    var selected: [(node: NodeID, depth: Int, path: String, selected: Bool)] { rows.filter(\.selected) }

    package var csv: String {
        var out = "path,type\n"
        for r in selected { out += csvField(r.path) + "," + world[r.node].type.word + "\n" }
        return out
    }

    package var json: String {
        let doc = JSON.object([
            ("schemaVersion", .int(1)), ("user", .string(user)), ("uid", .int(Int(uid))),
            ("ops", .array(ops.map { .string($0.word) })), ("any", .bool(any)), ("under", .string(world.path(of: top))), ("denied", .bool(denied)),
            ("semantics", .string(semantics.rawValue)), ("nodes", .int(rows.count)),
            ("matches", .array(selected.map { .object([("path", .string($0.path)), ("type", .string(world[$0.node].type.word))]) })),
            ("unknown", .array(unknown.map { .object([("path", .string($0.path)), ("type", .string(world[$0.node].type.word))]) })),
            ("unread", .array(unreadFolders.map { .object([("path", .string($0.path)), ("reason", .string($0.reason.rawValue))]) }))
        ])
        return doc.render() + "\n"
    }

    /// The tree: the listed nodes, and in parentheses the directories shown only to place
    /// what is below them; then the unknown answers and the folders not read.
    package func text(style: Style) -> String {
        let selected = self.selected
        let under = world.path(of: top)
        let opText =
            any && ops.count > 1
            ? ops.dropLast().map(\.word).joined(separator: ", ") + " or " + ops.last!.word
            : ops.map(\.word).joined(separator: ", ")
        let verb = denied ? "may not" : "may"
        // The pieces are escaped already; this turns the style's marks into colors.
        func paint(_ s: String) -> String { style.enabled ? Escaping.terminal(s, color: true) : s }
        var out = paint(
            style.bold("\(safe(user)) \(verb) \(opText) under \(safe(under))")
                + " [semantics: \(semantics.rawValue)]: \(selected.count) of \(rows.count) node(s)\n")
        // A row is shown when selected, or in parentheses when something below it is.
        var show = [Bool](repeating: false, count: rows.count)
        var needed: Set<NodeID> = []
        for (i, r) in rows.enumerated().reversed() {
            if r.selected || needed.contains(r.node) {
                show[i] = true
                if r.node != top { needed.insert(world[r.node].parent) }
            }
        }
        for (i, r) in rows.enumerated() where show[i] {
            let name = r.node == top ? r.path : world.name(of: r.node)
            let label = safe(name) + (world[r.node].isDir && name != "/" ? "/" : "")
            let text = r.selected ? label : "(" + label + ")"
            out += String(repeating: "  ", count: r.depth) + text + "\n"
        }
        if !unknown.isEmpty {
            out += paint(style.yellow("unknown")) + " (what decides it was not read): " + unknown.map { safe($0.path) }.joined(separator: ", ") + "\n"
        }
        if !unreadFolders.isEmpty {
            out += "not read, so not listed: the entries of " + unreadFolders.map { "\(safe($0.path)) (\($0.reason.phrase))" }.joined(separator: ", ") + "\n"
        }
        return out
    }
}
