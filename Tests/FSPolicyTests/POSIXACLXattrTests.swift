import FSPolicy
import Testing

/// The kernel's binary ACL form (`system.posix_acl_*`), built by hand: version, then tag,
/// permissions and id per entry, little-endian.
private func xattr(_ entries: [(UInt16, UInt16, UInt32)], version: UInt32 = 2) -> [UInt8] {
    var b: [UInt8] = []
    func put(_ x: UInt64, _ n: Int) { for k in 0..<n { b.append(UInt8(truncatingIfNeeded: x >> (8 * UInt64(k)))) } }
    put(UInt64(version), 4)
    for (tag, perm, id) in entries {
        put(UInt64(tag), 2)
        put(UInt64(perm), 2)
        put(UInt64(id), 4)
    }
    return b
}

private let none: UInt32 = 0xFFFF_FFFF
private let base: [(UInt16, UInt16, UInt32)] = [(0x01, 6, none), (0x04, 4, none), (0x20, 0, none)]

private func failure(_ bytes: [UInt8], isDefault: Bool = false) -> POSIXACLXattr.DecodeError? {
    if case .failure(let e) = POSIXACLXattr.decode(bytes, isDefault: isDefault) { return e }
    return nil
}

@Suite("the ACL attribute decoder")
struct POSIXACLXattrTests {
    @Test("an ACL with named entries is read as the kernel writes it, and written back the same")
    func roundTrip() throws {
        let bytes = xattr([(0x01, 6, none), (0x02, 4, 65534), (0x04, 4, none), (0x08, 5, 100), (0x10, 5, none), (0x20, 0, none)])
        guard case .success(let acl?) = POSIXACLXattr.decode(bytes, isDefault: false) else { Issue.record("not read"); return }
        #expect(acl.userObj == [.read, .write])
        #expect(acl.users == [POSIXACL.Entry(id: 65534, perms: [.read])])
        #expect(acl.groupObj == [.read])
        #expect(acl.groups == [POSIXACL.Entry(id: 100, perms: [.read, .execute])])
        #expect(acl.mask == [.read, .execute])
        #expect(acl.other == [])
        #expect(POSIXACLXattr.encode(acl) == bytes)
    }

    @Test("a minimal access ACL repeats the mode and is none; a minimal default ACL is kept; no entries is none")
    func minimal() {
        #expect(POSIXACLXattr.decode(xattr(base), isDefault: false) == .success(nil))
        guard case .success(let d?) = POSIXACLXattr.decode(xattr(base), isDefault: true) else { Issue.record("default refused"); return }
        #expect(d.isMinimal && d.userObj == [.read, .write] && d.other == [])
        #expect(POSIXACLXattr.decode(xattr([]), isDefault: false) == .success(nil))
        #expect(POSIXACLXattr.decode(xattr([]), isDefault: true) == .success(nil))
        guard case .success(let ls) = POSIXACLXattr.lines(xattr(base), isDefault: true) else { Issue.record("lines refused"); return }
        #expect(ls.map(\.tag) == [.userObj, .groupObj, .other] && ls.allSatisfy(\.isDefault))
    }

