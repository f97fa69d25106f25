import SwiftASN1

extension AppReceipt {
    /// Reads the payload: `SET OF SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`, each value the
    /// DER of a UTF8String, IA5String or INTEGER (or raw bytes for the opaque value and the hash). Attributes of
    /// unknown types are skipped; a known one given twice, a missing required one, or a bound broken fails.
    init(payload: [UInt8]) throws(ReceiptFormatError) {
        let attributes = try ReceiptAttribute.set(payload[...], where: "the payload")
        let fields = ReceiptFields(attributes)
        receiptType = try fields.string(0, required: true) ?? ""
        bundleIdDER = try fields.raw(2) ?? []
        bundleId = try fields.string(2, required: true) ?? ""
        appVersion = try fields.string(3, required: true) ?? ""
        opaqueValue = try fields.raw(4, maximumLength: AppReceiptLimits.maximumDeviceFieldLength) ?? []
        sha1Hash = try fields.raw(5, maximumLength: AppReceiptLimits.maximumDeviceFieldLength) ?? []
        guard let creation = try fields.date(12) else { throw ReceiptFormatError("has no creation date (attribute 12)") }
        creationDate = creation
        originalAppVersion = try fields.string(19, required: false)
        expirationDate = try fields.date(21)
        var records: [InAppPurchase] = []
        for attribute in attributes where attribute.type == 17 {
            guard records.count < AppReceiptLimits.maximumInAppPurchases else {
                throw ReceiptFormatError("holds more than \(AppReceiptLimits.maximumInAppPurchases) in-app purchases")
            }
            records.append(try InAppPurchase(record: attribute.value))
        }
        inAppPurchases = records
        guard !bundleId.isEmpty, !receiptType.isEmpty else { throw ReceiptFormatError("has an empty bundle id or type") }
    }
}

extension AppReceipt.InAppPurchase {
    /// Reads one in-app purchase record: the nested attribute set of attribute 17.
    init(record: ArraySlice<UInt8>) throws(ReceiptFormatError) {
        let fields = ReceiptFields(try ReceiptAttribute.set(record, where: "an in-app purchase"))
        let quantity = try fields.integer(1701) ?? 1
        guard (1...1_000_000).contains(quantity) else { throw ReceiptFormatError("an in-app purchase's quantity is out of range") }
        self.quantity = Int(quantity)
        productId = try fields.string(1702, required: true) ?? ""
        transactionId = try fields.string(1703, required: true) ?? ""
        originalTransactionId = try fields.string(1705, required: false) ?? transactionId
        guard let purchase = try fields.date(1704) else { throw ReceiptFormatError("an in-app purchase has no purchase date") }
        purchaseDate = purchase
        originalPurchaseDate = try fields.date(1706)
        expiresDate = try fields.date(1708)
        cancellationDate = try fields.date(1712)
        // 1720 as community parsers name it; never refused for its shape, as Apple does not document its encoding.
        cancellationReason = (try? fields.integer(1720)).flatMap { Int(exactly: $0) }
        let webOrder = try fields.integer(1711)
        webOrderLineItemId = webOrder == 0 ? nil : webOrder
        productType = (try? fields.integer(1707)).flatMap { Int(exactly: $0) }
        guard !productId.isEmpty, !transactionId.isEmpty, !originalTransactionId.isEmpty else {
            throw ReceiptFormatError("an in-app purchase has an empty product or transaction id")
        }
    }
}

/// One `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
struct ReceiptAttribute {
    /// The attribute type.
    let type: Int64
    /// The value's bytes.
    let value: ArraySlice<UInt8>

