import Foundation
import Testing

/// `docs/openapi.yaml`, read as the tests need it: its table of error codes (`x-error-codes`, one flow
/// mapping per line: `- {code: CODE, status: N, meaning: "JSON string"}`) and its path.
package struct OpenAPIDocument {
    /// One row of the document's table.
    package struct ErrorRow: Equatable, CustomStringConvertible {
        /// The code.
        package var code: String
        /// The HTTP status it is answered with.
        package var status: Int
        /// What it means, for people.
        package var meaning: String
        /// `code status meaning`.
        package var description: String { "\(code) \(status) \(meaning)" }

        /// A row.
        package init(code: String, status: Int, meaning: String) {
            self.code = code
            self.status = status
            self.meaning = meaning
        }
    }

    /// Where the document is: `<repository>/docs/openapi.yaml`, found from this file's path.
    package static let path = RepositoryRoot.path + "/docs/openapi.yaml"

    /// The document's text.
    package let text: String

    /// Reads the document from the repository.
    package init() throws {
        text = try String(contentsOfFile: Self.path, encoding: .utf8)
    }

    /// The rows of `x-error-codes`, in order; a line under it that is not a row is a failure, so a change of
    /// the table's format cannot make rows vanish unseen.
    package func errorRows(sourceLocation: SourceLocation = #_sourceLocation) throws -> [ErrorRow] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == "x-error-codes:" }) else {
            Issue.record("docs/openapi.yaml has no top-level x-error-codes", sourceLocation: sourceLocation)
            return []
        }
        let row = /^  - \{code: ([a-z0-9-]+), status: ([0-9]{3}), meaning: (".*")\}$/
        var rows: [ErrorRow] = []
        for line in lines[(start + 1)...] {
            // The table ends at the next top-level key or the end of the file.
            if let first = line.first, first != " " { break }
            if line.allSatisfy(\.isWhitespace) { continue }
            guard let match = try row.wholeMatch(in: String(line)) else {
                Issue.record("not a row of x-error-codes: \(line)", sourceLocation: sourceLocation)
                continue
            }
            let meaning = try JSONDecoder().decode(String.self, from: Data(match.3.utf8))
            rows.append(ErrorRow(code: String(match.1), status: Int(match.2)!, meaning: meaning))
        }
        return rows
    }
}
