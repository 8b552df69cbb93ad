import FSPolicy

/// The JSON Schema (draft 2020-12) of policy format version 1, for editors
/// (`# yaml-language-server: $schema=…`) and validators.
///
/// It is built from the loader's own tables: the key lists every mapping is checked against
/// (`topKeys`, `nodeKeys`, …) and the core's word tables (operations, flags, ACE rights, errnos,
/// layers, rule sets). `keyDocs` gives each key its type and a one-line description; a key the
/// loader knows without an entry there is reported by `PolicySchema.undocumentedKeys`, and a test
/// keeps that list empty, so the schema cannot fall behind the loader.
///
/// The loader reads scalars as their source text, so wherever it takes "a string" it also takes
/// what a YAML parser would type as a number or a boolean (`name: 12`); the schema says the same.
public enum PolicySchema {
    /// The schema's identifier (a URN: the schema is shipped with fspolicy, not served from a host).
    public static let id = "urn:fspolicy:policy-format:1"

    /// Every section the loader checks keys for: its name, the loader's key list, and the
    /// definition that describes its values.
    static var sections: [(name: String, keys: [String])] {
        [
            ("top", topKeys), ("group", groupKeys), ("user", userKeys), ("volume", volumeKeys), ("defaults", defaultsKeys),
            ("node", nodeKeys), ("import", importKeys), ("app", appKeys), ("bookmark", bookmarkKeys), ("tcc", tccKeys),
            ("device", deviceKeys), ("linux", linuxKeys), ("expectation", expectKeys), ("step", stepKeys), ("state", stateKeys)
        ]
            + extraSections
    }

    /// Sections added by later parts of the loader (kept here so the list above stays short).
    static var extraSections: [(name: String, keys: [String])] {
        [("findings", findingsKeys), ("suppression", suppressKeys), ("service", serviceKeys), ("units", unitsKeys), ("unitFile", unitFileKeys)]
            + keychainSections
    }

    /// `section.key` for every key the loader accepts that has no entry in `keyDocs`.
    public static var undocumentedKeys: [String] {
        sections.flatMap { s in s.keys.filter { keyDocs[s.name]?[$0] == nil }.map { "\(s.name).\($0)" } }
    }

    /// `section.key` entries of `keyDocs` that the loader no longer accepts.
    public static var staleKeys: [String] {
        var out: [String] = []
        for s in sections {
            for k in (keyDocs[s.name] ?? [:]).keys.sorted() where !s.keys.contains(k) { out.append("\(s.name).\(k)") }
        }
        return out
    }

    // MARK: - Value shapes

    static func ref(_ name: String) -> JSON { .object([("$ref", .string("#/$defs/\(name)"))]) }
    static func enumOf(_ words: [String]) -> JSON { .object([("enum", .array(words.map { .string($0) }))]) }
    static func anyOf(_ xs: [JSON]) -> JSON { .object([("anyOf", .array(xs))]) }
    /// A sysctl value 0...max, as a number or its text.
    static func sysctlValue(_ max: Int) -> JSON {
        .object([("enum", .array((0...max).map { JSON.int($0) } + (0...max).map { JSON.string(String($0)) }))])
    }
    static func type(_ t: String) -> JSON { .object([("type", .string(t))]) }
    static func listOf(_ item: JSON) -> JSON { .object([("type", .string("array")), ("items", item)]) }
    static func mapOf(_ value: JSON, keyPattern: String? = nil) -> JSON {
        var o: [(String, JSON)] = [("type", .string("object"))]
        if let p = keyPattern {
            o.append(("patternProperties", .object([(p, value)])))
            o.append(("additionalProperties", .bool(false)))
        } else {
            o.append(("additionalProperties", value))
        }
        return .object(o)
    }

    /// The value shape and description of every key, by section.
    static let keyDocs: [String: [String: (JSON, String)]] = baseKeyDocs.merging(keychainKeyDocs) { a, b in a.merging(b) { x, _ in x } }
        .merging(["expectation": callKeyDocs, "step": callKeyDocs]) { a, b in a.merging(b) { x, _ in x } }

