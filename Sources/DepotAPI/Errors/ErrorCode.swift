/// Every error code Depot answers with, and the HTTP status each is answered with: the one table that error
/// answers are rendered from. `docs/openapi.yaml` carries the same table (`x-error-codes`); a test keeps the
/// two equal both ways.
///
/// Codes are stable: clients and scripts branch on them. A code is added here with its status and meaning,
/// never reused for another meaning.
public enum ErrorCode: String, CaseIterable, Sendable {
    // Requests in general.
    case badRequest = "bad-request"
    case notFound = "not-found"
    case methodNotAllowed = "method-not-allowed"
    case requestTimeout = "request-timeout"
    case tooLarge = "too-large"
    case uriTooLong = "uri-too-long"
    case headerFieldsTooLarge = "header-fields-too-large"
    case preconditionFailed = "precondition-failed"
    case rangeNotSatisfiable = "range-not-satisfiable"
    case invalidCursor = "invalid-cursor"
    case `internal` = "internal"
    case unavailable = "unavailable"
    case ledgerUnavailable = "ledger-unavailable"
    case bundleUnavailable = "bundle-unavailable"
    case tooManyConnections = "too-many-connections"
    case tooManyConnectionsFromAddress = "too-many-connections-from-address"

    // Grants and the byte path.
    case grantRequired = "grant-required"
    case grantMalformed = "grant-malformed"
    case grantUnknownKey = "grant-unknown-key"
    case grantBadSignature = "grant-bad-signature"
    case grantExpired = "grant-expired"
    case grantWrongBundle = "grant-wrong-bundle"
    case grantBadKey = "grant-bad-key"
    case grantRevoked = "grant-revoked"
    case edgeSecretRefused = "edge-secret-refused"
    case notABundle = "not-a-bundle"

    // Signed App Store data.
    case configurationInvalid = "configuration-invalid"
    case jwsMalformed = "jws-malformed"
    case jwsUnsupportedAlgorithm = "jws-unsupported-algorithm"
    case x5cMissing = "x5c-missing"
    case x5cWrongCount = "x5c-wrong-count"
    case certificateMalformed = "certificate-malformed"
    case chainUntrusted = "chain-untrusted"
    case certificateExpired = "certificate-expired"
    case leafOIDMissing = "leaf-oid-missing"
    case intermediateOIDMissing = "intermediate-oid-missing"
    case signatureInvalid = "signature-invalid"
    case payloadMalformed = "payload-malformed"
    case payloadInconsistent = "payload-inconsistent"
    case signedInFuture = "signed-in-future"
    case bundleIdMismatch = "bundle-id-mismatch"
    case environmentNotAccepted = "environment-not-accepted"
    case storeNotConfigured = "store-not-configured"
    case receiptMalformed = "receipt-malformed"
    case receiptUnsupportedAlgorithm = "receipt-unsupported-algorithm"
    case transactionNotInReceipt = "transaction-not-in-receipt"
    case receiptDeviceMismatch = "receipt-device-mismatch"
    case receiptDeviceRequired = "receipt-device-required"
    case invalidDeviceId = "invalid-device-id"
    case transactionNotAtStore = "transaction-not-at-store"
    case storeUnavailable = "store-unavailable"
    case purchaseDataMalformed = "purchase-data-malformed"
    case signatureMalformed = "signature-malformed"
    case purchasePending = "purchase-pending"
    case purchaseNotCompleted = "purchase-not-completed"
    case familySharingNotAllowed = "family-sharing-not-allowed"

    // Transactions.
    case invalidAccountToken = "invalid-account-token"
    case finishTokenRequired = "finish-token-required"
    case unknownTransaction = "unknown-transaction"
    case unknownProduct = "unknown-product"
    case revoked = "revoked"
    case rentalExpired = "rental-expired"
    case consumableFinished = "consumable-finished"
    case transactionConflict = "transaction-conflict"
    case deliveryMismatch = "delivery-mismatch"
    case nothingDelivered = "nothing-delivered"
    case tooManyTransactions = "too-many-transactions"
    case restoreRateLimited = "restore-rate-limited"
    case irregularActivity = "irregular-activity"
    case accountAssertionInvalid = "account-assertion-invalid"
    case accountRestoreNotConfigured = "account-restore-not-configured"

