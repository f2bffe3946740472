import Foundation
import Testing
import FirnTestSupport
@testable import Firn

/// `Decimal` properties as an app uses them (Realm's `Decimal128`): exact
/// round trips over Foundation's range, queries and sorts by value, and the
/// toolkit reading them from the file alone.
@Suite struct DecimalTests {
    final class Invoice: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var total = Decimal(0)
        @Persisted var discount: Decimal?
        @Persisted var lines = List<Decimal>()
    }

    static let values: [Decimal] = [
        Decimal(string: "0.1")!, Decimal(string: "-1234.5678")!, Decimal(string: "340282366920938463463374607431768211455")!,
        Decimal(string: "1e127")!, Decimal(string: "1e-127")!, 0, Decimal(string: "19.99")!, .nan,
    ]

    static func invoice(_ id: Int, _ total: Decimal, _ discount: Decimal? = nil) -> Invoice {
        let invoice = Invoice()
        invoice.id = id
        invoice.total = total
        invoice.discount = discount
        return invoice
    }

    @Test func decimalsRoundTripExactly() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Invoice.self]))
        try db.write {
            for (id, value) in Self.values.enumerated() { try db.add(Self.invoice(id, value, id == 1 ? value : nil)) }
            try db.object(ofType: Invoice.self, forPrimaryKey: 0)?.lines.append(contentsOf: Self.values)
        }
        let read = db.objects(Invoice.self).map(\.total)
        #expect(zip(read, Self.values).allSatisfy { $0 == $1 || ($0.isNaN && $1.isNaN) }, "\(read)")
        #expect(try db.object(ofType: Invoice.self, forPrimaryKey: 1)?.discount == Decimal(string: "-1234.5678"))
        #expect(try db.object(ofType: Invoice.self, forPrimaryKey: 2)?.discount == nil)
        let lines = try #require(try db.object(ofType: Invoice.self, forPrimaryKey: 0)).lines
        #expect(lines.count == Self.values.count && lines[6] == Decimal(string: "19.99"))
    }

    @Test func queriesAndSortsCompareValuesNotDigits() throws {
        let scratch = Scratch()
        let db = try Database(configuration: scratch.configuration([Invoice.self]))
        try db.write {
            try db.add(Self.invoice(1, Decimal(string: "10.50")!))
            try db.add(Self.invoice(2, Decimal(string: "9.999")!))
            try db.add(Self.invoice(3, Decimal(string: "-3")!, 1))
            try db.add(Self.invoice(4, Decimal(string: "10.5")!))
        }
        let invoices = db.objects(Invoice.self)
        #expect(try invoices.where { $0.total == Decimal(string: "10.5")! }.map(\.id) == [1, 4])
        #expect(try invoices.where { $0.total > Decimal(string: "9.999")! }.map(\.id) == [1, 4])
        #expect(try invoices.where { (Decimal(-5)...Decimal(10)).contains($0.total) }.map(\.id) == [2, 3])
        #expect(try invoices.where { $0.discount != nil }.map(\.id) == [3])
        #expect(try invoices.sorted(by: \.total).map(\.id) == [3, 2, 1, 4])
        #expect(try invoices.distinct(by: [\.total]).count == 3)
        #expect(try invoices.max(of: \.total) == Decimal(string: "10.5") && invoices.min(of: \.total) == -3)
        #expect(try invoices.max(of: \.discount) == 1)
        #expect(invoices.first?.description.contains("\ttotal = 10.5;\n") == true)
    }

    @Test func theToolkitDumpsAndVerifiesDecimalsFromTheFileAlone() throws {
        let scratch = Scratch()
        do {
            let db = try Database(configuration: scratch.configuration([Invoice.self]))
            try db.write {
                let invoice = Self.invoice(1, Decimal(string: "-0.25")!)
                try invoice.lines.append(contentsOf: [Decimal(string: "1e20")!, .nan])
                try db.add(invoice)
            }
        }
        let dump = try FirnCommand.run(["dump", scratch.file, "--objects"])
        #expect(dump.status == 0 && dump.output.contains("total: -0.25") && dump.output.contains("lines: [100000000000000000000, NaN]"),
                "\(dump.output)")
        let json = try FirnCommand.run(["dump", scratch.file, "--objects", "--json"])
        #expect(json.status == 0 && json.output.contains("\"total\":\"-0.25\""), "\(json.output)")
        let verify = try FirnCommand.run(["verify", scratch.file])
        #expect(verify.status == 0, "\(verify.output)")
    }
}
