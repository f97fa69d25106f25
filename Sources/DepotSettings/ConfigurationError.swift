/// A configuration Depot cannot start with, naming the file or setting at fault.
package struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, for people.
    package let message: String

    /// Creates an error.
    package init(_ message: String) { self.message = message }

    /// The message.
    package var description: String { message }
}

extension ConfigurationError {
    /// `value` when it lies in `range`, else the error `<file>: <setting> must be from <low> to <high>, not <value>`.
    static func inRange<Value: Comparable & CustomStringConvertible>(
        _ value: Value, _ range: ClosedRange<Value>, setting: String, in file: String
    ) throws(ConfigurationError) -> Value {
        guard range.contains(value) else {
            throw ConfigurationError("\(file): \(setting) must be from \(range.lowerBound) to \(range.upperBound), not \(value)")
        }
        return value
    }
}
