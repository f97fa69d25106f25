/// A configuration Depot cannot start with, naming the file or setting at fault.
package struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, for people.
    package let message: String

    /// Creates an error.
    package init(_ message: String) { self.message = message }

    /// The message.
    package var description: String { message }
}