    @Test("short or ragged bytes are refused with their length")
    func short() {
        for n in [0, 1, 2, 3] { #expect(failure(Array(xattr([]).prefix(n))) == .badLength(n)) }
        let full = xattr(base)
        for cut in 1..<8 { #expect(failure(Array(full.dropLast(cut))) == .badLength(full.count - cut)) }
        #expect(failure(full + [0]) == .badLength(full.count + 1))
    }

    @Test("a version other than 2 is refused, a big-endian 2 too")
    func wrongVersion() {
        for v: UInt32 in [0, 1, 3, 0x0200_0000, .max] { #expect(failure(xattr(base, version: v)) == .badVersion(v)) }
    }

    @Test("an entry of a kind the kernel does not know is refused")
    func unknownTag() {
        for t: UInt16 in [0, 0x03, 0x40, 0x8000, .max] {
            #expect(failure(xattr(base + [(t, 7, 0)])) == .unknownTag(t))
        }
    }

    @Test("repeated or missing entries are refused")
    func duplicates() {
        let cases: [[(UInt16, UInt16, UInt32)]] = [
            base + [(0x01, 7, none)],  // user:: twice
            base + [(0x04, 7, none)],  // group:: twice
            base + [(0x20, 7, none)],  // other:: twice
            base + [(0x10, 7, none), (0x10, 5, none)],  // mask:: twice
            base + [(0x02, 4, 7), (0x02, 6, 7), (0x10, 7, none)],  // user 7 twice
            base + [(0x08, 4, 9), (0x08, 4, 9), (0x10, 7, none)],  // group 9 twice
            base + [(0x02, 4, 7)],  // named entry, no mask
            [(0x04, 4, none), (0x20, 0, none)],  // no user::
            [(0x01, 4, none), (0x20, 0, none)],  // no group::
            [(0x01, 4, none), (0x04, 0, none)]  // no other::
        ]
        for c in cases {
            guard case .invalid? = failure(xattr(c)) else { Issue.record("accepted \(c)"); continue }
            guard case .invalid? = failure(xattr(c), isDefault: true) else { Issue.record("accepted as default \(c)"); continue }
        }
        // A user and a group may share an id.
        guard case .success(let a?) = POSIXACLXattr.decode(xattr(base + [(0x02, 4, 7), (0x08, 4, 7), (0x10, 4, none)]), isDefault: false) else {
            Issue.record("user 7 and group 7 refused"); return
        }
        #expect(a.users.map(\.id) == [7] && a.groups.map(\.id) == [7])
    }

    @Test("huge ACLs: the largest the kernel stores, and far larger, are read in canonical order; a huge one with a repeat is refused")
    func huge() {
        // XATTR_SIZE_MAX (64 KiB) holds 8,191 entries; an archive may carry any size.
        for count in [8191 - 4, 200_000] {
            let named = (0..<UInt32(count)).reversed().map { (UInt16(0x02), UInt16($0 % 8), $0) }
            let bytes = xattr(named + base + [(0x10, 7, none)])
            guard case .success(let a?) = POSIXACLXattr.decode(bytes, isDefault: false) else { Issue.record("\(count) users refused"); continue }
            #expect(a.users.count == count)
            #expect(a.users.first?.id == 0 && a.users.last?.id == UInt32(count - 1))
            #expect(zip(a.users, a.users.dropFirst()).allSatisfy { $0.id < $1.id })
            #expect(a.users[5].perms == [.read, .execute])
            let repeated = xattr(named + [(0x02, 1, UInt32(count / 2))] + base + [(0x10, 7, none)])
            #expect(failure(repeated) == .invalid("user \(count / 2) appears twice"))
        }
    }

    @Test("permission bits beyond rwx are ignored; ids of unnamed entries are ignored")
    func strayBits() {
        let bytes = xattr([(0x01, 0xFFF8, 12345), (0x04, 0xFFFF, 0), (0x20, 0x0102, 7)])
        guard case .success(let a?) = POSIXACLXattr.decode(bytes, isDefault: true) else { Issue.record("refused"); return }
        #expect(a.userObj == [] && a.groupObj == [.read, .write, .execute] && a.other == [.write])
    }

    @Test("bytes at any alignment decode alike")
    func unaligned() {
        let bytes = xattr([(0x01, 6, none), (0x02, 4, 65534), (0x04, 4, none), (0x10, 4, none), (0x20, 0, none)])
        let want = POSIXACLXattr.decode(bytes, isDefault: false)
        for shift in 1..<8 {
            let padded = [UInt8](repeating: 0xAA, count: shift) + bytes
            let got = padded.withUnsafeBytes { POSIXACLXattr.decode(UnsafeRawBufferPointer(rebasing: $0[shift...]), isDefault: false) }
            #expect(got == want)
        }
    }
}
