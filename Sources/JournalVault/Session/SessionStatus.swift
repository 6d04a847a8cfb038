// SPDX-License-Identifier: Apache-2.0
import Foundation

/// An open session: an agent holding a vault's key for commands of the same user, until
/// ``expiresAt`` (``idleTimeout`` after its last use, never later than ``endsAt``).
///
/// ```swift
/// if let session = try vault.session() {
///     print("unlocked until \(session.expiresAt)")
/// }
/// ```
public struct SessionStatus: Sendable, Equatable {
    /// The agent's process id.
    public let agentPID: Int32
    /// When the session ends if no command uses it before.
    public let expiresAt: Date
    /// When the session ends however much it is used.
    public let endsAt: Date
    /// How long the session lasts after each use.
    public let idleTimeout: TimeInterval
    /// The agent's search index; nil from an agent that does not report one.
    public var index: SessionIndexStatus? = nil
}
