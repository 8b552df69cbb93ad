import FSPolicy
import FSPolicyFormat

/// Tree listings for `fspolicy simulate`: `ls -le` style under macos and guide (numbered ACEs,
/// `inherited`), `getfacl` style under linux.
extension TextRenderer {
    /// Every node at or below `top` that is still in the tree, parents first, by name.
    public func listedNodes(under top: NodeID) -> [NodeID] {
        [top] + world.descendants(of: top)
    }

    public func lsle(_ nodes: [NodeID]) -> [String] {
        let owners = nodes.map { world.userName(world[$0].uid) }
        let groups = nodes.map { world.groupName(world[$0].gid) }
        let ow = owners.map(\.count).max() ?? 0
        let gw = groups.map(\.count).max() ?? 0
        let showFlags = nodes.contains { !world[$0].flags.isEmpty }
        let fw = showFlags ? (nodes.map { flagNames(world[$0].flags).joined(separator: ",").count }.max() ?? 1) : 0
        var out: [String] = []
        for (i, n) in nodes.enumerated() {
            let node = world[n]
            let acl = world.acl(of: n)
            let plus = (acl?.isEmpty == false) ? "+" : " "
            var line = String(node.type.lsChar) + node.mode.symbolic + plus + " "
            line += owners[i].padding(toLength: ow, withPad: " ", startingAt: 0) + "  "
            line += groups[i].padding(toLength: gw, withPad: " ", startingAt: 0) + "  "
            if showFlags {
                let f = flagNames(node.flags).joined(separator: ",")
                line += (f.isEmpty ? "-" : f).padding(toLength: fw, withPad: " ", startingAt: 0) + "  "
            }
            line += world.path(of: n)
            if node.type == .symlink, let t = world.symlinkTargets[n] { line += " -> " + t }
            out.append(line)
            for (k, ace) in (acl?.entries ?? []).enumerated() {
                out.append(" \(k): " + world.aceText(ace, forDirectory: node.isDir))
            }
        }
        return out
    }

    public func getfaclListing(_ nodes: [NodeID]) -> [String] {
        var out: [String] = []
        for n in nodes {
            let node = world[n]
            out.append("# file: " + world.path(of: n))
            out.append("# owner: " + world.userName(node.uid))
            out.append("# group: " + world.groupName(node.gid))
            if node.mode.rawValue & 0o7000 != 0 {
                out.append("# flags: " + (node.mode.isSetuid ? "s" : "-") + (node.mode.isSetgid ? "s" : "-") + (node.mode.isSticky ? "t" : "-"))
            }
            let f = flagNames(node.flags)
            if !f.isEmpty { out.append("# chattr: " + f.joined(separator: ",")) }
            // getfacl does not say a node's type; a device node says which kind it is.
            if node.type.isDevice { out.append("# type: " + node.type.word) }
            if node.type == .symlink {
                out.append("# symlink: " + (world.symlinkTargets[n] ?? ""))
            } else {
                out.append(contentsOf: posixLines(world.posixACL(of: n) ?? POSIXACL(mode: node.mode), effective: true))
                if let d = world.defaultPOSIXACL(of: n) { out.append(contentsOf: posixLines(d, prefix: "default:", effective: true)) }
            }
            out.append("")
        }
        return out
    }

    public func nodeJSON(_ n: NodeID) -> JSON {
        let node = world[n]
        var o: [(String, JSON)] = [
            ("path", .string(world.path(of: n))), ("type", .string(node.type.word)),
            ("owner", .string(world.userName(node.uid))), ("group", .string(world.groupName(node.gid))),
            ("mode", .string(node.mode.octal)), ("flags", .array(flagNames(node.flags).map { .string($0) }))
        ]
        if let acl = world.acl(of: n), !world.mappedACLNodes.contains(n) {
            o.append(("acl", .array(acl.entries.map { .string(world.aceText($0, forDirectory: node.isDir)) })))
        }
        if let a = world.posixACL(of: n) { o.append(("posixAcl", .array(posixLines(a).map { .string($0) }))) }
        if let d = world.defaultPOSIXACL(of: n) { o.append(("defaultAcl", .array(posixLines(d).map { .string($0) }))) }
        if let t = world.symlinkTargets[n] { o.append(("target", .string(t))) }
        return .object(o)
    }
}
