/// Why the entries of a folder (or a symlink's target) were not read. A name looked up in such
/// a folder and not found there is not known to be missing: the answer is `unknown`
/// (docs/semantics.md P6). The words are the values of a tree node's `unread:` key.
public enum UnreadReason: String, Sendable, CaseIterable {
    /// A folder above or beside the scanned roots: only the way down to them was read.
    case outside
    /// The scan could not open or list it (a scan as an ordinary user), or read the link.
    case denied
    /// `scan --exclude` matched it: recorded, not entered.
    case excluded
    /// Below `scan --max-depth`.
    case depth
    /// Another file system than its parent's, not entered (`--one-file-system`, or a pseudo
    /// file system such as /proc or /sys when a scan of `/` meets it).
    case mount
    /// Its path is longer than the kernel takes in one call (PATH_MAX, 4,096 bytes).
    case long
    /// It changed while it was read (an entry vanished or was replaced).
    case changed
    /// A folder of an archive or image that a member reaches through a symlink: GNU tar and
    /// container engines write the member there, bsdtar refuses, so what it holds is not known.
    case extraction

    /// A phrase for answers: "/usr was not read (only the way to the scanned folders was)".
    public var phrase: String {
        switch self {
        case .outside: "only the way to the scanned folders was read"
        case .denied: "the scan could not read it"
        case .excluded: "excluded from the scan (--exclude)"
        case .depth: "below the scan's --max-depth"
        case .mount: "another file system, not entered"
        case .long: "its path is longer than PATH_MAX"
        case .changed: "it changed while it was read"
        case .extraction: "a member reaches it through a symlink, which tar tools extract differently"
        }
    }
}
