#if os(Linux)
    import Glibc
#else
    import Darwin
#endif

// Two builds of one program:
// - ordinary (`swift build`): `fspolicy-fuzz TARGET FILE|DIR…` runs each input through the
//   target once and prints how many passed; a property violation stops it with the input's
//   name. `scripts/test` replays the seed corpus and every saved finding this way.
// - fuzzing (`scripts/fuzz`, built with `-sanitize=fuzzer -D FUZZING`): libFuzzer drives the
//   target named by FSPOLICY_FUZZ_TARGET; the arguments are libFuzzer's.

func complain(_ s: String) { _ = s.withCString { write(2, $0, strlen($0)) } }

func readFile(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buf, 1, buf.count, f)
        if n > 0 { out += buf[0..<n] }
        if n < buf.count { break }
    }
    return out
}

func inputs(_ path: String) -> [String] {
    var st = stat()
    guard stat(path, &st) == 0 else { return [] }
    guard st.st_mode & S_IFMT == S_IFDIR else { return [path] }
    guard let d = opendir(path) else { return [] }
    defer { closedir(d) }
    var out: [String] = []
    while let e = readdir(d) {
        let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name.hasPrefix(".") { continue }
        out += inputs(path + "/" + name)
    }
    return out.sorted()
}

#if FUZZING
    nonisolated(unsafe) var fuzzTarget = "loader"

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        FuzzTargets.run(fuzzTarget, bytes)
        return 0
    }

    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    if let t = getenv("FSPOLICY_FUZZ_TARGET").map({ String(cString: $0) }) {
        guard FuzzTargets.names.contains(t) else { complain("fspolicy-fuzz: unknown target \(t)\n"); exit(64) }
        fuzzTarget = t
    }
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOne))
#else
    let args = Array(CommandLine.arguments.dropFirst())
    guard let target = args.first, FuzzTargets.names.contains(target), args.count >= 2 else {
        complain("usage: fspolicy-fuzz \(FuzzTargets.names.joined(separator: "|")) FILE|DIR…\n")
        exit(64)
    }
    var count = 0
    for path in args.dropFirst() {
        let files = inputs(path)
        if files.isEmpty { complain("fspolicy-fuzz: nothing to read at \(path)\n"); exit(66) }
        for f in files {
            guard let data = readFile(f) else { complain("fspolicy-fuzz: cannot read \(f)\n"); exit(66) }
            // A property violation stops the program with this input's name.
            FuzzTargets.inputName = f
            FuzzTargets.run(target, data)
            count += 1
        }
    }
    print("fspolicy-fuzz \(target): \(count) input(s), every property held")
#endif