    /// Keys an expectation and a step read alike (the arguments of the call).
    static let callKeyDocs: [String: (JSON, String)] = [
        "to": (ref("text"), "The new name (rename, link: a request path) or the link's target (symlink: any text)."),
        "owner": (ref("principal"), "The new owner (chown, lchown; -1: no change)."),
        "group": (ref("principal"), "The new group (chgrp; chown, lchown: -1 for no change)."),
        "atime": (
            enumOf(TimeChange.allCases.map(\.word)),
            "settimes: the access time set to a given time (set, the default), now (UTIME_NOW) or left (omit, UTIME_OMIT)."
        ),
        "mtime": (enumOf(TimeChange.allCases.map(\.word)), "settimes: the modification time, as atime."),
        "layer": (ref("layer"), "The layer expected to decide."),
        "name": (ref("text"), "A label for reports.")
    ]

    static let baseKeyDocs: [String: [String: (JSON, String)]] = [
        "top": [
            "fspolicy": (anyOf([.object([("const", .int(1))]), .object([("const", .string("1"))])]), "Format version; must be 1."),
            "semantics": (
                ref("semantics"), "The rule set that decides: macos (what XNU does), guide (Apple's documented order), linux (what the Linux kernel does)."
            ),
            "description": (ref("text"), "Free text about the file."),
            "securelevel": (ref("integer"), "The BSD kern.securelevel (-1 to 2)."),
            "linux": (ref("linux"), "Linux's fs.protected_* sysctls (per host; read by scan)."),
            "groups": (mapOf(anyOf([ref("group"), type("null")])), "Group declarations: name → group."),
            "users": (mapOf(anyOf([ref("user"), type("null")])), "User declarations: name → user. root exists even if not declared."),
            "volumes": (mapOf(anyOf([ref("volume"), type("null")]), keyPattern: "^/"), "Mounted volumes: mount path → volume."),
            "defaults": (ref("defaults"), "Owner, group and modes of nodes that do not say."),
            "tree": (mapOf(anyOf([ref("node"), type("null")]), keyPattern: "^/(?!(.*/)?\\.\\.(/|$))"), "The file tree: absolute path → node."),
            "import": (listOf(ref("import")), "Other sources merged in: policy files, scanned trees, getfacl dumps, listings."),
            "apps": (mapOf(anyOf([ref("app"), type("null")])), "Apps that ask as subjects: bundle id → app."),
            "services": (
                mapOf(ref("service")), "Linux processes that ask as subjects (`--as service:NAME`): name → service with its user, groups and capabilities."
            ),
            "units": (
                ref("units"),
                "Every service of a host's systemd unit folders (/etc/systemd/system and the rest, with systemd's override order), named after its unit."
            ),
            "device": (ref("device"), "The Data Protection state of the device."),
            "steps": (listOf(ref("step")), "Changes applied, in order, before the expectations are checked."),
            "expect": (listOf(ref("expectation")), "Expectations to check."),
            "findings": (
                ref("findings"),
                "How lint and check --findings treat the catalog of docs/findings.md: rules off or at another severity, more sensitive names and service directories, suppressions with a reason."
            )
        ],
        "findings": [
            "rules": (mapOf(enumOf(FindingsConfig.settingWords)), "Rule code (FSL001) or name → off, note, warning or error."),
            "sensitive": (listOf(ref("text")), "File name patterns added to the default sensitive names (`*` any characters, `?` one)."),
            "serviceDirectories": (
                listOf(.object([("type", .string("string")), ("pattern", .string("^/"))])),
                "Directory patterns added to the default service directories (`*` is one path component)."
            ),
            "suppress": (listOf(ref("suppression")), "Findings accepted on one path, each with the reason.")
        ],
        "suppression": [
            "rule": (ref("text"), "The rule code (FSL001) or name of the finding."),
            "path": (.object([("type", .string("string")), ("pattern", .string("^/"))]), "The path the finding reports."),
            "reason": (ref("text"), "Why the finding is accepted (required).")
        ],
        "group": [
            "gid": (ref("integer"), "The numeric group id (unique)."),
            "members": (listOf(ref("text")), "User names that belong to the group."),
            "groups": (listOf(ref("text")), "Nested groups: their members belong to this group too.")
        ],
        "user": [
            "uid": (ref("integer"), "The numeric user id (unique)."),
            "group": (ref("principal"), "The primary group (name or number)."),
            "groups": (listOf(ref("principal")), "Supplementary groups (names or numbers)."),
            "umask": (ref("octalText"), "The umask of what the user creates, a quoted octal string such as \"022\"."),
            "home": (ref("absolutePath"), "The home directory.")
        ],
        "volume": [
            "readOnly": (ref("bool"), "Read-only file system: writes are EROFS."),
            "readOnlyMount": (ref("bool"), "Read-only mount (e.g. a read-only bind mount) over a writable file system."),
            "noexec": (ref("bool"), "Executing a file on this volume is refused (EACCES)."),
            "nodev": (ref("bool"), "Device files on this volume cannot be opened."),
            "nosuid": (ref("bool"), "setuid and setgid bits have no effect on this volume."),
            "fsType": (ref("text"), "The file-system type, as the mount table names it."),
            "ignoreOwnership": (ref("bool"), "macOS \"ignore ownership on this volume\"."),
            "acls": (ref("bool"), "ACLs are stored and evaluated (default true)."),
            "owner": (ref("principal"), "The owner seen on an ignoreOwnership volume."),
            "group": (ref("principal"), "The group seen on an ignoreOwnership volume."),
            "caseSensitive": (ref("bool"), "Names match case-sensitively (default true)."),
            "kind": (enumOf(VolumeKind.allCases.map(\.rawValue)), "The TCC category of the volume.")
        ],
        "defaults": [
            "owner": (ref("principal"), "Owner of nodes that don't give one."),
            "group": (ref("principal"), "Group of nodes that don't give one."),
            "fileMode": (ref("mode"), "Mode of non-directories that don't give one."),
            "dirMode": (ref("mode"), "Mode of directories that don't give one.")
        ],
        "node": [
            "type": (ref("nodeType"), "The kind of object."),
            "owner": (ref("principal"), "The owning user (name or uid)."),
            "group": (ref("principal"), "The owning group (name or gid)."),
            "mode": (ref("mode"), "Permission bits, octal (\"0644\") or symbolic (\"-rw-r--r--\")."),
            "flags": (ref("flags"), "BSD file flags / Linux inode flags."),
            "acl": (ref("acl"), "A macOS ACL (ACE strings) or a POSIX ACL (getfacl entries)."),
            "defaultAcl": (ref("acl"), "A directory's POSIX default ACL (getfacl entries)."),
            "target": (ref("text"), "Where a symlink points."),
            "protection": (enumOf(ProtectionClass.allCases.map(\.word).filter { !$0.isEmpty }), "Data Protection class."),
            "open": (ref("bool"), "A handle was opened before the device locked."),
            "assumed": (ref("bool"), "Not read from the real system: the node was assumed (written by scan --at and archive imports)."),
            "link": (ref("text"), "Another name of the file at this path (a hard link): one file, whose attributes are that entry's."),
            "content": (
                enumOf(ContentKind.allCases.map(\.rawValue)),
                "What a file with a sensitive name holds, read by scan from its first bytes: private-key, certificate, public-key or other (FSL012 leaves certificates and public keys alone)."
            ),
            "unread": (
                enumOf(UnreadReason.allCases.map(\.rawValue)),
                "A folder whose entries were not all read (a name not listed is unknown, not missing), or a symlink whose target was not; and why."
            ),
            "caps": (
                ref("text"),
                "A program's file capabilities (security.capability) as getcap writes them, e.g. cap_dac_read_search=ep; [rootid=N] for a namespaced one."
            )
        ],
        "import": [
            "policy": (ref("text"), "Another policy file: its principals, volumes and tree are merged in."),
            "scan": (ref("text"), "A real directory, read at check time (Linux)."),
            "getfacl": (ref("text"), "A getfacl -R dump."),
            "lsle": (ref("text"), "The output of macOS ls -leOR (or ls -le@OR)."),
            "tar": (ref("text"), "A tar archive (docker export, an image layer; plain or compressed), read as a tree (Linux)."),
            "oci": (
                ref("text"),
                "An OCI image layout directory (oci-layout, index.json, blobs/) or a docker save tar file: its layers applied in order with their whiteouts, read as a tree (Linux)."
            ),
            "at": (ref("absolutePath"), "Where the imported tree appears."),
            "accounts": (enumOf(["all", "owners"]), "Which host accounts a scan import declares: every account (all) or only the owners seen."),
            "platform": (ref("text"), "With oci: which image of a multi-platform layout, os/arch[/variant] (default linux/amd64) or a manifest digest.")
        ],
        "units": [
            "root": (ref("text"), "The folder whose unit folders are read (relative to this file; / is this host); with files, where they were read."),
            "files": (listOf(ref("unitFile")), "The unit folders' files as scan --units read them; without it they are read from root when the file is loaded.")
        ],
        "unitFile": [
            "path": (ref("absolutePath"), "The file's absolute path in the root (/etc/systemd/system/nginx.service)."),
            "text": (ref("text"), "A file's contents."),
            "link": (ref("text"), "A symlink's target, as written (/dev/null masks the unit).")
        ],
        "service": [
            "unit": (
                ref("text"),
                "A systemd unit file (relative to this file) whose [Service] settings and drop-ins (NAME.d/*.conf) give the service; the keys below override it."
            ),
            "user": (ref("principal"), "The user the service's process runs as (systemd's User=)."),
            "group": (ref("principal"), "Its primary group, when not the user's (Group=)."),
            "groups": (listOf(ref("principal")), "Its supplementary groups, replacing the user's (SupplementaryGroups=)."),
            "umask": (ref("octalText"), "The umask of what it creates (UMask=)."),
            "capabilities": (
                listOf(ref("text")),
                "The effective capability set outright (names such as cap_dac_read_search, or all); default: derived from the two keys below."
            ),
            "ambientCapabilities": (listOf(ref("text")), "AmbientCapabilities=: the effective set of a service that does not run as root."),
            "capabilityBoundingSet": (listOf(ref("text")), "CapabilityBoundingSet=: the most it may hold, and a root service's effective set (default all)."),
            "noNewPrivileges": (ref("bool"), "NoNewPrivileges=: an execve raises no privilege (file capabilities, setuid).")
        ],
        "app": [
            "user": (ref("principal"), "The user the app runs as."),
            "entitlements": (anyOf([ref("text"), type("object")]), "The entitlements: a property list file, or a mapping."),
            "info": (anyOf([ref("text"), type("object")]), "Info.plist keys: a property list file, or a mapping."),
            "selected": (listOf(ref("absolutePath")), "Items the user picked in an open or save panel."),
            "bookmarks": (listOf(ref("bookmark")), "Security-scoped bookmarks the app resolved."),
            "tcc": (ref("tcc"), "Privacy consents."),
            "umask": (ref("octalText"), "The umask of what the app creates."),
            "platform": (enumOf(AppPlatform.allCases.map(\.rawValue)), "macos or ios."),
            "container": (ref("absolutePath"), "The app's data container."),
            "bundle": (ref("absolutePath"), "The iOS app bundle."),
            "groupContainers": (ref("absolutePath"), "Where app-group containers live."),
            "systemReadable": (listOf(ref("absolutePath")), "Locations every sandboxed app may read (replaces the default list).")
        ],
        "bookmark": [
            "path": (ref("absolutePath"), "The bookmarked item."),
            "scope": (enumOf(Bookmark.Scope.allCases.map(\.rawValue)), "app or document scope."),
            "readOnly": (ref("bool"), "A read-only bookmark."),
            "stale": (ref("bool"), "The bookmark is stale."),
            "started": (ref("integer"), "startAccessingSecurityScopedResource() calls."),
            "stopped": (ref("integer"), "stopAccessingSecurityScopedResource() calls.")
        ],
        "tcc": [
            "documents": (ref("consent"), "Consent for ~/Documents."),
            "desktop": (ref("consent"), "Consent for ~/Desktop."),
            "downloads": (ref("consent"), "Consent for ~/Downloads."),
            "removableVolumes": (ref("consent"), "Consent for removable volumes."),
            "networkVolumes": (ref("consent"), "Consent for network volumes."),
            "appData": (ref("consent"), "Consent for other apps' data."),
            "fullDiskAccess": (ref("bool"), "Full Disk Access."),
            "pictures": (ref("consent"), "Consent for the Photos library."),
            "music": (ref("consent"), "Consent for the Music library."),
            "movies": (ref("consent"), "Consent for the Movies folder.")
        ],
        "linux": [
            "protectedHardlinks": (
                sysctlValue(1),
                "fs.protected_hardlinks: 1 (default) refuses hard links to files the caller does not own unless it could read and write them (EPERM)."
            ),
            "protectedSymlinks": (
                sysctlValue(1),
                "fs.protected_symlinks: 1 (default) refuses following a symlink in a sticky world-writable directory that neither the caller nor the directory's owner owns (EACCES)."
            ),
            "protectedRegular": (
                sysctlValue(2),
                "fs.protected_regular: 1 refuses O_CREAT opens of others' regular files in sticky world-writable directories, 2 (default) also in sticky group-writable ones (EACCES)."
            ),
            "protectedFifos": (sysctlValue(2), "fs.protected_fifos: as protectedRegular, for FIFOs; default 1.")
        ],
        "device": [
            "state": (enumOf(DeviceState.allCases.map(\.rawValue)), "The device's lock state.")
        ],
        "expectation": [
            "as": (ref("principal"), "Who asks: a user name, uid, app bundle id, group:NAME or \"*\"."),
            "users": (listOf(ref("principal")), "Several subjects: each must satisfy the expectation."),
            "except": (listOf(ref("principal")), "Subjects removed from as/users."),
            "op": (ref("op"), "The operation."),
            "path": (ref("requestPath"), "The object: an absolute path (`..` is taken as the kernel takes it), or a pattern (*, **, {a,b})."),
            "type": (ref("nodeType"), "With a pattern: only nodes of this type. With mknod: the kind of device node (block, char)."),
            "mode": (ref("mode"), "The new mode (chmod, lchmod) or the requested mode (create, creat, open, mkdir, mkfifo, mknod)."),
            "flags": (ref("requestFlags"), "The complete new flag set (chflags), or the open(2) flags (open)."),
            "acl": (ref("acl"), "The complete new ACL (setacl)."),
            "result": (enumOf(["allow", "deny"]), "The expected answer."),
            "errno": (ref("errno"), "The expected error number (with result: deny)."),
            "state": (ref("state"), "What the node must look like, instead of a question."),
            "allowed": (listOf(ref("text")), "Exactly these declared users are allowed."),
            "after": (ref("integer"), "Evaluate after the first N steps."),
            "groups": (listOf(ref("principal")), "The caller's supplementary groups for this call only (its primary group stays)."),
            "umask": (ref("octalText"), "The caller's umask for this call only."),
            "capabilities": (
                listOf(ref("text")), "Linux: the capabilities the calling process holds for this call only (names such as cap_fowner; [] for none)."
            ),
            "quiz": (ref("bool"), "Ask this expectation in fspolicy quiz."),
            "topic": (ref("text"), "The rule number of the idea a quiz question tests (topics to revisit)."),
            "hint": (ref("text"), "The hint fspolicy quiz shows.")
        ],
        "step": [
            "as": (ref("principal"), "Who acts."),
            "op": (ref("op"), "The change (or an administrator operation)."),
            "path": (ref("requestPath"), "The object."),
            "type": (ref("nodeType"), "With mknod: the kind of device node made (block, char; device: unsaid)."),
            "mode": (ref("mode"), "The mode (chmod, lchmod, create, creat, open, mkdir, mkfifo, mknod)."),
            "flags": (ref("requestFlags"), "The new flag set (chflags), or the open(2) flags (open)."),
            "acl": (ref("acl"), "The new ACL (setacl)."),
            "result": (enumOf(["allow", "deny"]), "What the step is expected to get (default allow)."),
            "errno": (ref("errno"), "The expected error number."),
            "groups": (listOf(ref("principal")), "The caller's supplementary groups for this step only (its primary group stays)."),
            "umask": (ref("octalText"), "The caller's umask for this step only."),
            "capabilities": (
                listOf(ref("text")), "Linux: the capabilities the calling process holds for this step only (names such as cap_fowner; [] for none)."
            )
        ],
        "state": [
            "exists": (ref("bool"), "The node exists (default true)."),
            "type": (ref("nodeType"), "The kind of object."),
            "owner": (ref("principal"), "The owner."),
            "group": (ref("principal"), "The group."),
            "mode": (ref("mode"), "The mode."),
            "flags": (ref("flags"), "The flags."),
            "acl": (ref("acl"), "The ACL, in stored order."),
            "defaultAcl": (ref("acl"), "The default ACL.")
        ]
    ]

