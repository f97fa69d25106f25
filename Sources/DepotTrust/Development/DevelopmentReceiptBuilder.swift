import Foundation
import SwiftASN1

/// Builds the payload of a development app receipt holding one in-app purchase, shaped like Apple's: the
/// attribute set with the receipt type, bundle id, app version, opaque value, hash, creation date and the
/// in-app record. Sign it with ``DevelopmentReceiptAuthority/sign(payload:)``.
///
/// Defaults: a random 16-digit transaction id, the original transaction id equal to it, purchase and creation
/// now, quantity 1, type `ProductionSandbox`; an auto-renewable subscription (``autoRenewable``) gets a 30-day
/// expiry and a web order line item id.
package struct DevelopmentReceiptBuilder: Sendable {
    /// The app's bundle id.
    package var bundleId: String
    /// The product bought.
    package var productId: String
    /// The transaction's id.
    package var transactionId: String
    /// Defaults to ``transactionId``.
    package var originalTransactionId: String?
    /// Milliseconds since 1970, whole seconds (receipt dates have no fraction).
    package var purchaseDate: Int64
    /// When the receipt was made; milliseconds since 1970.
    package var creationDate: Int64
    /// A subscription's end; milliseconds since 1970.
    package var expiresDate: Int64?
    /// When the purchase was refunded; milliseconds since 1970.
    package var cancellationDate: Int64?
    /// How many were bought.
    package var quantity = 1
    /// Attribute 0: `Production`, `ProductionSandbox` or `Xcode`.
    package var receiptType = "ProductionSandbox"
    /// The product type written as attribute 1707 (0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable).
    package var productType: Int
    /// The device (`identifierForVendor`) the receipt is issued to: its hash (attribute 5) is that of this id, the
    /// opaque value and the bundle id, as Apple's is; nil writes 20 random bytes, which match no device.
    package var deviceId: UUID?
    /// Attribute 4, 16 random bytes as Apple writes.
    package var opaqueValue: [UInt8] = (0..<16).map { _ in UInt8.random(in: 0 ... .max) }

    /// A purchase of `productId` (a Depot product type: `consumable`, `nonConsumable`, `autoRenewable`,
    /// `nonRenewing`, `freeSubscription`) made `now`.
    package init(bundleId: String, productId: String, type: String, now: Date = Date()) {
        self.bundleId = bundleId
        self.productId = productId
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        self.purchaseDate = seconds * 1000
        self.creationDate = seconds * 1000
        self.transactionId = "2" + String(UInt64.random(in: 100_000_000_000_000..<1_000_000_000_000_000))
        switch type {
        case "consumable": productType = 1
        case "nonRenewing": productType = 2
        case "autoRenewable":
            productType = 3
            expiresDate = (seconds + 30 * 86_400) * 1000
        default: productType = 0
        }
    }

    /// The DER of the receipt's attribute set.
    package func payload() throws -> [UInt8] {
        let record: [Attribute] = [
            .integer(1701, Int64(quantity)), .utf8(1702, productId), .utf8(1703, transactionId),
            .date(1704, purchaseDate), .utf8(1705, originalTransactionId ?? transactionId), .date(1706, purchaseDate),
            .integer(1707, Int64(productType)), .date(1708, expiresDate), .date(1712, cancellationDate),
            .integer(1711, productType == 3 ? Int64(transactionId.dropFirst(4)) ?? 0 : 0),
        ]
        var recordSerializer = DER.Serializer()
        try recordSerializer.serializeSetOf(try record.map { try $0.encoded() })
        var bundleSerializer = DER.Serializer()
        try bundleSerializer.serialize(ASN1UTF8String(bundleId))
        let bundleIdDER = bundleSerializer.serializedBytes
        let hash =
            deviceId.map { AppReceipt.deviceHash(deviceId: $0, opaqueValue: opaqueValue, bundleIdDER: bundleIdDER) }
            ?? (0..<20).map { _ in UInt8.random(in: 0 ... .max) }
        let receipt: [Attribute] = [
            .utf8(0, receiptType), .raw(2, bundleIdDER), .utf8(3, "1"), .raw(4, opaqueValue), .raw(5, hash),
            .date(12, creationDate), .utf8(19, "1.0"), .raw(17, recordSerializer.serializedBytes),
        ]
        var serializer = DER.Serializer()
        try serializer.serializeSetOf(try receipt.map { try $0.encoded() })
        return serializer.serializedBytes
    }

    /// One attribute to write.
    private enum Attribute {
        case utf8(Int64, String)
        case integer(Int64, Int64)
        case date(Int64, Int64?)
        case raw(Int64, [UInt8])

        func encoded() throws -> EncodedAttribute {
            var value = DER.Serializer()
            let type: Int64
            switch self {
            case .utf8(let number, let text):
                type = number
                try value.serialize(ASN1UTF8String(text))
            case .integer(let number, let integer):
                type = number
                try value.serialize(integer)
            case .date(let number, let milliseconds):
                type = number
                try value.serialize(ASN1IA5String(milliseconds.map(Self.format) ?? ""))
            case .raw(let number, let bytes):
                type = number
                value.serializeRawBytes(bytes)
            }
            return EncodedAttribute(type: type, value: value.serializedBytes)
        }

        /// `YYYY-MM-DDTHH:MM:SSZ`.
        static func format(_ milliseconds: Int64) -> String {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            formatter.timeZone = TimeZone(identifier: "UTC")
            return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds / 1000)))
        }
    }

    /// `SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
    private struct EncodedAttribute: DERSerializable {
        var type: Int64
        var value: [UInt8]

        func serialize(into coder: inout DER.Serializer) throws {
            try coder.appendConstructedNode(identifier: .sequence) { sequence in
                try sequence.serialize(type)
                try sequence.serialize(1)
                try sequence.serialize(ASN1OctetString(contentBytes: value[...]))
            }
        }
    }
}
