/// Decides status, header fields and body layout for a GET or HEAD of one representation.
///
/// Reads If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since, If-Range and Range (through
/// `RequestConditions`); writes the fields listed on `ResponsePlan`. No input produces anything but 200,
/// 206, 304, 412 or 416, and nothing traps.
package enum ConditionalEvaluator {
    /// Evaluates preconditions in RFC 9110 §13.2.2 order, then If-Range and Range (§13.1.5, §14.2).
    ///
    /// - Parameters:
    ///   - now: the current time in seconds since 1970, for date validity and Last-Modified strength.
    ///   - boundary: the multipart boundary, used only when several ranges remain; see
    ///     `MultipartByteRanges.isValidBoundary`. With an invalid boundary the Range field is ignored.
    package static func plan(
        for request: RequestConditions, representation: RepresentationMetadata,
        now: Int64, limits: RangeLimits = .default, boundary: String
    ) -> ResponsePlan {
        // The plain 200 path: no field to parse.
        if request.isUnconditional { return .complete(representation) }

        switch Preconditions.evaluate(request, representation: representation, now: now) {
        case .preconditionFailed: return .preconditionFailed()
        case .notModified: return .notModified(representation)
        case .proceed: break
        }

        // Step 5. RFC 9110 §14.2: GET is the only method with range handling defined, so a Range field on
        // HEAD or any other method is ignored; HEAD then mirrors a GET without Range.
        guard request.method == .get, !request.range.isEmpty else { return .complete(representation) }
        // §5.3: Range is a singleton field; two lines make it invalid, and an invalid Range is ignored.
        guard let rangeValue = request.range.singleValue,
            case .bytes(let specs) = RangeField.parse(rangeValue, maxRanges: limits.maxRanges)
        else { return .complete(representation) }
        // §13.1.5: If-Range is evaluated only with a valid Range; false means "send it all".
        if !request.ifRange.isEmpty,
            !IfRange.evaluate(request.ifRange, representation: representation, now: now)
        {
            return .complete(representation)
        }

        let size = max(representation.size, 0)
        switch ByteRangeSet.resolve(specs, size: size) {
        case .excessive:
            return .complete(representation)
        case .unsatisfiable:
            return .rangeNotSatisfiable(size: size)
        case .satisfiable(let set):
            // One range left, even one covering the whole representation, is a single-part 206: the
            // client asked for a range and gets exactly what a 206 says (§15.3.7 allows either answer).
            if set.ranges.count == 1 { return .partial(representation, set.ranges[0]) }
            // §14.6: several ranges as multipart/byteranges; if that cannot be produced, §14.2 allows
            // ignoring the Range field.
            return .multipart(representation, set.ranges, boundary: boundary) ?? .complete(representation)
        }
    }

    /// The range of the commonest ranged request, a GET whose one conditional field is one `Range` line that
    /// leaves exactly one satisfiable range: the range `plan(for:...)` answers with a single-part 206
    /// (`ResponsePlan.partial`); nil for every other request, which `plan(for:...)` then decides.
    ///
    /// The same steps as `plan(for:...)` with no precondition and no If-Range to evaluate, without building the
    /// plan's header fields.
    package static func singleRange(
        for request: RequestConditions, representation: RepresentationMetadata, limits: RangeLimits = .default
    ) -> ByteRange? {
        guard request.method == .get, request.ifMatch.isEmpty, request.ifNoneMatch.isEmpty,
            request.ifModifiedSince.isEmpty, request.ifUnmodifiedSince.isEmpty, request.ifRange.isEmpty,
            let rangeValue = request.range.singleValue,
            case .bytes(let specs) = RangeField.parse(rangeValue, maxRanges: limits.maxRanges),
            case .satisfiable(let set) = ByteRangeSet.resolve(specs, size: max(representation.size, 0)),
            set.ranges.count == 1
        else { return nil }
        return set.ranges[0]
    }
}
