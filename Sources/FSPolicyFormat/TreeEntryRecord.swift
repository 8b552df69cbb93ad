import FSPolicy
import FSPolicyYAML
import Foundation

/// What the building of a `tree:` needs of an entry's common fields (`mode`, `owner`, `group`,
/// `type`, `acl`, `defaultAcl`), read while the entries are collected, in the file's order, where the entry's nodes and text
/// lie together in memory. The tree is built in another order (`TreeOrder`): in a file whose
/// entries are in that order too (a scan file) the difference is small, but in a file of any
/// other order each entry's nodes and short values are then a cache miss away from the
/// previous entry's, several times an entry. With this record an entry of those fields alone
/// is built without going back to its nodes unless one of its values (or ACLs) is read for the
/// first time (docs/performance.md, target 43).
struct CommonFields {
    /// The value nodes of `mode`, `owner` and `group` (-1: the key is not there).
    var mode: Int32 = -1
    var owner: Int32 = -1
    var group: Int32 = -1
    /// Their short scalars' keys, as indices in `ShortScalars` plus one (0: not kept, then the
    /// key is taken from the node again).
    var modeKey: UInt16 = 0
    var ownerKey: UInt16 = 0
    var groupKey: UInt16 = 0
    /// The value node of `type`, and the type when the value is one of the types' words, as an
    /// index in `NodeType.allCases` plus one (0: read from the node).
    var type: Int32 = -1
    var typeWord: UInt8 = 0
    /// The value nodes of `acl` and `defaultAcl`, and their texts as numbered by `ACLTexts`
    /// (0: the text is taken from the nodes again).
    var acl: Int32 = -1
    var defaultAcl: Int32 = -1
    var aclText: UInt32 = 0
    var defaultAclText: UInt32 = 0
    /// Whether the entry has any other key (then its fields are all read from its nodes).
    var others = false

    /// The types' words, as bytes.
    static let typeWords: [[UInt8]] = NodeType.allCases.map { Array($0.word.utf8) }

    /// The record of an entry's fields `f`.
    init(_ f: NodeFields, _ shorts: inout ShortScalars) {
        others =
            f.flags != nil || f.target != nil || f.protection != nil || f.open != nil || f.assumed != nil || f.unread != nil || f.link != nil
            || f.content != nil || f.caps != nil
        if let v = f.mode { (mode, modeKey) = (v.index, shorts.id(v.shortScalarKey)) }
        if let v = f.owner { (owner, ownerKey) = (v.index, shorts.id(v.shortScalarKey)) }
        if let v = f.group { (group, groupKey) = (v.index, shorts.id(v.shortScalarKey)) }
        if let v = f.type { (type, typeWord) = (v.index, v.doc.wordIndex(v.index, in: Self.typeWords).map { UInt8($0 + 1) } ?? 0) }
        if let v = f.acl { acl = v.index }
        if let v = f.defaultAcl { defaultAcl = v.index }
    }

    init() {}

    /// The fields of an entry without other keys, in `doc` (its value's document).
    func fields(in doc: FastYAMLDocument) -> NodeFields {
        var f = NodeFields()
        if mode >= 0 { f.mode = YNode(fast: doc, mode) }
        if owner >= 0 { f.owner = YNode(fast: doc, owner) }
        if group >= 0 { f.group = YNode(fast: doc, group) }
        if type >= 0 { f.type = YNode(fast: doc, type) }
        if acl >= 0 { f.acl = YNode(fast: doc, acl) }
        if defaultAcl >= 0 { f.defaultAcl = YNode(fast: doc, defaultAcl) }
        return f
    }
}

/// The keys of the short scalars met in a tree's entries (`ScalarKey`), each kept once and
/// named by its index: an entry's record holds two bytes a value instead of sixteen. Found
/// through 256 slots, each holding the last key that hashed to it; a key not found there is
/// kept again under a new index (a repeat costs a slot, never a wrong key). At most 65,535
/// keys are kept; later ones are not (index 0).
struct ShortScalars {
    private(set) var keys: [ScalarKey] = []
    private var slotKeys = [ScalarKey](repeating: ScalarKey(lo: 0, hi: 0), count: 256)
    private var slotIDs = [UInt16](repeating: 0, count: 256)

    mutating func id(_ k: ScalarKey?) -> UInt16 {
        guard let k else { return 0 }
        let s = Int(truncatingIfNeeded: ((k.lo ^ (k.hi &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9) >> 56)
        if slotIDs[s] != 0 && slotKeys[s] == k { return slotIDs[s] }
        guard keys.count < Int(UInt16.max) else { return 0 }
        keys.append(k)
        slotKeys[s] = k
        slotIDs[s] = UInt16(keys.count)
        return slotIDs[s]
    }

    /// The key kept under `id` (nil for 0).
    @inline(__always) func key(_ id: UInt16) -> ScalarKey? { id == 0 ? nil : keys[Int(id) - 1] }
}

/// What was read from recent short scalars: 256 slots, each holding the last key that hashed
/// to it. A key not found is read again (a collision costs a read, never a wrong value).
///
/// Generic, and so kept in the module that uses it: from the YAML reader's module its uses
/// were not specialised, and each read went through the runtime's generic metadata (4.5% of
/// the CPU time of `validate` of a 1,000,000-node file: docs/performance.md, "Loading").
struct ScalarMemo<T> {
    private var keys = [ScalarKey](repeating: ScalarKey(lo: 0, hi: 0), count: 256)
    private var values = [T?](repeating: nil, count: 256)

    init() {}

    private static func slot(_ k: ScalarKey) -> Int {
        Int(truncatingIfNeeded: ((k.lo ^ (k.hi &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9) >> 56)
    }

    subscript(_ k: ScalarKey) -> T? {
        get {
            let i = Self.slot(k)
            return keys[i] == k ? values[i] : nil
        }
        set {
            let i = Self.slot(k)
            keys[i] = k
            values[i] = newValue
        }
    }
}

/// The texts of the ACLs met in a tree's entries (`Compiler.aclCacheKey` without its prefix),
/// each numbered once from 1: an entry's record holds the number, and ACLs already read are
/// found by it and the mode's bits (`Compiler.aclCacheByText`) without reading the entry's nodes.
struct ACLTexts {
    private var ids: [[UInt8]: UInt32] = [:]

    /// The number of `text` (0 for nil, or once 2^32 - 1 texts are numbered).
    mutating func id(_ text: [UInt8]?) -> UInt32 {
        guard let text else { return 0 }
        if let known = ids[text] { return known }
        guard ids.count < Int(UInt32.max) else { return 0 }
        let id = UInt32(ids.count + 1)
        ids[text] = id
        return id
    }
}
