// FSPolicyFormat — the policy format.
//
// Reads policy files (YAML into located nodes, then the loader with its diagnostics), the scan
// files and listings a policy imports (`ScannedTree`, `getfacl` dumps, `ls -le` listings,
// binary plists), and writes policy and scan files (`ScanWriter`), `fmt` (`Formatter`) and the
// schema. Also the pieces every module above shares: `Policy`, `Diagnostic`, `Style`'s color
// marks, the byte buffer and the JSON writer.
//
// Depends on the core (FSPolicy) alone. The archive readers (FSPolicyImport) and the scanner
// (FSPolicyLinux) sit above it and reach the loader through `PolicyLoader`'s seams.
