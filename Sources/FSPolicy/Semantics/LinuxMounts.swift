/// Mount points under `semantics: linux`: a volume's, and those of a service's sandbox view
/// (docs/semantics.md, O8 and U4).
extension Eval {
    /// EBUSY for the mount point `n` (rule O8): the kernel checks it after the permission
    /// checks of unlink, rmdir and rename, root included.
    mutating func mountPointBusy(_ n: NodeID) -> Outcome {
        if let v = subject.view, let e = v.entries.first(where: { $0.path == world.path(of: n) }) {
            return finish(.deny(.EBUSY, .type, .busyMountPoint, n, .view(node: n, e)), .delete)
        }
        return finish(.deny(.EBUSY, .type, .busyMountPoint, n, .volume(mountPath: world.volumes[Int(world[n].volume)].mountPath)), .delete)
    }

    /// `n` is a mount point: of a volume, or of the service's sandbox (each path its unit names
    /// is bound onto itself, U4).
    func isLinuxMountPoint(_ n: NodeID) -> Bool {
        if world.isMountPoint(n) { return true }
        guard let v = subject.view else { return false }
        let p = world.path(of: n)
        return v.entries.contains { $0.path == p }
    }
}
