// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import Testing

// Standard output read with the library's own JSON parser, for tests that check the order of
// members (the documented shape) and tell integers from reals, which JSONSerialization does not.

extension JVResult {
    /// Standard output parsed as JSON; records an issue at the caller if it is not JSON.
    func jsonValue(sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        do {
            return try JSONParser.parse(Array(stdout))
        } catch {
            Issue.record("not JSON: \(self)", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// The full id `jv` printed alone on one line (lower-case, as `jv` prints ids).
    func printedID(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let line = out.trimmingCharacters(in: .newlines)
        #expect(out == line + "\n", "expected one line: \(self)", sourceLocation: sourceLocation)
        let id = try #require(UUID(uuidString: line), "not an id: \(self)", sourceLocation: sourceLocation)
        #expect(line == id.uuidString.lowercased(), sourceLocation: sourceLocation)
        return line
    }
}

extension Sandbox {
    /// The `counts` member of `jv info --json`.
    func counts(sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        try #require(try ok(["info", "--json"], sourceLocation: sourceLocation).jsonValue(sourceLocation: sourceLocation)["counts"],
                     sourceLocation: sourceLocation)
    }
}

/// The member names of a JSON object, in order (empty for anything else).
func jsonKeys(_ value: JSONValue?) -> [String] {
    guard case .object(let members)? = value else { return [] }
    return members.map(\.0)
}
