// SPDX-License-Identifier: Apache-2.0
/// The search index a session's agent holds in its memory (SECURITY.md "Sessions"): whether it
/// is built, how many records it holds, its size and how much of the agent's memory is locked
/// in RAM.
///
/// ```swift
/// if let index = try vault.session()?.index, index.state == .ready {
///     print("\(index.documents) records indexed in \(index.bytes) bytes, \(index.lockedBytes) locked")
/// }
/// ```
public struct SessionIndexStatus: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Being built after `jv unlock`: searches scan meanwhile.
        case building
        /// Built and answering searches.
        case ready
        /// Not built (the vault could not be read as a whole): searches scan, as without a session.
        case unavailable
    }

    public let state: State
    /// The records (entries, chat messages, analyses) indexed.
    public let documents: Int
    /// The memory the index's database takes, in bytes.
    public let bytes: Int
    /// The agent's memory locked in RAM (its VmLck), in bytes: all of it when `RLIMIT_MEMLOCK`
    /// allows, else as much as it does.
    public let lockedBytes: Int
    /// The searches the index has answered in this session (those it could not answer were
    /// scanned by the command, and are not counted).
    public var searches: Int = 0
    /// The `jv stats` the agent has answered from its figures in this session.
    public var statsAnswered: Int = 0
}