    // Operators.
    case adminTokenRequired = "admin-token-required"
    case adminTokenRefused = "admin-token-refused"
    case metricsTokenRequired = "metrics-token-required"
    case metricsTokenRefused = "metrics-token-refused"
    case notificationTokenRequired = "notification-token-required"
    case notificationTokenRefused = "notification-token-refused"

    // Publishers: keys, products and versions.
    case publisherKeyRequired = "publisher-key-required"
    case publisherKeyUnknown = "publisher-key-unknown"
    case publisherKeyRevoked = "publisher-key-revoked"
    case productOutOfScope = "product-out-of-scope"
    case contentOutOfScope = "content-out-of-scope"
    case invalidProductId = "invalid-product-id"
    case invalidType = "invalid-type"
    case invalidTitle = "invalid-title"
    case invalidPeriod = "invalid-period"
    case productTypeLocked = "product-type-locked"
    case invalidVersion = "invalid-version"
    case invalidContentId = "invalid-content-id"
    case invalidUploadId = "invalid-upload-id"
    case invalidSHA256 = "invalid-sha256"
    case invalidPublishedAt = "invalid-published-at"
    case unknownVersion = "unknown-version"
    case unknownUpload = "unknown-upload"
    case ambiguousVersion = "ambiguous-version"
    case versionFailed = "version-failed"
    case invalidRelease = "invalid-release"
    case rolloutWithoutCurrent = "rollout-without-current"
    case rolloutNotNewer = "rollout-not-newer"
    case rolloutShrinks = "rollout-shrinks"
    case notRollingOut = "not-rolling-out"
    case versionNotBeta = "version-not-beta"
    case versionWasPublished = "version-was-published"
    case versionInProgress = "version-in-progress"
    case uploadIncomplete = "upload-incomplete"
    case invalidPack = "invalid-pack"
    case packMismatch = "pack-mismatch"
    case versionExists = "version-exists"
    case contentOwnedByOtherProduct = "content-owned-by-other-product"

    // tus uploads.
    case uploadHeaderInvalid = "upload-header-invalid"
    case uploadMetadataInvalid = "upload-metadata-invalid"
    case uploadChecksumUnsupported = "upload-checksum-unsupported"
    case uploadNotFound = "upload-not-found"
    case uploadOffsetMismatch = "upload-offset-mismatch"
    case uploadComplete = "upload-complete"
    case uploadExpired = "upload-expired"
    case tusVersionUnsupported = "tus-version-unsupported"
    case uploadTooLarge = "upload-too-large"
    case uploadCountQuotaExceeded = "upload-count-quota-exceeded"
    case uploadBytesQuotaExceeded = "upload-bytes-quota-exceeded"
    case uploadMediaType = "upload-media-type"
    case uploadLocked = "upload-locked"
    case uploadChecksumMismatch = "upload-checksum-mismatch"
    case uploadStorage = "upload-storage"
    case insufficientStorage = "insufficient-storage"

    /// The HTTP status the code is answered with.
    public var status: Int { row.status }

    /// What the code means, for the API's documentation.
    public var meaning: String { row.meaning }

    /// Seconds after which a retry may succeed, sent as `Retry-After` when the error does not say otherwise.
    public var defaultRetryAfterSeconds: Int64? {
        switch status {
        case 503: 5
        // The disk must be freed by someone: a minute, not seconds.
        case 507: 60
        default: nil
        }
    }

