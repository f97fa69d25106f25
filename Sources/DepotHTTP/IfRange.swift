/// Evaluates If-Range (RFC 9110 §13.1.5), which the evaluator consults only for a GET with a valid Range.
///
/// Reads the If-Range field lines. The condition is true only for
/// - an entity-tag that matches the current tag by the strong comparison (so a weak tag is false), or
/// - an HTTP-date exactly equal to Last-Modified when Last-Modified is a strong validator: §8.8.2.2 lets
///   a server deduce that when the representation is at least one second older than now (it cannot
///   have changed twice within the second the date names).
///
/// Anything else is false: a malformed value, or the field sent more than once (§5.3: a singleton
/// field). False means "ignore Range and send the whole representation", the safe answer; treating a
/// broken If-Range as absent would hand out a range of something the client did not ask for.
package enum IfRange {
    /// Whether the Range field may be honoured.
    package static func evaluate(_ fieldLines: [String], representation: RepresentationMetadata, now: Int64) -> Bool {
        guard let value = fieldLines.singleValue else { return false }
        if let tag = EntityTag(parsing: value) {
            return tag.matches(EntityTag(opaqueTag: representation.entityTag), by: .strong)
        }
        guard let date = HTTPDate.parse(value, now: now) else { return false }
        return date == representation.lastModified && representation.lastModified < now
    }
}