    /// Shared value definitions; enums come from the core's tables.
    static var defs: [(String, JSON)] {
        let scalarTypes: JSON = .array([.string("string"), .string("number"), .string("boolean")])
        return [
            ("text", .object([("type", scalarTypes), ("description", .string("Text; the loader reads the scalar as written."))])),
            ("integer", anyOf([type("integer"), .object([("type", .string("string")), ("pattern", .string("^[-+]?[0-9]+$"))])])),
            ("bool", anyOf([type("boolean"), enumOf(["true", "false", "True", "False", "TRUE", "FALSE", "yes", "no", "on", "off"])])),
            ("principal", .object([("type", .array([.string("string"), .string("integer")])), ("description", .string("A declared name or a number."))])),
            (
                "absolutePath",
                .object([
                    ("type", .string("string")), ("pattern", .string("^/")),
                    ("not", .object([("pattern", .string("(^|/)\\.\\.(/|$)"))]))
                ])
            ),
            (
                "requestPath",
                .object([
                    ("type", .string("string")), ("pattern", .string("^/")),
                    ("description", .string("An absolute path; `..` may appear and is resolved during the walk, physically."))
                ])
            ),
            ("octalText", .object([("type", .string("string")), ("pattern", .string("^[0-7]{1,4}$"))])),
            (
                "mode",
                anyOf([
                    .object([
                        ("type", .string("string")),
                        ("pattern", .string("^([0-7]{1,4}|[-dlpsbc][-rwxsStT]{9}\\+?)$"))
                    ]),
                    type("integer")
                ]).merged(.object([("description", .string("Octal (\"0644\") or symbolic (\"-rw-r--r--\")."))]))
            ),
            ("nodeType", enumOf(NodeType.allCases.map(\.word))),
            ("semantics", enumOf(Semantics.allCases.map(\.rawValue))),
            ("op", enumOf(Operation.allWords)),
            ("flag", enumOf(FileFlags.aliases.map(\.0))),
            (
                "flags",
                anyOf([
                    listOf(ref("flag")),
                    .object([
                        ("type", .string("string")),
                        ("description", .string("Comma-separated flag names."))
                    ])
                ])
            ),
            ("openFlag", enumOf(OpenFlags.words.map(\.0))),
            ("requestFlags", anyOf([ref("flags"), listOf(ref("openFlag"))])),
            ("aceRight", enumOf(AccessRights.words.map(\.word) + ACEFlags.words.map(\.0))),
            (
                "acl",
                anyOf([
                    listOf(
                        .object([
                            ("type", .string("string")),
                            ("description", .string("One ACE (\"user:bob allow read,write\") or getfacl entry (\"user:bob:rw-\")."))
                        ])),
                    type("string")
                ])
            ),
            ("errno", enumOf(Errno.allCases.map(\.rawValue))),
            ("layer", enumOf(Layer.fileLayers.map(\.rawValue))),
            ("consent", enumOf(Consent.allCases.map(\.rawValue)))
        ]
    }

