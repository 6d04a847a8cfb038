// SPDX-License-Identifier: Apache-2.0
@testable import JVCommandLine
import Testing

/// The sentence a user is shown when `body` refuses with `CLIError.usage` (exit 64), or a
/// recorded issue and nil when it does not refuse, or refuses otherwise.
func usageRefusal<T>(_ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    do {
        let result = try body()
        Issue.record("accepted, as \(result); expected a usage error", sourceLocation: sourceLocation)
    } catch CLIError.usage(let message) {
        return message
    } catch {
        Issue.record("refused with \(error); expected a usage error", sourceLocation: sourceLocation)
    }
    return nil
}
