/// Where the object store's work is counted (the server's metrics): each call by operation (`upload`, `download`,
/// `delete`) and outcome (`written`, `present`, `replaced`, `fetched`, `absent`, `deleted`, or the S3 error's code),
/// with the bytes it moved and how long it took.
package protocol ObjectStoreRecorder: Sendable {
    /// Records one call.
    func objectStoreCall(operation: String, outcome: String, bytes: Int64, duration: Duration)
}
