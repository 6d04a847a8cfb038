// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import JournalVault

/// ``XDGDirectories``: the XDG Base Directory specification's rule, the same for every folder —
/// an absolute value is used; a relative or empty one is invalid and the default is taken.
@Suite struct XDGDirectoriesTests {
    private static var folders: [(variable: String, folder: (XDGDirectories) -> String?, fallback: String?)] {
        [
            ("XDG_CONFIG_HOME", { $0.config }, "/home/anna/.config"),
            ("XDG_DATA_HOME", { $0.data }, "/home/anna/.local/share"),
            ("XDG_STATE_HOME", { $0.state }, "/home/anna/.local/state"),
            ("XDG_CACHE_HOME", { $0.cache }, "/home/anna/.cache"),
            ("XDG_RUNTIME_DIR", { $0.runtime }, nil),
        ]
    }

    @Test func absoluteValueIsUsed() {
        for (variable, folder, _) in Self.folders {
            #expect(folder(XDGDirectories(environment: ["HOME": "/home/anna", variable: "/elsewhere/x"])) == "/elsewhere/x", "\(variable)")
        }
    }

    @Test(arguments: ["", "relative/path", "./here", "~/tilde", " /leading-space"])
    func invalidValueFallsBackToTheDefault(value: String) {
        for (variable, folder, fallback) in Self.folders {
            #expect(folder(XDGDirectories(environment: ["HOME": "/home/anna", variable: value])) == fallback, "\(variable)=\(value)")
            #expect(folder(XDGDirectories(environment: ["HOME": "/home/anna"])) == fallback, "\(variable) unset")
        }
    }

    @Test func homeIsHOME() {
        #expect(XDGDirectories(environment: ["HOME": "/home/anna"]).home == "/home/anna")
    }
}
