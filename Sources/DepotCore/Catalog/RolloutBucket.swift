/// Where a buyer falls in a version's rollout: one of 10,000 buckets from a stable hash of the content, the version
/// and the buyer. The same buyer lands in the same bucket on every device, every instance and every retry; a
/// rollout to p% takes the buckets below p × 100, so raising it keeps everyone it already took. Each version draws
/// its own buyers, so the first tenth of one rollout is not always the first tenth of the next.
///
/// The hash is 64-bit FNV-1a over the UTF-8 of the three parts (each followed by a 0 byte), finished with the
/// SplitMix64 mixer so that buyers whose names differ in one character spread over every bucket. It is not a
/// secret: a buyer could predict a bucket, which only tells them whether they see a version early.
public enum RolloutBucket {
    /// The number of buckets: a percent is 100 of them.
    public static let count: UInt64 = 10_000

    /// The bucket, 0 ..< 10,000, of `buyer` in the rollout of `version` of `contentId`.
    public static func bucket(contentId: String, version: String, buyer: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in [contentId, version, buyer] {
            for byte in part.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
            hash = hash &* 0x0000_0100_0000_01b3
        }
        hash ^= hash >> 30
        hash = hash &* 0xbf58_476d_1ce4_e5b9
        hash ^= hash >> 27
        hash = hash &* 0x94d0_49bb_1331_11eb
        hash ^= hash >> 31
        return Int(hash % count)
    }

    /// Whether `buyer` is among the `percent` (0 to 100) of buyers the rollout of `version` of `contentId` reaches.
    public static func isWithin(percent: Int, contentId: String, version: String, buyer: String) -> Bool {
        bucket(contentId: contentId, version: version, buyer: buyer) < min(max(percent, 0), 100) * 100
    }
}
