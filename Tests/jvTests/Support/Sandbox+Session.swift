// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

extension Sandbox {
    /// The session agent's index as `jv info --json` shows it; nil without a session.
    func sessionIndex() throws -> [String: Any]? {
        let info = try run(["info", "--json"])
        try Sandbox.requireSuccess(info)
        return (try info.object()["session"] as? [String: Any])?["index"] as? [String: Any]
    }

    /// Waits until the agent's index is built; returns its status.
    @discardableResult
    func waitUntilIndexReady(seconds: Double = 60) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let index = try sessionIndex(), index["state"] as? String == "ready" { return index }
            usleep(100_000)
        }
        throw SessionIndexFailure.notReady("\(try sessionIndex() ?? [:])")
    }
}

enum SessionIndexFailure: Error {
    case notReady(String)
}
