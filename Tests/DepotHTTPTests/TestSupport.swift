import DepotHTTP
import Testing

/// Sun, 06 Nov 1994 08:49:37 GMT, the RFC's example date.
let exampleDate: Int64 = 784_111_777
let exampleIMF = "Sun, 06 Nov 1994 08:49:37 GMT"
/// A "now" well after publication, so Last-Modified is a strong validator.
let exampleNow: Int64 = exampleDate + 86_400
let exampleTag = "abc123"
let exampleCacheControl = "public, max-age=31536000, immutable"

func representation(
    size: Int64 = 100, lastModified: Int64 = exampleDate, contentType: String = "application/zip",
    cacheControl: String? = exampleCacheControl
) -> RepresentationMetadata {
    RepresentationMetadata(
        size: size, entityTag: exampleTag, lastModified: lastModified, contentType: contentType,
        cacheControl: cacheControl)
}

/// A header line for test tables: `field("Range", "bytes=0-1")`.
func field(_ name: String, _ value: String) -> HeaderField { HeaderField(name: name, value: value) }

func plan(
    _ headers: [HeaderField], method: RequestMethod = .get, representation: RepresentationMetadata = representation(),
    now: Int64 = exampleNow, limits: RangeLimits = .default, boundary: String = "BOUNDARY"
) -> ResponsePlan {
    let request = RequestConditions(method: method, headers: headers.map { (name: $0.name, value: $0.value) })
    return ConditionalEvaluator.plan(
        for: request, representation: representation, now: now, limits: limits, boundary: boundary)
}

/// One row of an evaluator table: a request and the status and body it must get.
struct PlanCase: Sendable, CustomTestStringConvertible {
    var name: String
    var method: RequestMethod = .get
    var headers: [HeaderField]
    var size: Int64 = 100
    var lastModified: Int64 = exampleDate
    var now: Int64 = exampleNow
    var status: Int
    /// Checked when set.
    var body: ResponseBody? = nil

    var testDescription: String { name }

    func run() -> ResponsePlan {
        plan(headers, method: method, representation: representation(size: size, lastModified: lastModified), now: now)
    }
}

/// The bytes GET would send for `plan`, given the representation's bytes.
func materialize(_ plan: ResponsePlan, file: [UInt8]) -> [UInt8] {
    switch plan.body {
    case .none:
        return []
    case .file(let offset, let length):
        return Array(file[Int(offset)..<Int(offset + length)])
    case .segments(let segments):
        return segments.flatMap { segment -> [UInt8] in
            switch segment {
            case .literal(let bytes): bytes
            case .file(let offset, let length): Array(file[Int(offset)..<Int(offset + length)])
            }
        }
    }
}
