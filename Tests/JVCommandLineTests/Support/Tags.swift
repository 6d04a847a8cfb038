// SPDX-License-Identifier: Apache-2.0
import Testing

// The tags of JVCommandLineTests' suites (each test target declares the ones it uses; see
// Tests/jvTests/Support/Tags.swift for the end-to-end ones).
extension Tag {
    /// Runs the command line's code inside the test process, no `jv` process started: fast,
    /// always in the quick run (`make test-fast`).
    @Tag static var inProcess: Self
}
