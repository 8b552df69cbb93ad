// FSPolicyImport — importers that read a whole tree from somewhere else.
//
// Tar archives (`TarReader`, with `TarExtraction` and `PackedArchive`) and OCI image layouts
// (`OCIReader`, `LayerStack`), read through libarchive into a `ScannedTree`. The loader's
// `import:` reaches them through the `LoaderHost` it is given: `host.readingArchives()`.
//
// Depends on the core, FSPolicyFormat and FSPolicyIO. Linux only.
