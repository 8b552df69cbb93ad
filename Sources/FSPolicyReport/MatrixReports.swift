import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender

/// The rows of `matrix`: CSV (a header line, then `path,op,allowed`, with an `unknown` column
/// when the world was read in part) or JSON Lines (one object per row with the same keys).
package struct MatrixRows {
    package enum Format { case csv, jsonl }

    package let format: Format
    /// The users of the columns, in order, as given and as escaped for CSV.
    let names: [String]
    let csvNames: [String]
    /// The world does not hold everything that decides a cell: each row has `unknown` too.
    let partial: Bool
    /// CSV: every name, never `everyone` or `everyone except …` (JSON Lines always lists them).
    let listAll: Bool
    /// Which columns are services (`service:NAME`), which `everyone` does not count.
    let isService: [Bool]
    let hasServices: Bool
    /// The names of the columns that are users.
    let userNames: [String]
    /// The `allowed` field of each distinct set, kept while the kept fields total under
    /// `cacheLimit` bytes: a field names up to every user, so keeping all of them could
    /// hold a copy of most of the output. Past the limit a field is made again each time.
    private var csvCache: [Int32: String] = [:]
    private var jsonCache: [Int32: String] = [:]
    private var cached = 0
    let cacheLimit = 64 << 20

    package init(format: Format, names: [String], partial: Bool, listAll: Bool = false) {
        self.format = format
        self.names = names
        self.csvNames = names.map { safe($0) }
        self.partial = partial
        self.isService = names.map { $0.hasPrefix("service:") }
        self.hasServices = isService.contains(true)
        self.userNames = names.filter { !$0.hasPrefix("service:") }
        // A user named like a word of the phrase would make a cell ambiguous: then every cell
        // lists the names.
        self.listAll = listAll || names.contains { $0 == "everyone" || $0 == "except" || $0 == "nobody" }
    }

    /// A CSV `allowed` cell: `everyone` or `everyone except A, B` (as `who` and `diff` write a
    /// set, against the users of the table) when that applies, else the names separated by spaces.
    /// Services (`service:NAME`) are not users: the phrase is about the users alone, and the
    /// services allowed follow it by name after a semicolon (`everyone; service:backup`).
    func csvAllowed(_ members: [Int]) -> String {
        if !listAll, !hasServices, let phrase = SubjectSetText.phrase(allowedIndices: members, of: names) { return csvField(safe(phrase)) }
        if !listAll, hasServices {
            let users = members.filter { !isService[$0] }
            if let phrase = SubjectSetText.phrase(allowed: users.map { names[$0] }, of: userNames) {
                let services = members.filter { isService[$0] }.map { csvNames[$0] }
                return csvField(safe(phrase) + (services.isEmpty ? "" : "; " + services.joined(separator: " ")))
            }
        }
        return csvField(members.map { csvNames[$0] }.joined(separator: " "))
    }

    /// What comes before the rows.
    package var header: String {
        switch format {
        case .csv: partial ? "path,op,allowed,unknown\n" : "path,op,allowed\n"
        case .jsonl: ""
        }
    }

    /// The rows of one node: one per set of `sets` (a set of the engine, or -1 for one made
    /// by the caller) with the op word of the same index; `members` gives the user indices of
    /// a set, `unknown` those whose answer for the row of that index is unknown (asked only
    /// when the world was read in part).
    package mutating func rows(path: String, sets: [Int32], opWords: [String], members: (Int32) -> [Int], unknown: (Int) -> [Int]) -> String {
        var out = ""
        switch format {
        case .csv:
            let field = csvField(path)
            for (k, s) in sets.enumerated() {
                let allowed: String
                if s >= 0, let c = csvCache[s] {
                    allowed = c
                } else {
                    allowed = csvAllowed(members(s))
                    if s >= 0 && cached + allowed.utf8.count <= cacheLimit { csvCache[s] = allowed; cached += allowed.utf8.count }
                }
                let unknownField = partial ? "," + csvField(unknown(k).map { csvNames[$0] }.joined(separator: " ")) : ""
                out += field + "," + csvField(opWords[k]) + "," + allowed + unknownField + "\n"
            }
        case .jsonl:
            let q = JSON.quote(path)
            for (k, s) in sets.enumerated() {
                let allowed: String
                if s >= 0, let c = jsonCache[s] {
                    allowed = c
                } else {
                    allowed = "[" + members(s).map { JSON.quote(names[$0]) }.joined(separator: ",") + "]"
                    if s >= 0 && cached + allowed.utf8.count <= cacheLimit { jsonCache[s] = allowed; cached += allowed.utf8.count }
                }
                let unknownField = partial ? ",\"unknown\":[" + unknown(k).map { JSON.quote(names[$0]) }.joined(separator: ",") + "]" : ""
                out += "{\"path\":" + q + ",\"op\":" + JSON.quote(opWords[k]) + ",\"allowed\":" + allowed + unknownField + "}\n"
            }
        }
        return out
    }
}
