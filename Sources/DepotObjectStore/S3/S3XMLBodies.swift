/// `<Error>`: what an S3 store says went wrong.
struct S3ErrorBody: Decodable {
    var code: String?
    var message: String?
    var requestId: String?

    enum CodingKeys: String, CodingKey {
        case code = "Code"
        case message = "Message"
        case requestId = "RequestId"
    }
}

/// `<ListBucketResult>` of ListObjectsV2.
struct ListBucketResultBody: Decodable {
    struct Entry: Decodable {
        var key: String
        var size: Int64?
        var eTag: String?
        var lastModified: String?

        enum CodingKeys: String, CodingKey {
            case key = "Key"
            case size = "Size"
            case eTag = "ETag"
            case lastModified = "LastModified"
        }
    }

    var isTruncated: Bool?
    var contents: [Entry]?
    var nextContinuationToken: String?

    enum CodingKeys: String, CodingKey {
        case isTruncated = "IsTruncated"
        case contents = "Contents"
        case nextContinuationToken = "NextContinuationToken"
    }
}

/// `<InitiateMultipartUploadResult>`.
struct InitiateMultipartUploadResultBody: Decodable {
    var uploadId: String

    enum CodingKeys: String, CodingKey {
        case uploadId = "UploadId"
    }
}

/// `<CompleteMultipartUpload>`: the parts, in order, as the request body.
struct CompleteMultipartUploadBody: Encodable {
    struct Part: Encodable {
        var partNumber: Int
        var eTag: String

        enum CodingKeys: String, CodingKey {
            case partNumber = "PartNumber"
            case eTag = "ETag"
        }
    }

    var parts: [Part]

    enum CodingKeys: String, CodingKey {
        case parts = "Part"
    }
}

/// `<CompleteMultipartUploadResult>`; S3 may also answer 200 with an `<Error>` body.
struct CompleteMultipartUploadResultBody: Decodable {
    var eTag: String?

    enum CodingKeys: String, CodingKey {
        case eTag = "ETag"
    }
}

/// `<ListMultipartUploadsResult>` of ListMultipartUploads.
struct ListMultipartUploadsResultBody: Decodable {
    struct Upload: Decodable {
        var key: String
        var uploadId: String
        var initiated: String?

        enum CodingKeys: String, CodingKey {
            case key = "Key"
            case uploadId = "UploadId"
            case initiated = "Initiated"
        }
    }

    var isTruncated: Bool?
    var uploads: [Upload]?
    var nextKeyMarker: String?
    var nextUploadIdMarker: String?

    enum CodingKeys: String, CodingKey {
        case isTruncated = "IsTruncated"
        case uploads = "Upload"
        case nextKeyMarker = "NextKeyMarker"
        case nextUploadIdMarker = "NextUploadIdMarker"
    }
}