    /// The definition of a section's mapping: its keys, from the loader's list, nothing else.
    /// Rules between the keys of one mapping that the loader checks too.
    static func conditions(_ name: String) -> [JSON] {
        func ifThen(_ i: JSON, _ t: JSON) -> JSON { .object([("if", i), ("then", t)]) }
        func has(_ k: String) -> JSON { .object([("required", .array([.string(k)]))]) }
        func equals(_ k: String, _ words: [String]) -> JSON {
            .object([("properties", .object([(k, enumOf(words))])), ("required", .array([.string(k)]))])
        }
        func not(_ x: JSON) -> JSON { .object([("not", x)]) }
        switch name {
        case "node":
            return [
                ifThen(equals("type", ["symlink"]), has("target")),
                ifThen(has("target"), equals("type", ["symlink"]))
            ]
        case "expectation", "step":
            var c = [
                ifThen(equals("op", ["rename", "link", "symlink"]), has("to")),
                ifThen(has("to"), equals("op", ["rename", "link", "symlink"])),
                ifThen(equals("op", ["rename", "link"]), .object([("properties", .object([("to", ref("requestPath"))]))])),
                ifThen(equals("op", ["chmod"]), anyOf([has("mode"), has("state")])),
                ifThen(equals("result", ["allow"]), not(has("errno")))
            ]
            if name == "expectation" { c.append(ifThen(has("allowed"), not(has("as")))) }
            return c
        default:
            return []
        }
    }