    /// The attributes of a DER or BER `SET OF ReceiptAttribute`, at most ``AppReceiptLimits/maximumAttributes``
    /// of one type other than in-app purchases, and at most ``AppReceiptLimits/maximumInAppPurchases`` of those.
    static func set(_ bytes: ArraySlice<UInt8>, where place: String) throws(ReceiptFormatError) -> [ReceiptAttribute] {
        do {
            let root = try BER.parse(bytes)
            return try BER.set(root, identifier: .set) { nodes in
                var attributes: [ReceiptAttribute] = []
                var others = 0
                while let node = nodes.next() {
                    let attribute = try BER.sequence(node, identifier: .sequence) { parts in
                        let type = try Int64(berEncoded: &parts)
                        _ = try Int64(berEncoded: &parts)
                        let value = try ASN1OctetString(berEncoded: &parts)
                        return ReceiptAttribute(type: type, value: value.bytes)
                    }
                    if attribute.type != 17 {
                        others += 1
                        guard others <= AppReceiptLimits.maximumAttributes else {
                            throw ReceiptFormatError("\(place) has more than \(AppReceiptLimits.maximumAttributes) attributes")
                        }
                    } else if attributes.count >= AppReceiptLimits.maximumInAppPurchases + AppReceiptLimits.maximumAttributes {
                        throw ReceiptFormatError("holds more than \(AppReceiptLimits.maximumInAppPurchases) in-app purchases")
                    }
                    attributes.append(attribute)
                }
                return attributes
            }
        } catch let error as ReceiptFormatError {
            throw error
        } catch {
            throw ReceiptFormatError("\(place) is not a set of receipt attributes")
        }
    }
}

/// The attributes of one level, read by type: each known type at most once.
struct ReceiptFields {
    private var byType: [Int64: [ArraySlice<UInt8>]] = [:]

    init(_ attributes: [ReceiptAttribute]) {
        for attribute in attributes where attribute.type != 17 { byType[attribute.type, default: []].append(attribute.value) }
    }

    /// The one value of `type`, nil when absent; given twice or longer than `maximumLength` bytes fails.
    func raw(
        _ type: Int64, maximumLength: Int = AppReceiptLimits.maximumStringLength
    ) throws(ReceiptFormatError) -> [UInt8]? {
        guard let values = byType[type] else { return nil }
        guard values.count == 1 else { throw ReceiptFormatError("attribute \(type) is given \(values.count) times") }
        guard values[0].count <= maximumLength else {
            throw ReceiptFormatError("attribute \(type) is longer than \(maximumLength) bytes")
        }
        return Array(values[0])
    }

    /// A UTF8String (or IA5String) value; absent and `required` fails.
    func string(_ type: Int64, required: Bool) throws(ReceiptFormatError) -> String? {
        guard let bytes = try raw(type) else {
            if required { throw ReceiptFormatError("has no attribute \(type)") }
            return nil
        }
        do {
            let node = try BER.parse(bytes)
            let content: ArraySlice<UInt8>
            switch node.identifier {
            case .utf8String: content = try ASN1UTF8String(berEncoded: node).bytes
            case .ia5String: content = try ASN1IA5String(berEncoded: node).bytes
            default: throw ReceiptFormatError("attribute \(type) is not a string")
            }
            guard let text = String(validatingUTF8Bytes: content) else {
                throw ReceiptFormatError("attribute \(type) is not UTF-8")
            }
            return text
        } catch let error as ReceiptFormatError {
            throw error
        } catch {
            throw ReceiptFormatError("attribute \(type) is not a string")
        }
    }

    /// A date value (an IA5String, empty for none).
    func date(_ type: Int64) throws(ReceiptFormatError) -> Int64? {
        guard let text = try string(type, required: false) else { return nil }
        do throws(ReceiptFormatError) {
            return try ReceiptDate.milliseconds(text)
        } catch {
            throw ReceiptFormatError("attribute \(type): \(error.reason)")
        }
    }

    /// An INTEGER value that fits in 64 bits.
    func integer(_ type: Int64) throws(ReceiptFormatError) -> Int64? {
        guard let bytes = try raw(type) else { return nil }
        do {
            return try Int64(berEncoded: try BER.parse(bytes))
        } catch {
            throw ReceiptFormatError("attribute \(type) is not an integer of at most 64 bits")
        }
    }
}

extension String {
    /// `bytes` as a string when they are valid UTF-8 without NUL; nil otherwise.
    init?(validatingUTF8Bytes bytes: ArraySlice<UInt8>) {
        guard !bytes.contains(0) else { return nil }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var scalars = String.UnicodeScalarView()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: break loop
            case .error: return nil
            }
        }
        self = String(scalars)
    }
}
