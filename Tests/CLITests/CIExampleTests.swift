import Foundation
import Testing

/// The CI examples and pre-commit hooks: valid YAML with the structure each system requires,
/// and every fspolicy command they run is one that exists, with options that exist.
@Suite("CI examples and pre-commit hooks")
struct CIExampleTests {
    static func python(_ script: String, _ args: [String] = []) throws -> RunResult? {
        guard (try? run("/usr/bin/env", ["python3", "-c", "import yaml"]))?.status == 0 else {
            Issue.record("python3 with PyYAML is needed to read the CI files (scripts/setup installs it)")
            return nil
        }
        return try run("/usr/bin/env", ["python3", "-c", script] + args)
    }

    @Test("the GitHub Actions workflow has the structure GitHub requires")
    func githubActions() throws {
        let script = """
            import sys, yaml
            w = yaml.safe_load(open("examples/ci/github-actions.yml"))
            on = w.get("on", w.get(True))            # YAML 1.1 reads a bare `on` as true
            assert isinstance(w.get("name"), str), "name"
            assert on and ("push" in on or "pull_request" in on), "on: push/pull_request"
            assert w["permissions"]["security-events"] == "write", "SARIF upload needs security-events: write"
            for jid, job in w["jobs"].items():
                assert "runs-on" in job, jid + ": runs-on"
                for s in job["steps"]:
                    assert ("uses" in s) != ("run" in s), jid + ": a step has exactly one of uses/run: %r" % s
                    if "uses" in s:
                        assert "@" in s["uses"], "actions are pinned: " + s["uses"]
            uses = [s["uses"].split("@")[0] for j in w["jobs"].values() for s in j["steps"] if "uses" in s]
            assert "github/codeql-action/upload-sarif" in uses, "SARIF is uploaded"
            runs = "\\n".join(s["run"] for j in w["jobs"].values() for s in j["steps"] if "run" in s)
            print(runs)
            """
        guard let r = try Self.python(script) else { return }
        #expect(r.status == 0, "\(r.stderr)")
        try Self.checkCommands(r.stdout, file: "examples/ci/github-actions.yml")
    }

    @Test("the GitLab CI job has the structure GitLab requires")
    func gitlab() throws {
        let script = """
            import yaml
            c = yaml.safe_load(open("examples/ci/gitlab-ci.yml"))
            job = c["fspolicy"]
            assert isinstance(job["script"], list) and job["script"], "script is a list"
            assert job["artifacts"]["reports"]["junit"] == "fspolicy-junit.xml", "junit report"
            assert job["artifacts"]["when"] == "always", "the report is kept when the job fails"
            print("\\n".join(job.get("before_script", []) + job["script"]))
            """
        guard let r = try Self.python(script) else { return }
        #expect(r.status == 0, "\(r.stderr)")
        try Self.checkCommands(r.stdout, file: "examples/ci/gitlab-ci.yml")
    }

    @Test("the pre-commit hooks run fspolicy commands that exist")
    func preCommit() throws {
        let script = """
            import yaml
            hooks = yaml.safe_load(open(".pre-commit-hooks.yaml"))
            for h in hooks:
                for k in ("id", "name", "entry", "language"):
                    assert k in h, "hook %r lacks %s" % (h.get("id"), k)
                assert h["language"] == "system"
                print(h["entry"])
            """
        guard let r = try Self.python(script) else { return }
        #expect(r.status == 0, "\(r.stderr)")
        try Self.checkCommands(r.stdout, file: ".pre-commit-hooks.yaml")
    }

    /// Every `fspolicy SUB --opt` in the text names a subcommand and options its --help lists.
    static func checkCommands(_ text: String, file: String) throws {
        let subs = try DocTests.subcommands()
        var seen = 0
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            guard let i = words.firstIndex(of: "fspolicy"), i + 1 < words.count else { continue }
            let sub = words[i + 1]
            if sub.hasPrefix("--") { continue }  // fspolicy --version
            seen += 1
            #expect(subs.contains(sub), "\(file): `fspolicy \(sub)` is not a command")
            guard subs.contains(sub) else { continue }
            let help = try fspolicy([sub, "--help"], env: ["COLUMNS": "1000"]).stdout
            for w in words[(i + 2)...] where w.hasPrefix("--") {
                let opt = String(w.split(separator: "=").first ?? "")
                #expect(help.contains(opt), "\(file): `fspolicy \(sub)` has no option \(opt)")
            }
        }
        #expect(seen > 0, "\(file) runs no fspolicy command")
    }
}
