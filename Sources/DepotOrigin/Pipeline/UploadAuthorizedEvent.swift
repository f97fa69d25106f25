/// The outbound user event an upload route sends down its channel once the request's publisher key was accepted
/// and before its body is read: ``BundleChannelHandler`` then lets that body's deadline run on progress (see
/// ``RequestDeadline``). A pipeline without the handler ignores it.
///
/// Its promise succeeds once the connection took it, so a route that waits for it starts on the body only under the
/// progress deadline; it fails with ``ConnectionClosing`` when the connection is already closing (its whole-request
/// deadline passed first and was answered 408).
package struct UploadAuthorizedEvent: Sendable {
    /// The connection is closing: the body will not arrive, and nothing may be started on it.
    package struct ConnectionClosing: Error, Sendable {
        /// The refusal.
        package init() {}
    }

    /// The event.
    package init() {}
}
