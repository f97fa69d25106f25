import Crypto
import Foundation

/// The app's own account name turned into the opaque identifiers StoreKit carries: never the name
/// itself, always the same for the same name.
public enum AccountIdentity {
    /// The `applicationUsername` the StoreKit guide describes: the SHA-256 of `accountName` (UTF-8) as
    /// lowercase hex, with a dash after every four bytes (eight hex digits).
    public static func applicationUsername(_ accountName: String) -> String {
        let digest = Array(SHA256.hash(data: Data(accountName.utf8)))
        var text = ""
        for (index, byte) in digest.enumerated() {
            if index > 0 && index % 4 == 0 { text += "-" }
            text += hexDigits[Int(byte >> 4)] + hexDigits[Int(byte & 0x0F)]
        }
        return text
    }

    /// The same hash in the UUID form StoreKit's `appAccountToken` takes: the first 16 bytes of the SHA-256,
    /// marked as an RFC 9562 version 8 (custom) UUID, so that the value is a well-formed UUID.
    public static func appAccountToken(_ accountName: String) -> UUID {
        var bytes = Array(SHA256.hash(data: Data(accountName.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // variant 10
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    private static let hexDigits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
}
