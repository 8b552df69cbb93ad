// Per-node attributes: ACLs (interned), symlink targets, protection, and their text.

extension World {
    public mutating func internACL(_ acl: ACL) -> Int32 {
        if let i = aclIndex[acl] { return i }
        let i = Int32(acls.count)
        acls.append(acl)
        aclIndex[acl] = i
        return i
    }

    public mutating func internPOSIXACL(_ acl: POSIXACL) -> Int32 {
        if let i = posixIndex[acl] { return i }
        let i = Int32(posixACLs.count)
        posixACLs.append(acl)
        posixIndex[acl] = i
        return i
    }

    public func acl(of node: NodeID) -> ACL? {
        let i = nodes[Int(node)].acl
        return i < 0 ? nil : acls[Int(i)]
    }

    public func posixACL(of node: NodeID) -> POSIXACL? {
        let i = nodes[Int(node)].posixACL
        return i < 0 ? nil : posixACLs[Int(i)]
    }

    public func defaultPOSIXACL(of node: NodeID) -> POSIXACL? {
        let i = nodes[Int(node)].defaultACL
        return i < 0 ? nil : posixACLs[Int(i)]
    }

    public mutating func setACL(_ acl: ACL?, on node: NodeID) {
        var i: Int32 = -1
        if let a = acl { i = internACL(a) }
        nodes[Int(node)].acl = i
    }
    public mutating func setPOSIXACL(_ acl: POSIXACL?, on node: NodeID) {
        var i: Int32 = -1
        if let a = acl { i = internPOSIXACL(a) }
        nodes[Int(node)].posixACL = i
    }
    public mutating func setDefaultPOSIXACL(_ acl: POSIXACL?, on node: NodeID) {
        var i: Int32 = -1
        if let a = acl { i = internPOSIXACL(a) }
        nodes[Int(node)].defaultACL = i
    }
    public mutating func setSymlinkTarget(_ target: String, on node: NodeID) { symlinkTargets[node] = target }
    public mutating func setProtection(_ p: ProtectionClass, open: Bool, on node: NodeID) {
        nodes[Int(node)].protection = p
        nodes[Int(node)].openBeforeLock = open
    }
    public mutating func update(_ node: NodeID, _ body: (inout Node) -> Void) { body(&nodes[Int(node)]) }

    /// ACE subject names for text (`user:alice`, `group:staff`, `everyone`, `owner@`, `group@`).
    public func subjectText(_ s: ACESubject) -> String {
        switch s {
        case .user(let u): "user:" + userName(u)
        case .group(let g): "group:" + groupName(g)
        case .everyone: "group:everyone"
        case .owner: "owner@"
        case .owningGroup: "group@"
        }
    }

    public func aceText(_ ace: ACE, forDirectory: Bool?) -> String {
        ace.text(names: subjectText, forDirectory: forDirectory)
    }
}
