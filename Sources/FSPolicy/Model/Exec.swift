/// What a process holds after it executes a program (capabilities(7), "Transformation of
/// capabilities during execve"; the kernel's `cap_bprm_creds_from_file` in
/// security/commoncap.c): the set-user-ID and set-group-ID bits and the file capabilities,
/// unless the mount is `nosuid` or the process has no-new-privileges (docs/semantics.md, C9).
public struct ExecOutcome: Hashable, Sendable {
    /// The credential the program runs with.
    public var subject: Subject
    /// The execve fails with EPERM: the file's effective bit asks for capabilities the bounding
    /// set does not let it hold.
    public var fails: Bool
    /// What the program gave, in words (`cap_dac_read_search=ep`, `set-user-ID root`), empty
    /// when it gave nothing.
    public var gives: [String]
}

extension World {
    /// The credential `s` runs `program` with. `bounding` and `ambient` are the process's
    /// bounding and ambient sets (all and none for a user's login process). The caller decides
    /// separately whether `s` may execute the program at all.
    public func execOutcome(_ s: Subject, program n: NodeID, bounding: Capabilities = .all, ambient: Capabilities = []) -> ExecOutcome {
        let node = self[n]
        var out = s
        var gives: [String] = []
        // nosuid: neither the set-ID bits nor the file capabilities apply (get_file_caps,
        // bprm_fill_uid).
        let honoured = !volumes[Int(node.volume)].nosuid
        var euid = s.uid
        var setID = false
        if honoured && node.mode.isSetuid && node.uid != s.uid && !s.noNewPrivileges {
            euid = node.uid
            setID = true
            gives.append(node.uid == 0 ? "set-user-ID root" : "set-user-ID \(userName(node.uid))")
        }
        var egid = s.gid
        if honoured && node.mode.isSetgid && node.mode.group.contains(.execute) && node.gid != s.gid && !s.noNewPrivileges {
            egid = node.gid
            setID = true
            gives.append("set-group-ID \(groupName(node.gid))")
        }
        var fileP: Capabilities = [], fileI: Capabilities = [], fileE = false
        var hasFileCaps = false
        if honoured, let fc = fileCaps[n], fc.rootUID == nil || fc.rootUID == 0 {
            fileP = fc.permitted; fileI = fc.inheritable; fileE = fc.effective
            hasFileCaps = true
            gives.append(fc.text)
        }
        // A process whose effective uid is 0 gets the file sets taken as full, with the
        // effective bit (handle_privileged_root).
        if euid == 0 { fileP = .all; fileI = .all; fileE = true }
        let inheritable = ambient
        let newAmbient: Capabilities = (setID || hasFileCaps) ? [] : ambient.intersection(bounding)
        var permitted = inheritable.intersection(fileI).union(fileP.intersection(bounding)).union(newAmbient)
        var fails = false
        if fileE && hasFileCaps && euid != 0 && !fileP.isSubset(of: permitted) { fails = true }
        // no_new_privs: nothing beyond what the process already held.
        if s.noNewPrivileges { permitted = permitted.intersection(s.caps) }
        out.caps = fileE ? permitted : newAmbient
        if euid != s.uid || egid != s.gid {
            var groups = s.groups
            if !groups.contains(egid) { groups.append(egid) }
            out = Subject(uid: euid, gid: egid, groups: groups, nestedOnly: s.nestedOnly, umask: s.umask, caps: out.caps, noNewPrivileges: s.noNewPrivileges)
            // The program runs in the caller's mount namespace: a unit's view stays (U1–U5).
            out.view = s.view
        }
        return ExecOutcome(subject: out, fails: fails, gives: gives)
    }
}

extension World {
    /// The regular files whose execution may change a process's credential: set-user-ID,
    /// set-group-ID with group `x`, or file capabilities; in node order.
    public var privilegedPrograms: [NodeID] {
        var out: [NodeID] = []
        for i in 0..<nodeCount {
            let n = NodeID(i)
            let node = self[n]
            guard node.type == .file else { continue }
            if fileCaps[n] != nil || node.mode.isSetuid || (node.mode.isSetgid && node.mode.group.contains(.execute)) { out.append(n) }
        }
        return out
    }
}
