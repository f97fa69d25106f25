import DepotCore
import Testing

/// The delivery rule, table-driven: judged against what redeems offered.
@Suite struct DeliveryConfirmationTests {
    typealias Offer = DeliveryConfirmation.Offer
    typealias Claim = DeliveryConfirmation.Claim

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var offered: [Offer]
        var claims: [Claim]
        var requiresDelivery = false
        var verdict: DeliveryConfirmation.Verdict
        var testDescription: String { name }
    }

    /// A distinct digest per name: the name's bytes, padded with zeros to 32.
    static func d(_ name: String) -> BundleDigest {
        BundleDigest(bytes: Array(name.utf8) + Array(repeating: 0, count: 32 - name.utf8.count))!
    }

    static let a10 = Offer(contentId: "a", version: "1.0", digest: d("a10"))
    static let a11 = Offer(contentId: "a", version: "1.1", digest: d("a11"))
    static let a11Delta = Offer(contentId: "a", version: "1.1", digest: d("a10to11"))
    static let b10 = Offer(contentId: "b", version: "1.0", digest: d("b10"))

    static let cases: [Case] = [
        Case(name: "nothing offered, nothing required", offered: [], claims: [], verdict: .complete([])),
        Case(name: "nothing offered to a consumable", offered: [], claims: [], requiresDelivery: true, verdict: .nothingOffered),
        Case(
            name: "nothing offered, a consumable claiming something", offered: [],
            claims: [Claim(contentId: "a", digest: d("a10"))], requiresDelivery: true, verdict: .nothingOffered),
        Case(
            name: "offered something, confirmed nothing", offered: [a10], claims: [],
            verdict: .incomplete(missing: ["a"], wrongDigest: [])),
        Case(name: "the one offer confirmed", offered: [a10], claims: [Claim(contentId: "a", digest: d("a10"))], verdict: .complete([a10])),
        Case(
            name: "an earlier redeem's version still confirms after a newer one was offered", offered: [a10, a11],
            claims: [Claim(contentId: "a", digest: d("a10"))], verdict: .complete([a10])),
        Case(
            name: "an offered delta confirms", offered: [a10, a11Delta],
            claims: [Claim(contentId: "a", digest: d("a10to11"))], verdict: .complete([a11Delta])),
        Case(
            name: "a digest never offered for the content does not confirm it", offered: [a11Delta],
            claims: [Claim(contentId: "a", digest: d("a11"))], verdict: .incomplete(missing: [], wrongDigest: ["a"])),
        Case(
            name: "another content's digest does not confirm", offered: [a10, b10],
            claims: [Claim(contentId: "a", digest: d("b10")), Claim(contentId: "b", digest: d("b10"))],
            verdict: .incomplete(missing: [], wrongDigest: ["a"])),
        Case(
            name: "every offered content must be confirmed", offered: [b10, a10],
            claims: [Claim(contentId: "b", digest: d("b10"))], verdict: .incomplete(missing: ["a"], wrongDigest: [])),
        Case(
            name: "claims of contents never offered are ignored", offered: [a10],
            claims: [Claim(contentId: "a", digest: d("a10")), Claim(contentId: "z", digest: d("zz"))], verdict: .complete([a10])),
        Case(
            name: "one right digest among several claims is enough", offered: [a10],
            claims: [Claim(contentId: "a", digest: d("old")), Claim(contentId: "a", digest: d("a10"))], verdict: .complete([a10])),
        Case(
            name: "digests are compared exactly", offered: [a10], claims: [Claim(contentId: "a", digest: d("a10\u{1}"))],
            verdict: .incomplete(missing: [], wrongDigest: ["a"])),
        Case(
            name: "several contents, sorted, repeated offers once", offered: [b10, a10, b10, a10],
            claims: [Claim(contentId: "b", digest: d("b10")), Claim(contentId: "a", digest: d("a10"))], requiresDelivery: true,
            verdict: .complete([a10, b10])),
    ]

    @Test(arguments: cases)
    func judge(_ c: Case) {
        #expect(DeliveryConfirmation.judge(offered: c.offered, claims: c.claims, requiresDelivery: c.requiresDelivery) == c.verdict)
    }
}
