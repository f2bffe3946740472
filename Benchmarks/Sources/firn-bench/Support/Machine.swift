#if canImport(Glibc)
import Glibc
#endif

/// Where the scratch files go and what the machine is, for the report header.
enum Machine {
    /// True when `path` lies on tmpfs/ramfs, where fsync costs nothing.
    static func isMemoryBacked(_ path: String) -> Bool {
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX))
        let full = realpath(path, &resolved) != nil ? String(cString: resolved) : path
        let type = mountEntry(of: full).type
        return type == "tmpfs" || type == "ramfs"
    }

    /// The scratch directory: `--dir`, else $TMPDIR or /tmp when on a real
    /// disk, else `.bench-scratch` under the working directory. A fresh
    /// subdirectory, removed at the end unless --keep.
    static func scratch(_ explicit: String?) -> String {
        var base: String
        if let explicit {
            base = explicit
        } else {
            base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
            if isMemoryBacked(base) {
                base = ".bench-scratch"
                log("note: \(base) is memory-backed (tmpfs); using ./.bench-scratch so fsyncs reach a disk")
            }
        }
        mkdir(base, 0o755)
        var template = Array("\(base)/firn-bench-XXXXXX".utf8CString)
        guard let p = mkdtemp(&template) else { fail("cannot create a scratch directory under \(base)") }
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX))
        return realpath(p, &resolved) != nil ? String(cString: resolved) : String(cString: p)
    }

    /// The mount (device, file system type) holding `path`, from /proc/self/mounts.
    static func mount(of path: String) -> String {
        let m = mountEntry(of: path)
        return "\(m.device) (\(m.type), mounted on \(m.point))"
    }

    static func mountEntry(of path: String) -> (point: String, device: String, type: String) {
        let text = readSmallFile("/proc/self/mounts")
        var best = (point: "", device: "?", type: "?")
        for line in text.split(separator: "\n") {
            let f = line.split(separator: " ")
            guard f.count >= 3 else { continue }
            let point = String(f[1])
            if (path == point || path.hasPrefix(point == "/" ? "/" : point + "/")) && point.count >= best.point.count {
                best = (point, String(f[0]), String(f[2]))
            }
        }
        return best
    }

    static var cpuModel: String {
        for line in readSmallFile("/proc/cpuinfo").split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") { return String(line[line.index(after: colon)...]).trimmingSpaces }
        }
        return "unknown"
    }

    static var cores: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    static var memory: String {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), size = sysconf(Int32(_SC_PAGESIZE))
        return formatBytes(Double(pages) * Double(size))
    }

    static func removeTree(_ path: String) {
        guard let d = opendir(path) else { return }
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { b in
                String(cString: b.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name == "." || name == ".." { continue }
            unlink("\(path)/\(name)")
        }
        closedir(d)
        rmdir(path)
    }
}
