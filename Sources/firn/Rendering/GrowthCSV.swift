import FirnTools

/// `firn growth --csv`: the history, a header line and one row per point.
enum GrowthCSV {
    static func render(_ report: Growth.Report) -> String {
        var out = "version,time,fileBytes,liveBytes,freeBytes,heldByPinsBytes,pagesWritten,commitsSincePrevious\n"
        for p in report.points {
            out += "\(p.version),\(p.time),\(p.fileBytes),\(p.liveBytes),\(p.freeBytes),\(p.heldByPinsBytes),\(p.pagesWritten),\(p.commitsSincePrevious)\n"
        }
        return out
    }
}