    static func section(_ name: String, keys: [String], required: [String] = []) -> JSON {
        var props: [(String, JSON)] = []
        for k in keys {
            guard let (shape, text) = keyDocs[name]?[k] else { continue }
            props.append((k, shape.merged(.object([("description", .string(text))]))))
        }
        var o: [(String, JSON)] = [("type", .string("object")), ("properties", .object(props)), ("additionalProperties", .bool(false))]
        if !required.isEmpty { o.append(("required", .array(required.map { .string($0) }))) }
        let c = conditions(name)
        if !c.isEmpty { o.append(("allOf", .array(c))) }
        return .object(o)
    }

    /// The whole schema.
    public static var json: JSON {
        var defs = Self.defs
        let required: [String: [String]] = [
            "top": ["fspolicy"], "group": ["gid"], "user": ["uid"], "bookmark": ["path"], "app": ["user"],
            "suppression": ["rule", "path", "reason"]
        ]
        for s in sections where s.name != "top" {
            defs.append((s.name, section(s.name, keys: s.keys, required: required[s.name] ?? [])))
        }
        var root: [(String, JSON)] = [
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("$id", .string(id)),
            ("title", .string("fspolicy policy file, format version 1")),
            (
                "description",
                .string("Users, groups, volumes, apps and a file tree, with the requests expected to be allowed or denied. See docs/policy-format.md.")
            )
        ]
        if case .object(let top) = section("top", keys: topKeys, required: ["fspolicy"]) { root += top }
        root.append(("$defs", .object(defs)))
        return .object(root)
    }
}

extension JSON {
    /// The keys of `other` added to (or replacing those of) this object; a non-object is wrapped
    /// in `allOf`.
    func merged(_ other: JSON) -> JSON {
        guard case .object(var mine) = self, case .object(let theirs) = other else { return self }
        for (k, v) in theirs {
            if let i = mine.firstIndex(where: { $0.0 == k }) { mine[i].1 = v } else { mine.append((k, v)) }
        }
        return .object(mine)
    }
}
