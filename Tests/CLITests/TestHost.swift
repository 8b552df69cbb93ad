import FSPolicyFormat

#if os(Linux)
    import FSPolicyImport

    /// The host in-process loads use: tar archives and OCI images are read, as the command line
    /// reads them (the image example imports a tarball); no real trees, no host accounts.
    let testHost = LoaderHost.none.readingArchives()
#else
    let testHost = LoaderHost.none
#endif
