/// What a file that may hold secrets turned out to hold, read from its first bytes by `scan`
/// (tree key `content:`): lint's FSL012 reports private keys and other secrets, never public
/// material such as the certificate bundles every TLS client must read.
public enum ContentKind: String, Sendable, CaseIterable {
    /// A PEM private key of any kind (PKCS#1, PKCS#8, encrypted, EC, OpenSSH) or an OpenPGP
    /// private key block: a secret.
    case privateKey = "private-key"
    /// Only certificates (and certificate revocation lists): public.
    case certificate
    /// Only public keys (PEM `PUBLIC KEY`, OpenSSH `ssh-… AAAA…` lines): public.
    case publicKey = "public-key"
    /// Anything else, or not known to be public: treated as a secret.
    case other

    /// Whether the content is meant to be read by anyone (certificates, public keys).
    public var isPublic: Bool { self == .certificate || self == .publicKey }

    /// The names whose content `scan` reads (`*` any characters before the rest): the default
    /// sensitive names of lint's FSL012.
    public static let sensitiveNames = [
        "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "*.pem", "*.key", ".env", "shadow", "gshadow",
        ".netrc", ".git-credentials", "*.kdbx", "*.keychain", "*.keychain-db"
    ]

    /// `sensitiveNames`, compiled once (exact names and suffixes: nothing is allocated to match).
    private static let sensitiveMatcher = NameMatcher(sensitiveNames)

    /// Whether the file name (bytes, as on disk) is one of `sensitiveNames`. Asked by `scan`
    /// of every regular file, so nothing is allocated here.
    public static func isSensitiveName<C: Collection<UInt8>>(_ name: C) -> Bool {
        sensitiveMatcher.firstMatch(name) != nil
    }

    /// The most bytes of a file `classify` is given: larger files are judged on these.
    public static let readLimit = 4 << 20

    /// What `bytes`, the start of a file, hold; `complete` when they are the whole file. Public
    /// only when every armoured block seen is public and the whole file was seen: a private key
    /// after the last byte read could still follow.
    public static func classify(_ bytes: [UInt8], complete: Bool) -> ContentKind {
        var sawCertificate = false, sawPublic = false, sawOther = false
        var lineStart = 0
        var i = 0
        let n = bytes.count
        func has(_ s: StaticString, at k: Int) -> Bool {
            let len = s.utf8CodeUnitCount
            guard k + len <= n else { return false }
            return s.withUTF8Buffer { p in
                for j in 0..<len where bytes[k + j] != p[j] { return false }
                return true
            }
        }
        // The label of a `-----BEGIN LABEL-----` line starting at `k`.
        func label(at k: Int) -> [UInt8] {
            var j = k + 11
            var out: [UInt8] = []
            while j < n, bytes[j] != 0x2d, bytes[j] != 0x0a, out.count < 64 { out.append(bytes[j]); j += 1 }
            return out
        }
        while i <= n {
            if i == n || bytes[i] == 0x0a {
                let k = lineStart
                if has("-----BEGIN ", at: k) {
                    let l = label(at: k)
                    if l.count >= 11 && l.suffix(11).elementsEqual("PRIVATE KEY".utf8) { return .privateKey }
                    if l.elementsEqual("PGP PRIVATE KEY BLOCK".utf8) { return .privateKey }
                    if l.elementsEqual("CERTIFICATE".utf8) || l.elementsEqual("TRUSTED CERTIFICATE".utf8)
                        || l.elementsEqual("X509 CRL".utf8) || l.elementsEqual("X509 CERTIFICATE".utf8)
                    {
                        sawCertificate = true
                    } else if l.elementsEqual("PUBLIC KEY".utf8) || l.elementsEqual("RSA PUBLIC KEY".utf8)
                        || l.elementsEqual("PGP PUBLIC KEY BLOCK".utf8)
                    {
                        sawPublic = true
                    } else {
                        sawOther = true
                    }
                } else if has("ssh-", at: k) || has("ecdsa-sha2-", at: k) || has("sk-ssh-", at: k) || has("sk-ecdsa-", at: k) {
                    sawPublic = true
                }
                lineStart = i + 1
            }
            i += 1
        }
        guard complete, !sawOther, sawCertificate || sawPublic else { return .other }
        // Text outside the armour (comments, `Bag Attributes`) is allowed; binary is not.
        for b in bytes where b == 0 { return .other }
        return sawCertificate ? .certificate : .publicKey
    }
}
