import ArgumentParser
import FSPolicy
import FSPolicyAudit
import FSPolicyFormat
import FSPolicyRender
import FSPolicyReport
import Foundation

/// A keychain question on the command line (docs/cli.md, "Keychain questions"): `--keychain`
/// names the call, the other options are its query, as an app would write it.
struct KeychainOptions: ParsableArguments {
    @Option(
        name: .long, help: ArgumentHelp("Ask a keychain question instead: the call (add, copy, update, delete), made by the app of `--as`.", valueName: "call"))
    var keychain: KeychainCall?
    @Option(name: .customLong("class"), help: ArgumentHelp("Keychain: the item class (genp, inet, cert, keys, idnt; default genp).", valueName: "class"))
    var itemClass: KeychainClass?
    @Option(name: .long, help: "Keychain: kSecAttrService.") var service: String?
    @Option(name: .long, help: "Keychain: kSecAttrAccount.") var account: String?
    @Option(name: .long, help: "Keychain: kSecAttrServer.") var server: String?
    @Option(
        name: .long, help: ArgumentHelp("Keychain: another attribute, as `word=value` (label=…, applicationTag=…); repeat for more.", valueName: "word=value"))
    var attr: [String] = []
    @Option(name: .customLong("access-group"), help: "Keychain: kSecAttrAccessGroup (default: none given).") var accessGroup: String?
    @Option(name: .customLong("sync"), help: ArgumentHelp("Keychain: kSecAttrSynchronizable: yes, no or any (default: not given).", valueName: "sync"))
    var sync: String?
    @Option(name: .long, help: ArgumentHelp("Keychain Add: the accessibility (whenUnlocked, afterFirstUnlock, …).", valueName: "class"))
    var accessible: KeychainAccessibility?
    @Option(
        name: .customLong("access-control"),
        help: ArgumentHelp("Keychain: access-control flags joined by ` or ` or ` and ` (\"biometryAny or devicePasscode\").", valueName: "flags"))
    var accessControl: String?
    @Option(name: .long, help: ArgumentHelp("Keychain: the match limit, one or all.", valueName: "limit")) var limit: String?
    @Option(name: .long, help: ArgumentHelp("Keychain: authentication UI: allow (default), fail or skip.", valueName: "ui")) var ui: AuthenticationUI?
    @Option(name: .long, help: ArgumentHelp("Keychain: what the user does at a prompt: authenticate (default), cancel or fail.", valueName: "answer"))
    var prompt: PromptAnswer?
    @Flag(name: .customLong("attributes-only"), help: "Keychain: ask for attributes only, not the secret.") var attributesOnly = false
    @Flag(name: .customLong("return-keys"), help: "Keychain: the query carries kSecReturn… keys.") var returnKeys = false
    @Flag(name: .customLong("data-protection"), help: "Keychain, macOS: kSecUseDataProtectionKeychain.") var dataProtection = false
    @Option(
        name: .customLong("set"),
        help: ArgumentHelp("Keychain Update: a new value, as `word=value` (group=… moves the item); repeat for more.", valueName: "word=value"))
    var set: [String] = []

    var asked: Bool { keychain != nil }

    func pair(_ s: String, what: String) throws -> (String, String) {
        guard let eq = s.firstIndex(of: "="), eq != s.startIndex else { throw ValidationError("\(what) takes `word=value`, found `\(s)`") }
        return (String(s[..<eq]), String(s[s.index(after: eq)...]))
    }

    func query(app: String) throws -> KeychainQuery {
        guard let call = keychain else { throw ValidationError("missing `--keychain`") }
        var q = KeychainQuery(app: app, call: call, cls: itemClass ?? .genp)
        if let service { q.attributes["svce"] = service }
        if let account { q.attributes["acct"] = account }
        if let server { q.attributes["srvr"] = server }
        for a in attr {
            let (w, v) = try pair(a, what: "`--attr`")
            guard let name = KeychainClass.attribute(forWord: w) else {
                throw ValidationError("unknown attribute `\(w)` in `--attr`; known: " + KeychainClass.attributeWords.map(\.word).joined(separator: ", "))
            }
            q.attributes[name] = v
        }
        q.group = accessGroup
        switch sync {
        case nil: break
        case "yes", "true": q.sync = .yes
        case "no", "false": q.sync = .no
        case "any": q.sync = .any
        case let s?: throw ValidationError("`--sync` takes yes, no or any, found `\(s)`")
        }
        q.accessible = accessible
        if let ac = accessControl { q.accessControl = try Self.accessControl(ac) }
        switch limit {
        case nil: break
        case "one": q.limitOneGiven = true
        case "all": q.limitAll = true
        case let s?: throw ValidationError("`--limit` takes one or all, found `\(s)`")
        }
        q.ui = ui ?? .allow
        q.prompt = prompt ?? .authenticate
        q.attributesOnly = attributesOnly
        q.returnKeys = returnKeys
        q.dataProtection = dataProtection
        if !set.isEmpty && call != .update { throw ValidationError("`--set` goes with `--keychain update`") }
        for s in set {
            let (w, v) = try pair(s, what: "`--set`")
            if w == "group" { q.updateGroup = v; continue }
            if w == "accessible" {
                guard let a = KeychainAccessibility(rawValue: v) else { throw ValidationError("unknown accessibility `\(v)` in `--set`") }
                q.updateAccessible = a
                continue
            }
            q.update[KeychainClass.attribute(forWord: w) ?? w] = v
        }
        return q
    }

