import Testing

@testable import DepotTrust

@Suite("App receipt dates")
struct ReceiptDateTests {
    @Test func readsTheFormsReceiptsWrite() throws {
        #expect(try ReceiptDate.milliseconds("") == nil)
        #expect(try ReceiptDate.milliseconds("1970-01-01T00:00:00Z") == 0)
        #expect(try ReceiptDate.milliseconds("2024-02-23T17:27:16Z") == 1_708_709_236_000)
        #expect(try ReceiptDate.milliseconds("2020-07-22T18:33:15+0100") == 1_595_439_195_000)
        #expect(try ReceiptDate.milliseconds("2020-07-22T18:33:15-01:30") == 1_595_448_195_000)
        #expect(try ReceiptDate.milliseconds("2024-02-29T00:00:00.25Z") == 1_709_164_800_250)
        #expect(try ReceiptDate.milliseconds("9999-12-31T23:59:59Z") == 253_402_300_799_000)
    }

    @Test(arguments: [
        "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "1969-12-31T23:59:59Z", "2024-13-01T00:00:00Z",
        "2024-01-01T24:00:00Z", "2024-01-01 00:00:00Z", "2024-01-01T00:00:00", "2024-01-01T00:00:00+2400",
        "+024-01-01T00:00:00Z", "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00.1234567890Z", "1970-01-01T00:00:00+0100",
        "2024-01-01T00:00:00Zjunk",
    ])
    func refusesOtherForms(text: String) {
        #expect(throws: ReceiptFormatError.self) { try ReceiptDate.milliseconds(text) }
    }
}
