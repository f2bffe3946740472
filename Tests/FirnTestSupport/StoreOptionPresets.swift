import FirnCore

extension StoreOptions {
    /// Page commits, no commit log (`commitLogPages` 0; the default is the
    /// log, docs/COMMIT-PATH.md). For the suites written for copy-on-write
    /// commits, which look at each commit's pages, records and births, and
    /// for the tools' tests that rewrite them: they keep that path tested.
    /// The log's own suites set `commitLogPages`.
    package static var pageCommits: StoreOptions {
        var options = StoreOptions()
        options.commitLogPages = 0
        return options
    }

    /// The commit log (the default, docs/COMMIT-PATH.md) with a region of
    /// `pages` pages; `create` false: the file must exist.
    package static func commitLog(pages: UInt32, create: Bool = true) -> StoreOptions {
        var options = StoreOptions()
        options.create = create
        options.commitLogPages = pages
        return options
    }

    /// An existing file, read-only.
    package static var readOnlyExisting: StoreOptions {
        var options = StoreOptions()
        options.readOnly = true
        options.create = false
        return options
    }
}
