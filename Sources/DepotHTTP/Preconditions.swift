/// Evaluates If-Match, If-Unmodified-Since, If-None-Match and If-Modified-Since in the order of
/// RFC 9110 §13.2.2 (steps 1 to 4; step 5, If-Range and Range, is the evaluator's).
///
/// How malformed fields are treated (the RFC asks recipients to ignore invalid dates and leaves list
/// errors to the server):
/// - If-Match that does not parse fails safe: 412. The client asked for "only if it is still this
///   representation"; a value we cannot read must not turn into "go ahead".
/// - If-None-Match that does not parse is ignored, as if it were absent for its own evaluation; the
///   request then gets a full response, which is always correct for a GET. It still counts as present
///   for step 4, so If-Modified-Since stays ignored (§13.1.3: ignored when If-None-Match is present).
/// - A date that is not a valid HTTP-date, or a date field sent more than once (§5.3: a singleton field),
///   is ignored.
package enum Preconditions {
    /// The outcome of steps 1 to 4.
    package enum Outcome: Sendable, Equatable {
        /// Go on to If-Range and Range.
        case proceed
        /// 304 Not Modified.
        case notModified
        /// 412 Precondition Failed.
        case preconditionFailed
    }

    /// Evaluates the preconditions of `request` against `representation` at `now` (seconds since 1970).
    package static func evaluate(
        _ request: RequestConditions, representation: RepresentationMetadata, now: Int64
    ) -> Outcome {
        // Step 1, §13.1.1: If-Match uses the strong comparison; `*` is true since the representation exists.
        if !request.ifMatch.isEmpty {
            let match = EntityTagList.match(request.ifMatch, currentTag: representation.entityTag, by: .strong)
            guard match == .matched else { return .preconditionFailed }
        } else if let value = request.ifUnmodifiedSince.singleValue, let date = HTTPDate.parse(value, now: now) {
            // Step 2, §13.1.4: only when If-Match is absent.
            if representation.lastModified > date { return .preconditionFailed }
        }

        // Step 3, §13.1.2: If-None-Match uses the weak comparison.
        if !request.ifNoneMatch.isEmpty {
            let match = EntityTagList.match(request.ifNoneMatch, currentTag: representation.entityTag, by: .weak)
            if match == .matched {
                return request.method == .other ? .preconditionFailed : .notModified
            }
        } else if request.method != .other, let value = request.ifModifiedSince.singleValue,
            let date = HTTPDate.parse(value, now: now), date <= now
        {
            // Step 4, §13.1.3: GET or HEAD, If-None-Match absent; a date later than now is invalid.
            if representation.lastModified <= date { return .notModified }
        }
        return .proceed
    }
}
