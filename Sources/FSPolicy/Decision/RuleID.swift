/// Stable rule ids. Each names one rule of `docs/semantics.md`; `info` gives its number,
/// a one-line summary and where the rule comes from.
public enum RuleID: String, Sendable, CaseIterable {
    // Path lookup
    case searchGranted = "traversal.search-granted"
    case searchDenied = "traversal.search-denied"
    case notFound = "traversal.not-found"
    case notADirectory = "traversal.not-a-directory"
    case symlinkLoop = "traversal.symlink-loop"
    case symlinkFollowed = "traversal.symlink-followed"
    case exists = "traversal.exists"
    case notRead = "traversal.not-read"
    case crossDevice = "volume.cross-device"
    // Type checks done by the syscall
    case isDirectory = "type.is-directory"
    case notRegularExec = "type.exec-not-regular"
    case notEmpty = "type.not-empty"
    case linkDirectory = "type.link-directory"
    case renameIntoSelf = "type.rename-into-self"
    case busyRoot = "type.busy-root"
    case removeDot = "type.remove-dot"
    case removeDotDot = "type.remove-dot-dot"
    case renameDot = "type.rename-dot"
    case unlinkDirectory = "type.unlink-directory"
    case rmdirNotDirectory = "type.rmdir-not-directory"
    case dotDot = "traversal.dot-dot"
    case sameFile = "type.rename-same-file"
    case busyMountPoint = "type.busy-mount-point"
    case renameMountPoint = "type.rename-mount-point"
    case openSocket = "type.open-socket"
    case socketAddressInUse = "type.socket-address-in-use"
    case mknodNeedsPrivilege = "root.mknod-needs-privilege"
    // `open` with its flags (O21–O24)
    case openCreatDirectory = "type.open-creat-directory"
    case openNoFollow = "type.open-nofollow-symlink"
    case openDirectoryNotDir = "type.open-directory-not-dir"
    case openPath = "traversal.open-path"
    // lchmod, utimensat per time, chown with no ids, new set-id nodes (O25–O28)
    case lchmodSymlink = "type.lchmod-symlink"
    case settimesOmitBoth = "traversal.settimes-omit-both"
    case settimesOmitUnknown = "ownership.settimes-omit-unknown"
    case chownNoIDs = "ownership.chown-no-ids"
    case newNodeSetIDUnknown = "ownership.new-node-setid-unknown"
    case execNeedsXBit = "mode.exec-needs-x-bit"
    // `modify`: any of its ways
    case modifyFile = "type.modify-file"
    case modifyDirectory = "type.modify-directory"
    case directoryRightOnFile = "type.directory-right-on-file"
    // Volume
    case readOnlyVolume = "volume.read-only"
    case noexecVolume = "volume.noexec"
    case readOnlyMountOpen = "volume.read-only-mount"
    case unitReadOnly = "volume.unit-read-only-path"
    case unitReadOnlyOpen = "volume.unit-read-only-open"
    case unitNoexec = "volume.unit-noexec-path"
    case unitCrossMount = "volume.unit-cross-mount"
    case nodevVolume = "volume.nodev"
    // Identity
    case ignoreOwnership = "identity.ignore-ownership"
    case unknownOwner99 = "identity.uid-99"
    // Root
    case rootReadFastPath = "root.read-fast-path"
    case rootAllowed = "root.allowed"
    case rootExecNeedsX = "root.exec-needs-x-bit"
    // Flags
    case immutable = "flags.immutable"
    case appendOnly = "flags.append-only"
    case parentImmutable = "flags.parent-immutable"
    case parentAppendOnly = "flags.parent-append-only"
    case flagsNotBlocking = "flags.none-blocking"
    // Ownership / attribute changes (vnode_authattr)
    case ownerWriteSecurity = "ownership.owner-writesecurity"
    case ownerWriteAttr = "ownership.owner-writeattr"
    case chownToOther = "ownership.chown-to-other"
    case chgrpNotMember = "ownership.chgrp-not-member"
    case setgidNotMember = "ownership.setgid-not-member"
    case setuidNotOwner = "ownership.setuid-not-owner"
    case settimesNotOwner = "ownership.settimes-not-owner"
    case chflagsSystemFlag = "ownership.chflags-system-flag"
    case nothingToChange = "ownership.no-change"
    case chownTakeOwnership = "ownership.chown-needs-take-ownership"
    // ACL
    case aclAllowComplete = "acl.allow-complete"
    case aclDenyMatched = "acl.deny-matched"
    case aclPartial = "acl.partial"
    case aclNoMatch = "acl.no-match"
    case aclEmpty = "acl.empty"
    case aclNone = "acl.none"
    case aclDisabled = "acl.disabled-on-volume"
    case aclOnlyInheritSkipped = "acl.only-inherit-skipped"
    // Mode bits
    case ownerBitsGrant = "mode.owner-grants"
    case ownerBitsMissing = "mode.owner-missing"
    case groupBitsGrant = "mode.group-grants"
    case groupBitsMissing = "mode.group-missing"
    case otherBitsGrant = "mode.other-grants"
    case otherBitsMissing = "mode.other-missing"
    case unmappedGranted = "mode.unmapped-rights-granted"
    case neverWriteSecurity = "mode.never-writesecurity"
    case neverTakeOwnership = "mode.never-chown"
    // Delete
    case deleteNodeACEAllow = "delete.node-ace-allow"
    case deleteNodeACEDeny = "delete.node-ace-deny"
    case deleteParentACEAllow = "delete.parent-ace-allow"
    case deleteParentACEDeny = "delete.parent-ace-deny"
    case deleteParentWrite = "delete.parent-write"
    case deleteParentWriteMissing = "delete.parent-write-missing"
    case stickyNotOwner = "sticky.not-owner"
    case stickyOwner = "sticky.owner"
    // Guide-only rules: each marks a place where the guide and macos can answer differently.
    case guideIgnoreOwnershipAllows = "guide.ignore-ownership-allows"
    case guideACLBeforeFlags = "guide.acl-before-flags"
    case guideACLStatedOrder = "guide.acl-stated-order"
    case guideOwnerSecurityRights = "guide.owner-security-rights"
    case guideRootAfterFlags = "guide.root-allowed"
    case guideRootExecutesAnything = "guide.root-executes-anything"
    case guideACLExecuteWithoutX = "guide.acl-execute-without-x"
    case guideNoOwnerWriteAttr = "guide.no-owner-writeattr"
    case guideChflagsOwnerOnly = "guide.chflags-owner-only"
    case guideSettimesByWriteAttr = "guide.settimes-by-writeattr"
    // Linux
    case linuxNamedUser = "acl.linux-named-user"
    case linuxGroupEntry = "acl.linux-group-entry"
    case linuxNoGroupEntryCovers = "acl.linux-no-group-entry-covers"
    case linuxACLOther = "acl.linux-other"
    case linuxMaskEmptySkipsACL = "acl.linux-mask-empty-skipped"
    case linuxCapReadSearch = "root.cap-dac-read-search"
    case linuxCapOverride = "root.cap-dac-override"
    case linuxCapExecNeedsX = "root.cap-exec-needs-x-bit"
    case linuxCapFowner = "root.cap-fowner"
    case linuxCapNotHeld = "root.capability-not-held"
    case linuxChownClearsSetID = "ownership.chown-clears-setid"
    case linuxChmodDropsSetgid = "ownership.chmod-drops-setgid"
    case linuxStickyNotOwner = "sticky.linux-not-owner"
    case linuxOwnerOrFowner = "ownership.owner-or-cap-fowner"
    case linuxChownNeedsCap = "ownership.chown-needs-cap-chown"
    case linuxChgrpNotAllowed = "ownership.chgrp-owner-and-member"
    case linuxFlagNeedsCapImmutable = "ownership.cap-linux-immutable"
    case linuxImmutableFreezesFlags = "flags.immutable-freezes-flags"
    case linuxChflagsSpecialFile = "type.chflags-special-file"
    case linuxProtectedHardlinks = "ownership.protected-hardlinks"
    case linuxProtectedSymlinks = "sticky.protected-symlinks"
    case linuxProtectedRegular = "sticky.protected-regular"
    case linuxProtectedFifos = "sticky.protected-fifos"
    case linuxStickyCreateOther = "sticky.create-other-type"
    case linuxMoveDirNeedsWrite = "mode.move-directory-needs-write"
    case linuxStatNeedsSearchOnly = "traversal.stat-needs-search-only"
    case linuxAppendNeedsOAppend = "flags.append-only-needs-o-append"
    case linuxUserXattrType = "type.user-xattr-regular-or-dir"
    case linuxUserXattrSticky = "sticky.user-xattr-owner-only"
    case linuxTouchNeedsWrite = "mode.touch-owner-or-write"
    // App Sandbox (docs/sandbox.md, S)
    case sandboxNotSandboxed = "sandbox.not-sandboxed"
    case sandboxContainer = "sandbox.container"
    case sandboxAppGroup = "sandbox.app-group"
    case sandboxUbiquity = "sandbox.ubiquity-container"
    case sandboxUserSelected = "sandbox.user-selected"
    case sandboxBookmark = "sandbox.bookmark"
    case sandboxStandardFolder = "sandbox.standard-folder"
    case sandboxTemporaryException = "sandbox.temporary-exception"
    case sandboxSystemLocation = "sandbox.system-location"
    case sandboxLookup = "sandbox.lookup"
    case sandboxOutside = "sandbox.outside"
    case sandboxReadOnly = "sandbox.read-only"
    case sandboxSelectedNeedsEntitlement = "sandbox.user-selected-needs-entitlement"
    case sandboxBookmarkNeedsEntitlement = "sandbox.bookmark-needs-entitlement"
    case sandboxBookmarkNotStarted = "sandbox.bookmark-not-started"
    case sandboxUbiquityNotListed = "sandbox.ubiquity-not-listed"
    case sandboxLookupDenied = "sandbox.lookup-denied"
    // TCC (docs/sandbox.md, T)
    case tccNotProtected = "tcc.not-protected"
    case tccFullDiskAccess = "tcc.full-disk-access"
    case tccImpliedConsent = "tcc.implied-consent"
    case tccMissingPurposeString = "tcc.missing-purpose-string"
    case tccGranted = "tcc.granted"
    case tccDenied = "tcc.denied"
    case tccNotDetermined = "tcc.not-determined"
    // Data Protection (docs/sandbox.md, D)
    case protectionAvailable = "protection.key-available"
    case protectionCompleteLocked = "protection.complete-locked"
    case protectionOpenHandle = "protection.open-handle"
    case protectionUnlessOpenLocked = "protection.unless-open-locked"
    case protectionBeforeFirstUnlock = "protection.before-first-unlock"
    case protectionCreateKeyAvailable = "protection.create-key-available"
    case protectionCreateCompleteLocked = "protection.create-complete-locked"
    case protectionCreateBeforeFirstUnlock = "protection.create-before-first-unlock"
    // Keychain (docs/keychain.md, K)
    case keychainAccessGroups = "keychain.access-groups"
    case keychainDefaultGroup = "keychain.default-group"
    case keychainMissingEntitlement = "keychain.missing-entitlement"
    case keychainTokenReadOnly = "keychain.token-read-only"
    case keychainGroupSearched = "keychain.group-searched"
    case keychainKeyAvailable = "keychain.class-key-available"
    case keychainKeyLocked = "keychain.class-key-unavailable"
    case keychainPasscodeRequired = "keychain.passcode-required"
    case keychainSyncFilter = "keychain.sync-filter"
    case keychainParameter = "keychain.parameter"
    case keychainAuthenticated = "keychain.authenticated"
    case keychainAuthRefused = "keychain.authentication-refused"
    case keychainUISkip = "keychain.ui-skip"
    case keychainBiometryNotEnrolled = "keychain.biometry-not-enrolled"
    case keychainBiometryChanged = "keychain.biometry-changed"
    case keychainUnique = "keychain.unique"
    case keychainDuplicate = "keychain.duplicate"
    case keychainMatched = "keychain.matched"
    case keychainNotFound = "keychain.not-found"
    case keychainDeleteNoAuth = "keychain.delete"
    case keychainNoSuchAttribute = "keychain.no-such-attribute"
    case keychainRestore = "keychain.restore"
    case keychainPasscodeRemoved = "keychain.passcode-removed"
    case keychainFileBasedRoute = "keychain.file-based-route"
    case keychainFileBasedTrusted = "keychain.file-based-trusted"
    case keychainFileBasedPrompt = "keychain.file-based-prompt"
    // Semantics not available
    case semanticsUnavailable = "semantics.unavailable"

    public struct Info: Sendable {
        public let number: String
        public let summary: String
        public let source: String
    }
}

// A case's number, for tables keyed by a rule, a layer or a verdict (`StepJSONCache` in
// FSPolicyFormat): the tag the enum stores, which for an enum without payloads is the case's
// position in its declaration — read, not computed, so it costs one load. `EnumOrdinalTests`
// holds each to its position (and each type to one byte), so a change of representation fails
// there rather than mixing two cases up.
extension RuleID {
    @inlinable public var ordinal: Int { withUnsafeBytes(of: self) { Int($0[0]) } }
}

extension Layer {
    @inlinable public var ordinal: Int { withUnsafeBytes(of: self) { Int($0[0]) } }
}

extension Verdict {
    @inlinable public var ordinal: Int { withUnsafeBytes(of: self) { Int($0[0]) } }
}