    /// "biometryAny or devicePasscode" → flags and operator.
    static func accessControl(_ s: String) throws -> KeychainAccessControl {
        var ac = KeychainAccessControl(flags: [])
        for w in s.split(separator: " ").map(String.init) {
            if let op = KeychainAccessControl.Operator(rawValue: w) {
                if !ac.operators.contains(op) { ac.operators.append(op) }
                continue
            }
            guard let f = AccessControlFlag(rawValue: w) else {
                throw ValidationError("unknown access-control flag `\(w)`; known: " + AccessControlFlag.allCases.map(\.rawValue).joined(separator: ", "))
            }
            ac.flags.append(f)
        }
        if ac.flags.isEmpty { throw ValidationError("`--access-control` needs at least one flag") }
        return ac
    }

    /// The policy's keychain, or an error that says how to add one.
    static func keychainOrExit(_ p: Policy, file: String) throws -> KeychainPolicy {
        if let k = p.keychain { return k }
        printError(
            "fspolicy: error: \(Escaping.terminal(file)) has no `keychain:` section\n  help: add one (docs/keychain.md); even `keychain: {}` gives a keychain with no items"
        )
        throw ExitCode.invalid
    }

    static func stateOrExit(_ k: KeychainPolicy, after: Int?) throws -> KeychainState {
        if let a = after, a < 0 || a > k.history.count {
            printError(
                "fspolicy: error: `--after \(a)` but the keychain history has \(k.history.count) step(s)\n  help: give a number from 0 to \(k.history.count)")
            throw ExitCode.invalid
        }
        return k.state(after: after)
    }
}

extension KeychainCall: ExpressibleByArgument {}
extension KeychainClass: ExpressibleByArgument {}
extension KeychainAccessibility: ExpressibleByArgument {}
extension AuthenticationUI: ExpressibleByArgument {}
extension PromptAnswer: ExpressibleByArgument {}

/// `can --keychain` and `explain --keychain`.
enum KeychainQuestion {
    static func can<F: FormatChoice>(_ common: CommonOptions<F>, file: String, host: LoaderHost, who: String, options: KeychainOptions, after: Int?) throws {
        let p = try loadOrExit(file, semantics: common.semantics, host: host)
        let k = try KeychainOptions.keychainOrExit(p, file: file)
        let q = try options.query(app: who)
        let state = try KeychainOptions.stateOrExit(k, after: after)
        let a = state.decide(q, app: k.app(who))
        let r = KeychainRenderer(style: common.style)
        switch common.format {
        case .json: try common.emit(r.json(a, device: state.device).render() + "\n")
        default: if !common.quiet { try common.emit(r.oneLine(a) + "\n") }
        }
        if !a.allowed { throw ExitCode.denied }
    }

    static func explain<F: FormatChoice>(
        _ common: CommonOptions<F>, file: String, host: LoaderHost, who: String, options: KeychainOptions, after: Int?, compare: Bool
    ) throws {
        let p = try loadOrExit(file, semantics: common.semantics, host: host)
        let k = try KeychainOptions.keychainOrExit(p, file: file)
        let q = try options.query(app: who)
        let state = try KeychainOptions.stateOrExit(k, after: after)
        let r = KeychainRenderer(style: common.style)
        let a = state.decide(q, app: k.app(who))
        guard compare else {
            switch common.format {
            case .json: try common.emit(r.json(a, device: state.device).render() + "\n")
            default: if !common.quiet { try common.emit(r.explain(a, device: state.device) + "\n") }
            }
            if !a.allowed { throw ExitCode.denied }
            return
        }
        let all = KeychainRenderer.compare(q, state: state, app: k.app(who))
        switch common.format {
        case .json: try common.emit(KeychainAnswers.compareJSON(all, device: state.device, renderer: r))
        default: if !common.quiet { try common.emit(KeychainAnswers.compareText(all, query: q, renderer: r)) }
        }
        if !a.allowed { throw ExitCode.denied }
    }
}

extension KeychainQuestion {
    /// `who --keychain`: every declared app asks the same query, on the state the history
    /// leaves and in each lock state.
    static func who<F: FormatChoice>(_ common: CommonOptions<F>, file: String, host: LoaderHost, options: KeychainOptions, after: Int?) throws {
        let p = try loadOrExit(file, semantics: common.semantics, host: host)
        let k = try KeychainOptions.keychainOrExit(p, file: file)
        let state = try KeychainOptions.stateOrExit(k, after: after)
        let r = KeychainRenderer(style: common.style)
        var rows: [KeychainAnswers.WhoRow] = []
        for id in p.appIDs {
            let q = try options.query(app: id)
            let by = KeychainAnswers.lockStates.map { st -> KeychainAnswer in
                var s = state
                s.device.lock = st
                return s.decide(q, app: k.app(id))
            }
            rows.append(.init(app: id, now: state.decide(q, app: k.app(id)), byState: by))
        }
        let question = try r.question(options.query(app: "APP"))
        switch common.format {
        case .json: try common.emit(KeychainAnswers.whoJSON(rows, question: question, device: state.device, renderer: r))
        default: if !common.quiet { try common.emit(KeychainAnswers.whoText(rows, question: question, device: state.device, renderer: r)) }
        }
    }
}
