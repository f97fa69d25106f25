import Crypto
import Foundation

extension AppReceipt {
    /// The device hash Apple's Receipt Validation Programming Guide describes: SHA-1 over the device's
    /// `identifierForVendor` (its 16 bytes), the opaque value (attribute 4) and the DER of the bundle id's
    /// UTF8String (attribute 2, tag and length included), in that order.
    package static func deviceHash(deviceId: UUID, opaqueValue: [UInt8], bundleIdDER: [UInt8]) -> [UInt8] {
        var hasher = Insecure.SHA1()
        withUnsafeBytes(of: deviceId.uuid) { hasher.update(bufferPointer: $0) }
        hasher.update(data: opaqueValue)
        hasher.update(data: bundleIdDER)
        return Array(hasher.finalize())
    }

    /// Whether the receipt was issued to the device whose `identifierForVendor` is `deviceId`: its hash
    /// (attribute 5) is ``deviceHash(deviceId:opaqueValue:bundleIdDER:)`` of it. A receipt without an opaque value
    /// or a 20-byte hash matches no device.
    package func isIssued(toDevice deviceId: UUID) -> Bool {
        guard !opaqueValue.isEmpty, !bundleIdDER.isEmpty, sha1Hash.count == Insecure.SHA1.byteCount else { return false }
        let expected = Self.deviceHash(deviceId: deviceId, opaqueValue: opaqueValue, bundleIdDER: bundleIdDER)
        // Every byte is compared, whatever the first difference.
        return zip(expected, sha1Hash).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
