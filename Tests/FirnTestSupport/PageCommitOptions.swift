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
}
