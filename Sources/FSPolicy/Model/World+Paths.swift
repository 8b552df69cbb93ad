// Spelling a node's path: as a string, its length, written into a buffer.

extension World {
    public func path(of node: NodeID) -> String {
        if node == World.root { return "/" }
        let length = pathByteCount(of: node)
        return String(unsafeUninitializedCapacity: length) { out in
            writePath(of: node, length: length, into: out)
            return length
        }
    }

    /// The number of bytes of `path(of: node)`, without making it.
    public func pathByteCount(of node: NodeID) -> Int {
        if node == World.root { return 1 }
        var length = 0
        var cur = node
        while cur != World.root {
            length += 1 + nameByteCount(nodes[Int(cur)].name)
            cur = nodes[Int(cur)].parent
        }
        return length
    }

    /// Writes the bytes of `path(of: node)` at the start of `out`, which holds at least `length`
    /// bytes, `length` being `pathByteCount(of: node)` (the names' bytes from the arena, written
    /// from the end).
    public func writePath(of node: NodeID, length: Int, into out: UnsafeMutableBufferPointer<UInt8>) {
        if node == World.root { out[0] = 0x2F; return }
        precondition(out.count >= length)
        nameBytes.withUnsafeBufferPointer { arena in
            var end = length
            var cur = node
            while cur != World.root {
                let id = Int(nodes[Int(cur)].name)
                let from = Int(nameStart[id]), to = Int(nameStart[id + 1])
                end -= to - from
                for k in 0..<(to - from) { out[end + k] = arena[from + k] }
                end -= 1
                out[end] = 0x2F
                cur = nodes[Int(cur)].parent
            }
        }
    }

    /// Writes `path(of: node)` after one walk up: `room(length)` says where, with room for the
    /// path's `length` bytes and 8 more that may be written over but are not part of it (a name
    /// of up to eight bytes is written with one store of its head from the node's record, so
    /// the arena is read only for longer names). A path more than 64 deep is counted, then
    /// written from the end (`writePath(of:length:into:)`).
    public func writePath(of node: NodeID, room: (Int) -> UnsafeMutablePointer<UInt8>) {
        if node == World.root { room(1)[0] = 0x2F; return }
        withUnsafeTemporaryAllocation(of: NodeID.self, capacity: 64) { chain in
            nodes.withUnsafeBufferPointer { all in
                var depth = 0, length = 0, cur = node
                while cur != World.root && depth < 64 {
                    chain[depth] = cur
                    let r = all[Int(cur)]
                    length += 1 + (r.nameLength < 255 ? Int(r.nameLength) : nameByteCount(r.name))
                    cur = r.parent
                    depth += 1
                }
                if cur != World.root {
                    let n = pathByteCount(of: node)
                    writePath(of: node, length: n, into: UnsafeMutableBufferPointer(start: room(n), count: n))
                    return
                }
                let p = room(length)
                var at = 0
                nameBytes.withUnsafeBufferPointer { arena in
                    for k in stride(from: depth - 1, through: 0, by: -1) {
                        let r = all[Int(chain[k])]
                        p[at] = 0x2F
                        at += 1
                        if r.nameLength <= 8 {
                            UnsafeMutableRawPointer(p + at).storeBytes(of: r.nameHead.littleEndian, as: UInt64.self)
                            at += Int(r.nameLength)
                        } else {
                            let id = Int(r.name)
                            let from = Int(nameStart[id]), n = Int(nameStart[id + 1]) - from
                            UnsafeMutableRawPointer(p + at).copyMemory(from: arena.baseAddress! + from, byteCount: n)
                            at += n
                        }
                    }
                }
            }
        }
    }
}
