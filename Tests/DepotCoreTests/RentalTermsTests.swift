import DepotCore
import Testing

/// Rent options' periods as ISO 8601 durations, read strictly, and a rental's end: the earlier of the purchase plus
/// the rental period and the first confirmed delivery plus the expiration period, with no sum that can trap.
@Suite struct RentalTermsTests {
    @Test(
        arguments: [
            ("P3D", 259_200), ("PT48H", 172_800), ("P1W", 604_800), ("P1DT12H", 129_600), ("PT90M", 5_400), ("PT1S", 1),
            ("P1W2DT3H4M5S", 788_645), ("P3650D", 315_360_000), ("PT0H1S", 1),
        ] as [(String, Int64)])
    func durationsAreRead(text: String, seconds: Int64) {
        #expect(ISODuration.seconds(text) == .success(seconds))
    }

    @Test(
        arguments: [
            ("", ISODuration.Refusal.malformed), ("P", .malformed), ("PT", .malformed), ("P1DT", .malformed), ("3D", .malformed),
            ("p3d", .malformed), ("P3", .malformed), ("P-3D", .malformed), ("P+3D", .malformed), ("P1.5D", .malformed),
            ("P1,5D", .malformed), ("P3H", .malformed), ("PT3D", .malformed), ("P1D1W", .malformed), ("P1D1D", .malformed),
            ("PT1S1M", .malformed), ("PTT1H", .malformed), (" P3D", .malformed), ("P3D ", .malformed), ("P１D", .malformed),
            ("P1Y", .calendarUnit), ("P1M", .calendarUnit), ("P0D", .outOfRange), ("PT0S", .outOfRange),
            ("P3651D", .outOfRange), ("P522W", .outOfRange), ("PT315360001S", .outOfRange),
            ("P99999999999999999999999D", .outOfRange), ("PT9223372036854775807S", .outOfRange),
            (String(repeating: "P1D", count: 30), .malformed),
        ] as [(String, ISODuration.Refusal)])
    func durationsAreRefused(text: String, refusal: ISODuration.Refusal) {
        #expect(ISODuration.seconds(text) == .failure(refusal))
    }

    @Test func theRentalEndsAtTheEarlierBound() {
        let terms = RentalTerms(rentalPeriod: 3 * 86_400, expirationPeriod: 48 * 3_600)
        let bought: Int64 = 1_000_000_000_999  // milliseconds: the second 1_000_000_000, rounded down
        #expect(terms.endsAt(purchaseDate: bought, startedAt: nil) == 1_000_000_000 + 259_200)
        // Delivered an hour after the purchase: 48 hours from then, before the 3 days are out.
        #expect(terms.endsAt(purchaseDate: bought, startedAt: 1_000_003_600) == 1_000_003_600 + 172_800)
        // Delivered two days after the purchase: the 3 days end first.
        #expect(terms.endsAt(purchaseDate: bought, startedAt: 1_000_172_800) == 1_000_000_000 + 259_200)
        // A purchase before 1970 rounds down too.
        #expect(terms.endsAt(purchaseDate: -1, startedAt: nil) == -1 + 259_200)
    }

    /// A grant issued before the first delivery lasts no longer than the expiration period from its issue, so it
    /// cannot outlive the rental whenever the delivery comes; after it, no longer than the rental's end.
    @Test func grantsNeverOutliveTheRental() {
        let terms = RentalTerms(rentalPeriod: 3 * 86_400, expirationPeriod: 3_600)
        #expect(terms.grantBound(purchaseDate: 0, startedAt: nil, now: 100) == 3_700)
        #expect(terms.grantBound(purchaseDate: 0, startedAt: 200, now: 300) == 3_800)
        #expect(terms.grantBound(purchaseDate: 0, startedAt: nil, now: 259_000) == 259_200)
        for issued in stride(from: Int64(0), through: 259_200, by: 1_800) {
            let bound = terms.grantBound(purchaseDate: 0, startedAt: nil, now: issued)
            for started in stride(from: issued, through: 259_200, by: 900) {
                #expect(bound <= terms.endsAt(purchaseDate: 0, startedAt: started))
            }
        }
    }

    @Test func extremeTimesHoldAtInt64sBounds() {
        let terms = RentalTerms(rentalPeriod: ISODuration.maximumSeconds, expirationPeriod: ISODuration.maximumSeconds)
        #expect(terms.endsAt(purchaseDate: .max, startedAt: nil) == Int64.max / 1000 + ISODuration.maximumSeconds)
        #expect(terms.endsAt(purchaseDate: 0, startedAt: .max) == ISODuration.maximumSeconds)
        #expect(terms.endsAt(purchaseDate: .min, startedAt: nil) == Int64.min / 1000 - 1 + ISODuration.maximumSeconds)
        #expect(terms.endsAt(purchaseDate: .min, startedAt: .min) == Int64.min + ISODuration.maximumSeconds)
        #expect(terms.grantBound(purchaseDate: 0, startedAt: nil, now: .max) == ISODuration.maximumSeconds)
        let huge = RentalTerms(rentalPeriod: .max, expirationPeriod: .max)
        #expect(huge.endsAt(purchaseDate: .max, startedAt: .max) == .max)
        #expect(huge.grantBound(purchaseDate: .max, startedAt: nil, now: .max) == .max)
    }
}
