/// An error with a stable, machine-readable code and a sentence for people: the shape every refusal and
/// failure of Depot's layers takes, so that logs, answers and tests read them alike.
///
/// Conforming types declare `code` and `message`; `description` is `code: message`. A code is a value
/// whose description is its stable string form (`grant-expired`, `unsafe-path`), never a sentence.
public protocol CodedError: Error, CustomStringConvertible {
    /// The type of the stable code: usually a struct over a private enum, so that codes can be added.
    associatedtype Code: CustomStringConvertible

    /// The stable reason.
    var code: Code { get }
    /// A sentence for people. It never carries a token, a key, a signature or a path on the server.
    var message: String { get }
}

extension CodedError {
    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
