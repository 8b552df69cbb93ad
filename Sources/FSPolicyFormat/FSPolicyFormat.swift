// FSPolicyFormat — the policy format.
//
// Reads policy files (the located nodes of FSPolicyYAML, walked by the loader, which turns the
// reader's refusals and duplicate keys into diagnostics), the scan files and listings a policy
// imports (`ScannedTree`, `getfacl` dumps, `ls -le` listings, binary plists), and writes policy
// and scan files (`ScanWriter`), `fmt` (`Formatter`) and the schema. Also the pieces every
// module above shares: `Policy`, `Diagnostic`, `Style`'s color marks, the byte buffer and the
// JSON writer.
//
// Depends on the core (FSPolicy) and the YAML reader (FSPolicyYAML). The archive readers
// (FSPolicyImport) and the scanner (FSPolicyLinux) sit above it and reach the loader through
// `PolicyLoader`'s seams.
