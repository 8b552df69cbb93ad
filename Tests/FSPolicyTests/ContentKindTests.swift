import FSPolicy
import Testing

@Suite("What a file with a sensitive name holds (ContentKind)")
struct ContentKindTests {
    static let cert = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n"

    @Test(
        "PEM labels and OpenSSH lines are told apart; public only when the whole file was seen",
        arguments: [
            ("# Mozilla CA bundle\n" + cert + cert, true, ContentKind.certificate),
            (cert, false, .other),
            (cert + "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n", true, .privateKey),
            ("-----BEGIN PRIVATE KEY-----\nMC4C\n-----END PRIVATE KEY-----\n", false, .privateKey),
            ("-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF\n", true, .privateKey),
            ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----\n", true, .privateKey),
            ("-----BEGIN EC PRIVATE KEY-----\r\nMHcC\r\n", true, .privateKey),
            ("-----BEGIN PGP PRIVATE KEY BLOCK-----\n", true, .privateKey),
            ("-----BEGIN PUBLIC KEY-----\nMCow\n-----END PUBLIC KEY-----\n", true, .publicKey),
            ("ssh-ed25519 AAAAC3Nza alice@host\n", true, .publicKey),
            (cert + "-----BEGIN PUBLIC KEY-----\nMCow\n", true, .certificate),
            ("-----BEGIN X509 CRL-----\nMIIB\n", true, .certificate),
            ("-----BEGIN DH PARAMETERS-----\nMIIB\n", true, .other),
            ("API_TOKEN=s3cret\n", true, .other),
            ("", true, .other),
            ("   -----BEGIN PRIVATE KEY-----\n", true, .other),
            (cert + "\u{0}binary", true, .other)
        ])
    func classify(text: String, complete: Bool, kind: ContentKind) {
        #expect(ContentKind.classify(Array(text.utf8), complete: complete) == kind)
    }

    @Test("the names scan reads: FSL012's default sensitive names, exact or by suffix")
    func sensitiveNames() {
        for name in ["id_rsa", "cacert.pem", "server.key", ".env", "shadow", "db.kdbx", "login.keychain-db"] {
            #expect(ContentKind.isSensitiveName(Array(name.utf8)), "\(name)")
        }
        for name in ["id_rsa.pub", "pem", "shadow.bak", "env", "notes.txt", ""] {
            #expect(!ContentKind.isSensitiveName(Array(name.utf8)), "\(name)")
        }
    }
}
