/// The samples of a Prometheus text exposition (format 0.0.4), parsed strictly: a line that is neither a
/// comment nor `name{label="value",...} number` is an error, so a scrape that breaks the format fails the test.
package struct PrometheusText {
    /// One sample line: a name, its labels and its value.
    package struct Sample: Equatable {
        /// The metric's name.
        package var name: String
        /// The labels, by name.
        package var labels: [String: String]
        /// The value (`+Inf`, `-Inf` and `NaN` included).
        package var value: Double
    }

    /// A line that breaks the format.
    package struct FormatError: Error, CustomStringConvertible {
        /// What is wrong, and the line.
        package var description: String
    }

    /// The samples, in the order of the text.
    package let samples: [Sample]
    /// `# TYPE` declarations by family name.
    package let types: [String: String]

    /// Parses `text`; throws `FormatError` at the first line that is neither a comment nor a sample.
    package init(_ text: String) throws {
        var samples: [Sample] = []
        var types: [String: String] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("# TYPE ") {
                let parts = line.dropFirst(7).split(separator: " ")
                guard parts.count == 2 else { throw FormatError(description: "bad TYPE line: \(line)") }
                types[String(parts[0])] = String(parts[1])
                continue
            }
            if line.hasPrefix("#") { continue }
            samples.append(try Self.sample(Array(line.unicodeScalars)))
        }
        self.samples = samples
        self.types = types
    }

    /// The value of the sample with exactly these labels, or nil.
    package func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// The samples of a name whose labels include `matching`.
    package func samples(_ name: String, matching: [String: String] = [:]) -> [Sample] {
        samples.filter { sample in
            sample.name == name && matching.allSatisfy { sample.labels[$0.key] == $0.value }
        }
    }

    private static func sample(_ line: [Unicode.Scalar]) throws -> Sample {
        var index = 0
        func fail(_ why: String) -> FormatError {
            FormatError(description: "\(why) in: \(String(String.UnicodeScalarView(line)))")
        }
        var name = ""
        while index < line.count, isNameCharacter(line[index], first: name.isEmpty) {
            name.unicodeScalars.append(line[index])
            index += 1
        }
        guard !name.isEmpty else { throw fail("no metric name") }
        var labels: [String: String] = [:]
        if index < line.count, line[index] == "{" {
            index += 1
            while index < line.count, line[index] != "}" {
                var key = ""
                while index < line.count, isNameCharacter(line[index], first: key.isEmpty) {
                    key.unicodeScalars.append(line[index])
                    index += 1
                }
                guard !key.isEmpty, index + 1 < line.count, line[index] == "=", line[index + 1] == "\"" else {
                    throw fail("bad label")
                }
                index += 2
                var value = ""
                while true {
                    guard index < line.count else { throw fail("unterminated label value") }
                    let scalar = line[index]
                    index += 1
                    if scalar == "\"" { break }
                    if scalar == "\\" {
                        guard index < line.count else { throw fail("dangling escape") }
                        switch line[index] {
                        case "n": value += "\n"
                        case "\\": value += "\\"
                        case "\"": value += "\""
                        default: throw fail("unknown escape")
                        }
                        index += 1
                    } else {
                        value.unicodeScalars.append(scalar)
                    }
                }
                guard labels.updateValue(value, forKey: key) == nil else { throw fail("label \(key) twice") }
                if index < line.count, line[index] == "," { index += 1 }
            }
            guard index < line.count else { throw fail("unterminated labels") }
            index += 1
        }
        guard index < line.count, line[index] == " " else { throw fail("no space before the value") }
        let rest = String(String.UnicodeScalarView(line[(index + 1)...])).split(separator: " ")
        guard (1...2).contains(rest.count) else { throw fail("bad value") }
        let number: Double
        switch rest[0] {
        case "+Inf": number = .infinity
        case "-Inf": number = -.infinity
        case "NaN": number = .nan
        default:
            guard let parsed = Double(rest[0]) else { throw fail("value is not a number") }
            number = parsed
        }
        return Sample(name: name, labels: labels, value: number)
    }

    private static func isNameCharacter(_ scalar: Unicode.Scalar, first: Bool) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "_", ":": true
        case "0"..."9": !first
        default: false
        }
    }
}
