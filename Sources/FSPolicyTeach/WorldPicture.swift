import FSPolicy
import FSPolicyFormat
import FSPolicyRender

/// What a quiz question shows: a short `ls -le` style picture of the nodes a request touches,
/// and the question itself.
extension TextRenderer {
    /// The nodes a request walks through, from `/` down to each path it names (and the
    /// destination's, for rename and link), in order and without repeats; `missing` are paths
    /// named by the request that do not exist (the new name of a create, …).
    package func nodesInvolved(_ spec: RequestSpec) -> (nodes: [NodeID], missing: [String]) {
        var nodes: [NodeID] = []
        var missing: [String] = []
        for path in [spec.path] + (spec.to.map { [$0] } ?? []) {
            var cur = World.root
            if !nodes.contains(cur) { nodes.append(cur) }
            for comp in path.split(separator: "/") where comp != "." {
                guard world[cur].type == .dir, let c = world.child(cur, comp) else {
                    if !missing.contains(path) { missing.append(path) }
                    break
                }
                cur = c
                if !nodes.contains(cur) { nodes.append(cur) }
                if world[cur].type == .symlink { break }
            }
        }
        return (nodes, missing)
    }

    /// A short picture of the world for one question: who asks (with all their groups), then
    /// the nodes involved as `ls -le` would show them — type and mode, `+` when there is an
    /// ACL, owner, group, flags — each ACL entry below its node (`ls -le` numbering for macOS
    /// ACEs, getfacl text for POSIX ACLs), and what is special about the volumes involved.
    package func worldPicture(_ spec: RequestSpec, subject: SubjectRef, semantics: Semantics) -> [String] {
        var out: [String] = []
        out.append(subjectLine(subject, semantics: semantics) + " looks at:")
        let (nodes, missing) = nodesInvolved(spec)
        let owners = nodes.map { world.userName(world[$0].uid) }
        let groups = nodes.map { world.groupName(world[$0].gid) }
        let ow = owners.map(\.count).max() ?? 0
        let gw = groups.map(\.count).max() ?? 0
        let flagTexts = nodes.map { flagNames(world[$0].flags).joined(separator: ",") }
        let fw = flagTexts.map(\.count).max() ?? 0
        for (i, n) in nodes.enumerated() {
            let node = world[n]
            let aces = world.acl(of: n)?.entries ?? []
            let posix = semantics == .linux ? world.posixACL(of: n).flatMap { $0.isMinimal ? nil : $0 } : nil
            let mapped = world.mappedACLNodes.contains(n)
            let plus = (!aces.isEmpty && semantics != .linux) || posix != nil ? "+" : " "
            var line = "  " + String(node.type.lsChar) + node.mode.symbolic + plus + " "
            line += owners[i].padding(toLength: ow, withPad: " ", startingAt: 0) + "  "
            line += groups[i].padding(toLength: gw, withPad: " ", startingAt: 0) + "  "
            if fw > 0 { line += (flagTexts[i].isEmpty ? "-" : flagTexts[i]).padding(toLength: fw, withPad: " ", startingAt: 0) + "  " }
            line += world.path(of: n)
            if node.type == .symlink, let t = world.symlinkTargets[n] { line += " -> " + t }
            if node.protection != .unspecified { line += "  (protection: \(node.protection.word)\(node.openBeforeLock ? ", open" : ""))" }
            out.append(line)
            if let p = posix {
                for l in posixLines(p, effective: true) { out.append("      " + l) }
            } else if semantics != .linux && !mapped {
                for (k, ace) in aces.enumerated() { out.append("      \(k): " + world.aceText(ace, forDirectory: node.isDir)) }
            } else if semantics != .linux, let p = world.posixACL(of: n), !p.isMinimal {
                for l in posixLines(p, effective: true) { out.append("      " + l) }
            }
        }
        for m in missing { out.append("  (does not exist)  " + m) }
        var seen: Set<UInt16> = []
        for n in nodes where !seen.contains(world[n].volume) {
            seen.insert(world[n].volume)
            let v = world.volume(of: n)
            var traits: [String] = []
            if v.readOnly { traits.append("read-only") }
            if v.noexec { traits.append("noexec") }
            if v.ignoreOwnership {
                traits.append(
                    "ownership ignored (owner \(v.fsOwner.map { world.userName($0) } ?? "99"), group \(v.fsGroup.map { world.groupName($0) } ?? "99"))")
            }
            if !v.acls { traits.append("ACLs off") }
            if !v.caseSensitive { traits.append("case-insensitive") }
            if v.kind != .internal { traits.append(v.kind.rawValue) }
            if !traits.isEmpty { out.append("  volume \(v.mountPath): " + traits.joined(separator: ", ")) }
        }
        if world.securelevel != 0 { out.append("  securelevel \(world.securelevel)") }
        if world.device != .unlocked { out.append("  device: \(world.device.rawValue)") }
        // The sysctls shape linux answers about sticky directories and links: show them there.
        if semantics == .linux && nodes.contains(where: { world[world[$0].parent].mode.isSticky || world[$0].type == .symlink }) {
            out.append("  " + LinuxTunable.allCases.map { "\($0.sysctl)=\(world.linux[$0])" }.joined(separator: ", "))
        }
        return out
    }

    /// The question asked about an expectation: "Can bob delete /Shared/plan.txt?"
    package func quizQuestion(_ spec: RequestSpec, who: String) -> String {
        let q = spec.op == .readwrite ? "can \(who) open \(spec.path) for reading and writing?" : question(spec, who: who)
        return q.prefix(1).uppercased() + q.dropFirst()
    }
}
