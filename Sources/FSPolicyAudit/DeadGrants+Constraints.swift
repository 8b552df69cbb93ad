// Dead grants: constraints on group membership (truth tables, who reaches a directory).
import FSPolicy

extension DeadGrants {
    // MARK: Constraints on group membership

    /// A truth table over the membership of `vars` (bit i of the index: member of vars[i]).
    struct Table {
        var vars: [GID]
        var ok: [Bool]

        /// The same function over the variables it depends on.
        func reduced() -> Table {
            var keep: [Int] = []
            for i in vars.indices {
                let bit = 1 << i
                if ok.indices.contains(where: { $0 & bit == 0 && ok[$0] != ok[$0 | bit] }) { keep.append(i) }
            }
            if keep.count == vars.count { return self }
            var out = [Bool](repeating: false, count: 1 << keep.count)
            for m in out.indices {
                var full = 0
                for (j, i) in keep.enumerated() where m & (1 << j) != 0 { full |= 1 << i }
                out[m] = ok[full]
            }
            return Table(vars: keep.map { vars[$0] }, ok: out)
        }
    }

    /// A conjunction of tables: fixed memberships plus the tables over several groups.
    struct Constraint {
        var unsat = false
        var fixed: [GID: Bool] = [:]
        var tables: [Table] = []

        mutating func add(_ t: Table) {
            if unsat { return }
            let r = t.reduced()
            if r.vars.isEmpty {
                if !r.ok[0] { unsat = true }
            } else if r.vars.count == 1 {
                let v = r.ok[1]  // depends on it: exactly one value passes
                if let f = fixed[r.vars[0]], f != v { unsat = true } else { fixed[r.vars[0]] = v }
            } else {
                tables.append(r)
            }
        }

        /// Whether a subject that is a member of exactly the groups of `gids` whose bit is set in
        /// `mask` (and of any others) can pass it.
        func admits(_ mask: Int, of gids: [GID]) -> Bool {
            if unsat { return false }
            for (i, g) in gids.enumerated() {
                if let x = fixed[g], x != (mask & (1 << i) != 0) { return false }
            }
            if tables.isEmpty { return true }
            var extra: [GID: Bool] = [:]
            for (i, g) in gids.enumerated() { extra[g] = mask & (1 << i) != 0 }
            return satisfiable(extra)
        }

        /// Whether the tables (with `fixed` and `extra` memberships) can all be satisfied.
        func satisfiable(_ extra: [GID: Bool]) -> Bool {
            if unsat { return false }
            if tables.isEmpty { return true }
            var assign = fixed
            for (k, v) in extra { assign[k] = v }
            var free: [GID] = []
            for t in tables { for v in t.vars where assign[v] == nil && !free.contains(v) { free.append(v) } }
            func check() -> Bool {
                for t in tables {
                    var m = 0, complete = true
                    for (i, v) in t.vars.enumerated() {
                        guard let b = assign[v] else { complete = false; break }
                        if b { m |= 1 << i }
                    }
                    if complete && !t.ok[m] { return false }
                }
                return true
            }
            func go(_ i: Int) -> Bool {
                if !check() { return false }
                if i == free.count { return true }
                for b in [false, true] {
                    assign[free[i]] = b
                    if go(i + 1) { return true }
                }
                assign[free[i]] = nil
                return false
            }
            return go(0)
        }
    }

    /// Who reaches a directory (may search it and every directory above): one constraint per
    /// uid the path tells apart, and one for every other uid.
    struct Reach {
        var explicit: [UID: Constraint] = [:]
        /// The keys of `explicit`, sorted.
        var order: [UID] = []
        var other = Constraint()
        func of(_ u: UID) -> Constraint { explicit[u] ?? other }
    }
}
