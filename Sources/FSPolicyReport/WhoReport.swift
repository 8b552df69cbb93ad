import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import Foundation

/// `fspolicy who` (docs/cli.md): every declared user, app and service allowed, denied or not
/// known to do an operation, with the deciding rule; the groups through which it is allowed;
/// and under linux the programs through which someone refused as themselves is allowed. As
/// text or JSON.
public enum WhoReport {
    public typealias Row = (name: String, uid: UID, decision: Decision)

    /// A group through which the operation is allowed: where it is named, and its members.
    public struct Group: Sendable {
        public var name: String
        public var gid: GID
        /// Where the group is named: the node's `group` or `ACL`, the `directory's group` or `ACL`.
        public var via: String
        public var members: [String]
        public init(name: String, gid: GID, via: String, members: [String]) {
            self.name = name
            self.gid = gid
            self.via = via
            self.members = members
        }
    }

    /// Everything the answer shows.
    public struct Answer {
        /// The op words asked (several with `--any`), and the first one's request.
        public var ops: [String]
        public var spec: RequestSpec
        public var semantics: Semantics
        public var users: [Row]
        public var apps: [Row]
        public var services: [Row]
        public var groups: [Group]
        public var programs: [ProgramAccess]
        /// Whether the file declares apps and services (the JSON has their keys only then).
        public var listsApps: Bool
        public var listsServices: Bool
        /// The node asked about, if it exists.
        public var target: NodeID?

        public init(
            ops: [String], spec: RequestSpec, semantics: Semantics, users: [Row], apps: [Row], services: [Row], groups: [Group],
            programs: [ProgramAccess], listsApps: Bool, listsServices: Bool, target: NodeID?
        ) {
            self.ops = ops
            self.spec = spec
            self.semantics = semantics
            self.users = users
            self.apps = apps
            self.services = services
            self.groups = groups
            self.programs = programs
            self.listsApps = listsApps
            self.listsServices = listsServices
            self.target = target
        }
    }

    /// `allowedOnly`, `deniedOnly`: `--allowed`, `--denied`.
    public static func json(_ a: Answer, allowedOnly: Bool, deniedOnly: Bool, renderer t: TextRenderer) -> String {
        func row(_ r: Row) -> JSON {
            .object([
                ("name", .string(r.name)), ("uid", .int(Int(r.uid))),
                ("result", .string(r.decision.allowed ? "allow" : r.decision.unknown ? "unknown" : "deny")),
                ("errno", r.decision.errno.map { .string($0.rawValue) } ?? .null),
                ("layer", .string(r.decision.layer.rawValue)), ("rule", .string(r.decision.rule.rawValue)),
                ("decidedBy", t.on(r.decision).json(r.decision.evidence))
            ])
        }
        func keep(_ r: Row) -> Bool {
            allowedOnly ? r.decision.allowed : deniedOnly ? !r.decision.allowed && !r.decision.unknown : true
        }
        var doc: [(String, JSON)] = [("schemaVersion", .int(1))]
        doc.append(a.ops.count > 1 ? ("ops", .array(a.ops.map { .string($0) })) : ("op", .string(a.spec.op.word)))
        doc += [
            ("path", .string(a.spec.path)),
            ("semantics", .string(a.semantics.rawValue)),
            ("users", .array(a.users.filter(keep).map(row))),
            (
                "groups",
                .array(
                    a.groups.map { g in
                        .object([
                            ("name", .string(g.name)), ("gid", .int(Int(g.gid))), ("via", .string(g.via)),
                            ("members", .array(g.members.map { .string($0) }))
                        ])
                    })
            )
        ]
        if a.listsApps { doc.append(("apps", .array(a.apps.filter(keep).map(row)))) }
        if a.listsServices { doc.append(("services", .array(a.services.filter(keep).map(row)))) }
        if !a.programs.isEmpty {
            doc.append(
                (
                    "throughPrograms",
                    .array(
                        a.programs.map { pa in
                            .object([
                                ("path", .string(pa.path)), ("gives", .array(pa.gives.map { .string($0) })), ("users", .array(pa.users.map { .string($0) }))
                            ])
                        })
                ))
        }
        return JSON.object(doc).render() + "\n"
    }

    /// `listAll`: every user by name, never `everyone except …`.
    public static func text(_ a: Answer, allowedOnly: Bool, deniedOnly: Bool, listAll: Bool, renderer t: TextRenderer) -> String {
        let style = t.style
        let words = a.ops
        let opText = words.count > 1 ? words.dropLast().joined(separator: ", ") + " or " + words.last! : a.spec.op.word
        let rows = a.users + a.apps + a.services
        var out = ["Who can \(opText) \(a.spec.path)? [semantics: \(a.semantics.rawValue)]"]
        let width = max(8, rows.map(\.name.count).max() ?? 0)
        let allowedRows = rows.filter { $0.decision.allowed }
        let deniedRows = rows.filter { !$0.decision.allowed && !$0.decision.unknown }
        let unknown = rows.filter { $0.decision.unknown }
        let set = listAll ? nil : SubjectSetText.phrase(allowed: a.users.filter { $0.decision.allowed }.map(\.name), of: a.users.map(\.name))
        func pad(_ name: String) -> String { "  " + name.padding(toLength: width + 2, withPad: " ", startingAt: 0) }
        if !deniedOnly {
            if let set, a.apps.isEmpty {
                out.append(style.bold("allowed:") + " " + set)
            } else {
                out.append(style.bold("allowed:") + (allowedRows.isEmpty ? " " + PrincipalName.noOne : ""))
                for r in allowedRows {
                    let ev = t.on(r.decision).evidence(r.decision.evidence, relativeTo: a.target)
                    out.append(pad(r.name) + "\(r.decision.layer.rawValue): \(r.decision.rule.rawValue)" + (ev.isEmpty ? "" : " — " + ev))
                }
            }
            if !a.groups.isEmpty {
                out.append(style.bold("through groups:"))
                for g in a.groups {
                    let members = g.members.isEmpty ? "no members" : "members " + g.members.joined(separator: ", ")
                    out.append(pad("@" + g.name) + "named by the \(g.via); \(members)")
                }
            }
        }
        if !allowedOnly {
            out.append(style.bold("denied:") + (deniedRows.isEmpty ? " " + PrincipalName.noOne : ""))
            for r in deniedRows { out.append(pad(r.name) + t.oneLine(r.decision, target: a.target)) }
        }
        // Only when some answer is not known: the file lacks what decides it (P6).
        if !unknown.isEmpty {
            out.append(style.bold("unknown:"))
            for r in unknown { out.append(pad(r.name) + t.oneLine(r.decision, target: a.target)) }
        }
        if !a.programs.isEmpty {
            out.append(style.bold("allowed through a program they may run") + " (set-ID bits, file capabilities; what it does is up to its code):")
            for pa in a.programs {
                out.append("  " + pa.path + " (" + pa.gives.joined(separator: ", ") + "): " + pa.users.joined(separator: ", "))
            }
        }
        return out.joined(separator: "\n") + "\n"
    }
}
