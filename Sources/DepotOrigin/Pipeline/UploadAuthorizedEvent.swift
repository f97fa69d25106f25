/// The outbound user event an upload route sends down its channel once the request's publisher key was accepted
/// and before its body is read: ``BundleChannelHandler`` then lets that body's deadline run on progress (see
/// ``RequestDeadline``). A pipeline without the handler ignores it.
package struct UploadAuthorizedEvent: Sendable {
    /// The event.
    package init() {}
}
