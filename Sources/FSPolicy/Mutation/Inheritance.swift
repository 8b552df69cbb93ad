/// What a new object receives from its parent directory (docs/inheritance.md).
public enum Inheritance {
    /// The ACEs a new child inherits from `parent` (its copies, in parent order).
    ///
    /// macos (`kauth_acl_inherit`, kern_authorization.c L794): an ACE is selected by exactly one
    /// flag — `directory_inherit` for a new directory, `file_inherit` for anything else; `only_inherit`
    /// does not matter for selection. Each copy is marked `inherited` and loses `only_inherit`;
    /// on a non-directory, or when the parent ACE has `limit_inherit`, it loses all four
    /// inheritance flags; otherwise `file_inherit`/`directory_inherit` stay, so it keeps
    /// propagating.
    ///
    /// guide (the appendix's "権限の継承"): the same selection and marking; `limit_inherit`
    /// ("No Propagate Inherit") makes the copy lose `file_inherit` and `directory_inherit`, and
    /// nothing says a file's copies lose their flags, so they keep them (`guide.*` differences,
    /// listed in docs/inheritance.md).
    public static func inheritedACEs(from parent: ACL?, childIsDirectory: Bool, semantics: Semantics) -> [ACE] {
        guard let parent else { return [] }
        var out: [ACE] = []
        for ace in parent.entries {
            let selected = childIsDirectory ? ace.flags.contains(.directoryInherit) : ace.flags.contains(.fileInherit)
            guard selected else { continue }
            var copy = ace
            copy.flags.insert(.inherited)
            copy.flags.remove(.onlyInherit)
            switch semantics {
            case .guide:
                if ace.flags.contains(.limitInherit) { copy.flags.subtract([.fileInherit, .directoryInherit]) }
            default:
                if ace.flags.contains(.limitInherit) || !childIsDirectory { copy.flags.subtract(ACEFlags.inheritControl) }
            }
            out.append(copy)
        }
        return out
    }

    /// A node's ACL after (re-)inheriting from its parent: its explicit entries (deny before allow
    /// under guide, in stored order under macos), then the inherited copies. nil when the result
    /// has no entries and the node had no ACL.
    public static func reinherit(current: ACL?, parent: ACL?, isDirectory: Bool, semantics: Semantics) -> ACL? {
        var explicit = (current?.entries ?? []).filter { !$0.isInherited }
        if semantics == .guide {
            explicit = explicit.filter { $0.kind == .deny } + explicit.filter { $0.kind == .allow }
        }
        let inherited = inheritedACEs(from: parent, childIsDirectory: isDirectory, semantics: semantics)
        if current == nil && explicit.isEmpty && inherited.isEmpty { return nil }
        return ACL(explicit + inherited)
    }

    /// Linux `posix_acl_create`: the parent's default ACL folded with the requested mode.
    /// Returns the new mode, the access ACL to store (nil when it is equivalent to the mode),
    /// and the default ACL a new directory copies.
    public static func linuxCreate(defaultACL: POSIXACL?, requested: FileMode, umask: UInt16, isDirectory: Bool)
        -> (mode: FileMode, access: POSIXACL?, defaultACL: POSIXACL?)
    {
        guard let d = defaultACL else {
            return (FileMode(requested.rawValue & ~umask), nil, nil)
        }
        // The umask is ignored; the requested mode and the default ACL limit each other.
        var m = requested.rawValue
        let special = m & 0o7000
        var userObj = d.userObj.intersection(requested.owner)
        userObj = RWX(rawValue: userObj.rawValue)
        let other = d.other.intersection(requested.other)
        var groupObj = d.groupObj
        var mask = d.mask
        if let dm = d.mask {
            mask = dm.intersection(requested.group)
        } else {
            groupObj = d.groupObj.intersection(requested.group)
        }
        let groupClass = mask ?? groupObj
        m = special | UInt16(userObj.rawValue) << 6 | UInt16(groupClass.rawValue) << 3 | UInt16(other.rawValue)
        let access = try? POSIXACL(userObj: userObj, users: d.users, groupObj: groupObj, groups: d.groups, mask: mask, other: other)
        let stored = (access?.isMinimal ?? true) ? nil : access
        return (FileMode(m), stored, isDirectory ? d : nil)
    }
}
