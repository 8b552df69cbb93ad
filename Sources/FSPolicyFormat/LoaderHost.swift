import FSPolicy

/// What loading a policy may ask of the machine it runs on: to read a real tree (`import: -
/// scan:`), a tar archive or an OCI image, to look up an account by name, and whether a file
/// may be read at all. The caller passes it to `PolicyLoader.load(…, host:)` as a value: the
/// command-line tool passes the Linux scanner, the archive readers and, when it writes a file,
/// a guard that refuses to read that file; the default, `none`, can do none of these, and such
/// imports are reported as unavailable.
public struct LoaderHost: Sendable {
    /// Reads the real tree at an absolute path.
    public var scan: (@Sendable (String, ScanOptions) -> ScannedTree)?
    /// Reads a tar archive (plain or compressed) as a tree rooted at `/`.
    public var tar: (@Sendable (String) -> Result<ScannedTree, ArchiveFailure>)?
    /// Reads an OCI image layout; the second argument is the import's `platform:`
    /// (`os/arch[/variant]` or a manifest digest), nil for the default.
    public var oci: (@Sendable (String, String?) -> Result<ScannedTree, ArchiveFailure>)?
    /// The host's accounts, for names an import gives without ids (getfacl dumps, archives).
    public var accounts: HostAccounts
    /// Asked before an imported file (a policy, dump, listing, archive or image) is read: a
    /// reason it must not be (it is the file the command is about to write), or nil.
    public var importGuard: (@Sendable (String) -> String?)?

    public init(
        scan: (@Sendable (String, ScanOptions) -> ScannedTree)? = nil, tar: (@Sendable (String) -> Result<ScannedTree, ArchiveFailure>)? = nil,
        oci: (@Sendable (String, String?) -> Result<ScannedTree, ArchiveFailure>)? = nil, accounts: HostAccounts = .none,
        importGuard: (@Sendable (String) -> String?)? = nil
    ) {
        self.scan = scan
        self.tar = tar
        self.oci = oci
        self.accounts = accounts
        self.importGuard = importGuard
    }

    /// A host that reads nothing and knows no accounts.
    public static let none = LoaderHost()
}

/// A host's account database, asked by name.
public struct HostAccounts: Sendable {
    public var user: @Sendable (String) -> ScannedTree.HostUser?
    public var group: @Sendable (String) -> GID?

    public init(user: @escaping @Sendable (String) -> ScannedTree.HostUser?, group: @escaping @Sendable (String) -> GID?) {
        self.user = user
        self.group = group
    }

    /// No accounts: every name is unknown.
    public static let none = HostAccounts(user: { _ in nil }, group: { _ in nil })
}
