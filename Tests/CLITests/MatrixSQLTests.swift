import Foundation
import Testing

/// docs/cli.md's worked example for `matrix` and DuckDB: the documented queries, run on the
/// real CSV the documented command writes, must give the documented tables.
private let duckdbAvailable: Bool = {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["python3", "-c", "import duckdb"]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return false }
    p.waitUntilExit()
    return p.terminationStatus == 0
}()

@Suite("matrix CSV in DuckDB (docs/cli.md)")
struct MatrixSQLTests {
    /// The section's ```sh command, and each ```sql block with the ```text block after it.
    static func example() throws -> (command: String, queries: [(sql: String, table: String)]) {
        let doc = try String(contentsOf: packageRoot.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        guard let start = doc.range(of: "### Spreadsheets, DuckDB and Spark") else { throw CancellationError() }
        let section = doc[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        let lines = section[..<end].components(separatedBy: "\n")
        var command = ""
        var blocks: [(lang: String, body: String)] = []
        var i = 0
        while i < lines.count {
            if lines[i].hasPrefix("```"), lines[i].count > 3 {
                let lang = String(lines[i].dropFirst(3))
                var body: [String] = []
                i += 1
                while i < lines.count, !lines[i].hasPrefix("```") { body.append(lines[i]); i += 1 }
                blocks.append((lang, body.joined(separator: "\n")))
            }
            i += 1
        }
        command = blocks.first { $0.lang == "sh" }?.body ?? ""
        var queries: [(String, String)] = []
        for (k, b) in blocks.enumerated() where b.lang == "sql" && k + 1 < blocks.count && blocks[k + 1].lang == "text" {
            queries.append((b.body, blocks[k + 1].body))
        }
        return (command, queries)
    }

    @Test(
        "the documented queries give the documented tables on real matrix output",
        .enabled(if: duckdbAvailable, "needs Python's duckdb module (pip install duckdb); the worked example in docs/cli.md is not run without it"))
    func documentedQueries() throws {
        let (command, queries) = try Self.example()
        #expect(command.hasPrefix("fspolicy matrix ") && command.hasSuffix("--output matrix.csv"), "the example's command: \(command)")
        #expect(queries.count >= 2, "the section has its queries, each followed by its result")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fspolicy-sql-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // The command, run from the package root, writing into the temporary folder.
        var args = command.split(separator: " ").dropFirst().map(String.init)
        args[args.count - 1] = dir.appendingPathComponent("matrix.csv").path
        let m = try fspolicy(args)
        #expect(m.status == 0, "\(m.stderr)")
        let csv = try String(contentsOf: dir.appendingPathComponent("matrix.csv"), encoding: .utf8)
        #expect(csv.hasPrefix("path,op,allowed\n"))
        for (n, q) in queries.enumerated() {
            let sqlFile = dir.appendingPathComponent("q\(n).sql")
            try q.sql.write(to: sqlFile, atomically: true, encoding: .utf8)
            let script = """
                import duckdb, sys
                con = duckdb.connect()
                cur = con.execute(open(sys.argv[1]).read())
                print(" | ".join(d[0] for d in cur.description))
                for row in cur.fetchall():
                    print(" | ".join(str(x) for x in row))
                """
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["python3", "-c", script, sqlFile.path]
            p.currentDirectoryURL = dir
            let out = Pipe(), err = Pipe()
            p.standardOutput = out
            p.standardError = err
            try p.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            let errData = err.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0, "query \(n + 1) failed: \(String(decoding: errData, as: UTF8.self))")
            let got = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
            #expect(got == q.table.trimmingCharacters(in: .newlines), "query \(n + 1):\n\(q.sql)\ngave\n\(got)\nbut docs/cli.md shows\n\(q.table)")
        }
    }
}
