// SPDX-License-Identifier: Apache-2.0
/// Where and why an import file is malformed. Nothing is imported when one is thrown.
public struct ImportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based line of a text format, if known.
    public var line: Int?
    /// 1-based position of the record in the file, if known.
    public var record: Int?
    public var reason: String

    public init(line: Int? = nil, record: Int? = nil, reason: String) {
        self.line = line
        self.record = record
        self.reason = reason
    }

    public var description: String {
        let place = line.map { " at line \($0)" } ?? record.map { " in record \($0)" } ?? ""
        // Reasons may be whole sentences (a vault error's description): no doubled full stop.
        let reason = reason.hasSuffix(".") ? String(reason.dropLast()) : reason
        return "The file cannot be imported\(place): \(reason); nothing was imported."
    }

    /// Parses JSON, turning a syntax error into an import error with its byte offset.
    static func parsing(_ bytes: [UInt8]) throws -> JSONValue {
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw ImportError(reason: "invalid JSON at byte \(error.offset) (\(error.reason))")
        }
    }
}