    /// The table: each code's status and meaning.
    private var row: (status: Int, meaning: String) {
        switch self {
        case .badRequest: (400, "The request cannot be read: invalid JSON, a missing field, a wrong type or a malformed parameter.")
        case .notFound: (404, "Nothing at this address: no such route, or no bundle with this digest.")
        case .methodNotAllowed: (405, "The address does not answer this method; `Allow` lists those it answers.")
        case .requestTimeout: (408, "The request did not arrive in full within the request timeout; the connection is closed.")
        case .tooLarge: (413, "The request body is larger than the route accepts.")
        case .uriTooLong: (414, "The request target is longer than the server accepts; the connection is closed.")
        case .headerFieldsTooLarge: (431, "The request's header section is larger than the server accepts; the connection is closed.")
        case .preconditionFailed: (412, "An If-Match or If-Unmodified-Since precondition does not hold for the representation.")
        case .rangeNotSatisfiable: (416, "No requested range lies inside the bundle; `Content-Range: bytes */SIZE` gives its size.")
        case .invalidCursor: (400, "The `cursor` is not one this server handed out as a `nextCursor`.")
        case .internal: (500, "The server failed to answer; the failure is logged. Never expected: report it.")
        case .unavailable: (503, "The catalog or the publisher key cannot be read or changed right now; retry after `Retry-After`.")
        case .ledgerUnavailable: (503, "The ledger cannot be reached right now; retry after `Retry-After`.")
        case .bundleUnavailable: (503, "The stored bundle cannot be read right now; retry after `Retry-After`.")
        case .tooManyConnections:
            (503, "The server holds as many connections as it allows (`server.maxConnections`); the connection is closed.")
        case .tooManyConnectionsFromAddress:
            (429, "The address holds as many connections as one may (`server.maxConnectionsPerAddress`); the connection is closed.")
        case .grantRequired: (401, "A bundle needs a grant: `Authorization: Bearer GRANT` or `?grant=GRANT`.")
        case .grantMalformed: (403, "The grant is not a grant at all.")
        case .grantUnknownKey: (403, "The grant names a key this server does not hold.")
        case .grantBadSignature: (403, "The grant's signature does not match: forged or altered.")
        case .grantExpired: (403, "The grant's expiry has passed; redeem the transaction again for a fresh one.")
        case .grantWrongBundle: (403, "The grant was issued for another bundle.")
        case .grantBadKey: (403, "The grant cannot be checked with the configured key.")
        case .grantRevoked: (403, "The purchase behind the grant was refunded or revoked, or its consumable was finished.")
        case .edgeSecretRefused: (403, "The edge fill secret is not one this server accepts.")
        case .notABundle: (403, "The grant check's X-Original-URI is not a bundle's address.")
        case .configurationInvalid: (403, "The server has no usable trusted root, bundle id or environment to verify with.")
        case .jwsMalformed: (400, "The signed data is not a compact JWS.")
        case .jwsUnsupportedAlgorithm: (403, "The JWS is not signed with ES256.")
        case .x5cMissing: (400, "The JWS header has no `x5c` certificate chain.")
        case .x5cWrongCount: (400, "The `x5c` chain does not have three certificates.")
        case .certificateMalformed: (400, "A certificate of the `x5c` chain cannot be read.")
        case .chainUntrusted: (403, "The certificate chain does not lead to a trusted root.")
        case .certificateExpired: (403, "A certificate of the chain was not valid at the data's signedDate.")
        case .leafOIDMissing: (403, "The leaf certificate lacks Apple's App Store receipt-signing marker.")
        case .intermediateOIDMissing: (403, "The intermediate certificate lacks Apple's marker.")
        case .signatureInvalid:
            (
                403,
                "The signature does not verify: a JWS with its leaf certificate's key, Google Play data with any configured licensing key."
            )
        case .payloadMalformed: (400, "The JWS payload is not the JSON the App Store signs.")
        case .payloadInconsistent: (400, "The payload's fields contradict each other (dates, identifiers).")
        case .signedInFuture: (403, "The data is signed later than the server's clock allows.")
        case .bundleIdMismatch: (403, "The data belongs to another app.")
        case .environmentNotAccepted: (403, "The purchase's store environment (App Store Sandbox, Google Play test) is not accepted here.")
        case .storeNotConfigured: (404, "This server does not accept purchases of that store (for Google Play: no `googlePlay` section).")
        case .receiptMalformed: (400, "The app receipt is not the CMS SignedData Apple writes, or breaks the receipt format or a bound.")
        case .receiptUnsupportedAlgorithm:
            (403, "The app receipt is not signed with SHA-1 or SHA-256 and RSA (PKCS #1 v1.5) without signed attributes.")
        case .transactionNotInReceipt:
            (404, "The app receipt holds no in-app purchase with that transaction id; refresh the receipt and try again.")
        case .receiptDeviceMismatch:
            (403, "The app receipt was not issued to the device named by `deviceId` (its SHA-1 hash does not match); nothing was recorded.")
        case .receiptDeviceRequired: (400, "The server requires `deviceId` (the app's `identifierForVendor`) beside an app receipt.")
        case .invalidDeviceId: (400, "`deviceId` is not a UUID.")
        case .transactionNotAtStore:
            (404, "The App Store Server API does not know the app receipt's transaction (Get Transaction Info answered 404).")
        case .storeUnavailable:
            (
                503,
                "The App Store Server API, which decides app receipts where it is configured, could not be asked; retry after `Retry-After`."
            )
        case .purchaseDataMalformed:
            (400, "The Google Play purchase data is not the JSON Play Billing signs, or a field has the wrong shape.")
        case .signatureMalformed: (400, "The Google Play signature is not standard base64.")
        case .purchasePending: (409, "The Google Play purchase awaits payment; nothing is delivered until it is purchased.")
        case .purchaseNotCompleted: (403, "The Google Play purchase is in a state other than purchased or pending.")
        case .familySharingNotAllowed: (403, "A family-shared purchase of a product that cannot be shared (a consumable).")
        case .invalidAccountToken: (400, "`appAccountToken` is not a UUID.")
        case .finishTokenRequired: (401, "The request lacks `finishToken`, from the answer to the transaction's redeem.")
        case .unknownTransaction: (404, "No such transaction was redeemed here, or the finish token is not its.")
        case .unknownProduct: (404, "The product is not in the catalog.")
        case .revoked: (410, "The store refunded or revoked the purchase.")
        case .rentalExpired:
            (410, "The rental ended: its rental period from the purchase, or its expiration period from the first confirmed delivery.")
        case .consumableFinished: (409, "The consumable was already delivered and finished.")
        case .transactionConflict:
            (409, "The purchase is not the one recorded under its transaction id (store, product or purchase token).")
        case .deliveryMismatch: (409, "The delivered contents or digests are not what was offered; nothing changed.")
        case .nothingDelivered: (409, "Nothing was offered for the transaction yet, so nothing can be confirmed.")
        case .tooManyTransactions: (413, "A restore carries more than 1000 transactions.")
        case .restoreRateLimited: (429, "Too many restores from this address; retry after `Retry-After`.")
        case .irregularActivity:
            (429, "The transaction was redeemed by too many accounts or places and is slowed down; retry after `Retry-After`.")
        case .accountAssertionInvalid:
            (401, "The account assertion failed a check (format, alg, kid, signature, aud, exp, iat, lifetime or sub); nothing was listed.")
        case .accountRestoreNotConfigured:
            (404, "This server does not restore by account (no `restore.accountAssertion` section).")
        case .adminTokenRequired: (401, "An operator route needs `Authorization: Bearer ADMIN_TOKEN`.")
        case .adminTokenRefused: (403, "The operator token is not accepted.")
        case .metricsTokenRequired: (401, "`/metrics` needs `Authorization: Bearer` with an operator or metrics token.")
        case .metricsTokenRefused: (403, "The metrics token is not accepted.")
        case .notificationTokenRequired:
            (401, "Google Play notifications need the push URL's `token` query parameter (`googlePlay.notifications`).")
        case .notificationTokenRefused: (403, "The notification token is not accepted.")
        case .publisherKeyRequired: (401, "A publisher route needs `Authorization: Bearer dpk_...` with a well-formed key.")
        case .publisherKeyUnknown: (401, "The publisher key is not known.")
        case .publisherKeyRevoked: (403, "The publisher key was revoked.")
        case .productOutOfScope: (403, "The publisher key may not act on this product.")
        case .contentOutOfScope:
            (403, "The content id (requested or in pack.json) lies outside the publisher key's scope; a pack's in `failureReason`.")
        case .invalidProductId: (400, "A product id is 1-128 ASCII letters, digits, '.', '_' and '-', not starting with '.'.")
        case .invalidType: (400, "`type` is not one of the product types.")
        case .invalidTitle: (400, "`title` is not 1-200 characters without control characters.")
        case .invalidPeriod:
            (
                400,
                "`periodDays` is missing for a nonRenewing product, out of 1-36500, or given for a type other than nonRenewing and autoRenewable."
            )
        case .productTypeLocked:
            (409, "The product has a version or a transaction: its `type` and `periodDays` are fixed (the title may change).")
        case .invalidVersion: (400, "A version is 1-64 printable characters without spaces or '/', not starting with '.'.")
        case .invalidContentId: (400, "A content id is 1-128 ASCII letters, digits, '.', '_' and '-', not starting with '.'.")
        case .invalidUploadId: (400, "`upload` is not an upload id (32 hex digits).")
        case .invalidSHA256: (400, "`sha256` is not 64 hex digits.")
        case .invalidPublishedAt: (400, "`publishedAt` is not an ISO 8601 UTC time.")
        case .unknownVersion: (404, "The product or content has no such version.")
        case .unknownUpload: (404, "No such upload of this publisher.")
        case .ambiguousVersion: (409, "Several contents of the product have this version; add `?contentId=`.")
        case .versionFailed: (409, "The version failed to become ready and cannot be published.")
        case .invalidRelease: (400, "`rollout` is not a whole percent from 1 to 100, or `channel` is not `production` or `beta`.")
        case .rolloutWithoutCurrent: (409, "A rollout needs a version current for everyone to roll out from; publish one in full first.")
        case .rolloutNotNewer: (409, "A rollout takes buyers forward: the version is not newer than the current one.")
        case .rolloutShrinks: (409, "A rollout only grows; halt it or roll back instead.")
        case .notRollingOut: (409, "The version does not roll out to part of the buyers, so there is nothing to halt.")
        case .versionNotBeta: (409, "Only a version published to the beta channel can be promoted.")
        case .versionWasPublished: (409, "The version was published; published versions are kept.")
        case .versionInProgress: (409, "A version of the product is already being made from an upload.")
        case .uploadIncomplete: (409, "The upload does not have all its bytes yet.")
        case .invalidPack: (422, "The pack is not valid (layout, manifest, limits, links); reported in a version's `failureReason`.")
        case .packMismatch: (400, "The pack's manifest names another product, content or version; reported in `failureReason`.")
        case .versionExists: (409, "Another pack is already recorded at this version; reported in `failureReason`.")
        case .contentOwnedByOtherProduct: (409, "The content id belongs to another product; reported in `failureReason`.")
        case .uploadHeaderInvalid: (400, "A tus header (Upload-Length, Upload-Offset, Upload-Defer-Length...) is missing or malformed.")
        case .uploadMetadataInvalid: (400, "`Upload-Metadata` is malformed.")
        case .uploadChecksumUnsupported: (400, "`Upload-Checksum` names an algorithm that is not served (sha1, sha256 are).")
        case .uploadNotFound: (404, "No such upload: never made, terminated, or expired and removed.")
        case .uploadOffsetMismatch: (409, "`Upload-Offset` is not the upload's offset; HEAD tells it.")
        case .uploadComplete: (409, "The upload already has all its bytes.")
        case .uploadExpired: (410, "The upload expired; upload the pack again.")
        case .tusVersionUnsupported: (412, "`Tus-Resumable` is missing or not 1.0.0; `Tus-Version` lists what is served.")
        case .uploadTooLarge: (413, "Larger than `Tus-Max-Size` or than the upload's own length.")
        case .uploadCountQuotaExceeded:
            (403, "The publisher holds as many uploads not yet staged as a version as it may (`uploads.maxLivePerPublisher`).")
        case .uploadBytesQuotaExceeded:
            (403, "The publisher's unconsumed uploads would declare more bytes than it may (`uploads.maxLiveBytesPerPublisher`).")
        case .uploadMediaType: (415, "Upload bytes must be sent as `Content-Type: application/offset+octet-stream`.")
        case .uploadLocked: (423, "Another request is writing to this upload; retry once it ends.")
        case .uploadChecksumMismatch: (460, "The chunk's checksum does not match `Upload-Checksum`; the chunk was discarded.")
        case .uploadStorage: (503, "The upload's bytes could not be stored; retry after `Retry-After`.")
        case .insufficientStorage:
            (
                507,
                "The server's disk is full or below its free-space floor (`storage.minFreeBytes`); nothing was stored. Retry after `Retry-After`, once space was freed."
            )
        }
    }
}
