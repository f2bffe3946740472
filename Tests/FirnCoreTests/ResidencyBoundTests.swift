@testable import FirnCore
import FirnTestSupport
import Foundation
import Testing

/// A whole-file walk keeps a bounded part of the file resident
/// (`Mapping.touchedPage`): what the map holds resident after touching
/// every page of a file far larger than the budget stays near the budget.
@Suite struct ResidencyBoundTests {
    /// Resident bytes of the mapping that starts at `base` (/proc/self/smaps):
    /// this map's pages only, whatever other tests map meanwhile.
    static func residentBytes(of base: UnsafeRawPointer) throws -> UInt64 {
        // Read to its end (a /proc file reports size 0).
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/smaps"))
        defer { try? handle.close() }
        let smaps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        let start = String(UInt(bitPattern: base), radix: 16)
        var inMapping = false
        for line in smaps.split(separator: "\n") {
            if let dash = line.firstIndex(of: "-"), line[..<dash].allSatisfy(\.isHexDigit) {
                inMapping = line[..<dash].drop { $0 == "0" } == start.drop { $0 == "0" }
            } else if inMapping, line.hasPrefix("Rss:") {
                let kib = line.split(separator: " ").dropFirst().first.flatMap { UInt64($0) } ?? 0
                return kib * 1024
            }
        }
        throw FirnError.misuse("no mapping at \(start) in /proc/self/smaps")
    }

    @Test func theProcessFileBackedResidentSetIsRead() throws {
        let resident = try #require(ProcessMemory.fileBackedResidentBytes())
        // The test binary's own code is file-backed and resident.
        #expect(resident > 1 << 20)
    }

    @Test func aWalkOverEveryPageStaysNearTheBudget() throws {
        let dir = try TemporaryDirectory(prefix: "firn-residency")
        let path = dir.file("big")
        let pageSize = 4096
        let fileBytes = 512 << 20
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        // Written, not sparse: the pages are in the page cache, as a file
        // a tool walks normally is.
        let chunk = [UInt8](repeating: 0xA5, count: 1 << 20)
        for index in 0..<(fileBytes >> 20) {
            let failed = chunk.withUnsafeBytes { SystemCall.writeAll(fd, $0, at: UInt64(index) << 20) }
            try #require(failed == nil)
        }
        let map = try Mapping(descriptor: fd, length: fileBytes, path: path)
        var sum: UInt64 = 0
        var peak: UInt64 = 0
        for page in 0..<(fileBytes / pageSize) {
            sum &+= UInt64(map.base.load(fromByteOffset: page * pageSize, as: UInt8.self))
            map.touchedPage()
            if page % 4096 == 0 { peak = max(peak, try Self.residentBytes(of: map.base)) }
        }
        peak = max(peak, try Self.residentBytes(of: map.base))
        #expect(sum == UInt64(fileBytes / pageSize) * 0xA5)
        // The budget, plus what one look's worth of touches may map (a
        // large folio of up to 2 MiB each), well under the file's 512 MiB.
        let bound = Mapping.residencyBudget + Mapping.touchesBetweenLooks * (2 << 20)
        #expect(peak <= bound, "\(peak >> 20) MiB resident, bound \(bound >> 20) MiB")
        #expect(bound < UInt64(fileBytes))
    }
}
