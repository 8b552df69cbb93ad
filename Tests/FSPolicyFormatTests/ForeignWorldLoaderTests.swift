import FSPolicy
import FSPolicyFormat
import FSPolicyRender
import FSPolicyAudit
import FSPolicyReport
import Testing

/// The loader records whether the file describes a Linux system (`semantics: linux`, what every
/// scan writes), whatever rule set the command line then asks for: `World.fromLinux`, which
/// keeps macOS's implicit `everyone` (gid 12) off such a world.
@Suite("The loader marks worlds read from Linux")
struct ForeignWorldLoaderTests {
    static let text = """
        fspolicy: 1
        semantics: linux
        groups:
          man: {gid: 12}
        users:
          nobody: {uid: 65534}
        tree:
          /srv/index.db: {owner: root, group: man, mode: "0660"}
        """

    @Test("semantics: linux marks the world, also under --semantics macos or guide", arguments: [Semantics?.none, .macos, .guide])
    func linuxFile(_ override: Semantics?) {
        let p = PolicyLoader.load(text: Self.text, file: "foreign.yaml", semanticsOverride: override)
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        #expect(p.world.fromLinux)
        #expect(!p.world.implicitEveryone)
        #expect(!p.world.subject(uid: 65534).isMember(12))
    }

    @Test("a macOS file is not marked, and its users are in everyone")
    func macFile() {
        let p = PolicyLoader.load(
            text: Self.text.replacingOccurrences(of: "semantics: linux\n", with: "").replacingOccurrences(
                of: "  man: {gid: 12}\n", with: "  staff2: {gid: 30}\n"
            ).replacingOccurrences(of: "group: man", with: "group: staff2"),
            file: "mac.yaml")
        #expect(!p.diagnostics.hasErrors, "\(p.diagnostics.sorted.map(\.rendered))")
        #expect(!p.world.fromLinux)
        #expect(p.world.implicitEveryone)
        #expect(p.world.subject(uid: 65534).isMember(12))
    }
}
