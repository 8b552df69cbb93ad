import FSPolicyAudit
import Foundation
import Testing

/// The report page writes each grid column's allowed subjects as a set in its script
/// (`setWords`); `who`, `matrix` and `diff` write them with `SubjectSetText`. Both must give the
/// same words, services included: the page's function, taken out of a real page, is run by
/// Node.js on random sets and compared with the Swift one.
@Suite("the report page's set words are SubjectSetText's")
struct ReportSetWordsTests {
    static let node = ["/usr/bin/node", "/usr/local/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(
        "random sets of users and services, in the page and in Swift",
        .enabled(if: node != nil, "needs Node.js to run the page's function (scripts/setup installs it with Chromium)"))
    func sameWords() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-setwords-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let page = dir + "/page.html"
        let r = try fspolicy(["report", "fixtures/examples/linux-services/policy.yaml", "-o", page])
        #expect(r.status == 0, "\(r.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        guard let start = html.range(of: "function setWords("), let end = html.range(of: "function gridKey(", range: start.upperBound..<html.endIndex) else {
            Issue.record("the page has no setWords function")
            return
        }
        let function = String(html[start.lowerBound..<end.lowerBound])
        // Random universes (0 to 9 users, 0 to 3 services) and random allowed subsets.
        var rng = SystemRandomNumberGenerator()
        var cases: [(all: [String], yes: [String])] = []
        for _ in 0..<400 {
            let users = (0..<Int.random(in: 0...9, using: &rng)).map { "u\($0)" }
            let services = (0..<Int.random(in: 0...3, using: &rng)).map { "service:s\($0)" }
            let all = users + services
            let keepOut = Int.random(in: 0...4, using: &rng)
            let yes = all.filter { _ in Int.random(in: 0..<10, using: &rng) >= keepOut }
            cases.append((all, yes))
        }
        let json = try JSONSerialization.data(withJSONObject: cases.map { ["all": $0.all, "yes": $0.yes] })
        try json.write(to: URL(fileURLWithPath: dir + "/cases.json"))
        let script = function + "\nconst cases = require(process.argv[2]);\nconsole.log(JSON.stringify(cases.map(c => setWords(c.yes, c.all))));\n"
        try script.write(toFile: dir + "/run.js", atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.node!)
        p.arguments = [dir + "/run.js", dir + "/cases.json"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let got = try JSONSerialization.jsonObject(with: data) as? [String] ?? []
        #expect(got.count == cases.count)
        var phrases = 0
        for (c, g) in zip(cases, got) {
            let want = SubjectSetText.text(allowed: c.yes, ofUsersAndServices: c.all)
            if want.hasPrefix("everyone") { phrases += 1 }
            #expect(g == want, "all \(c.all), allowed \(c.yes)")
        }
        // The phrases were asked, with and without services after them.
        #expect(phrases > 20)
    }
}
