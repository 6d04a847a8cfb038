// SPDX-License-Identifier: Apache-2.0
/// A session as a command reaches it: its id and its agent's socket. Kept by a vault unlocked
/// through the session (``UnlockedVault/session``), to ask the agent's index and to tell it of
/// writes.
struct SessionEndpoint: Sendable {
    let session: SessionID
    let socket: String

    /// The agent's status with its index's; nil when none answers.
    func status() -> SessionStatus? {
        // An agent from before the index does not know the index request, and answers this one.
        SessionClient.indexStatus(session: session, socket: socket) ?? SessionClient.ask(.status, session: session, socket: socket)?.answer.status
    }

    /// Tells the agent that the vault was written; never fails (an agent that is gone or slow
    /// is left alone: its next search looks at the vault anyway).
    func nudge() {
        SessionClient.nudge(session: session, socket: socket)
    }

    /// The hits of the agent's index, current with the vault as it answers; nil when no agent
    /// answers, its index is not built, or it refuses the query: the caller scans.
    func search(_ query: SearchQuery, kinds: Set<SearchKind>, ranked: Bool) -> [SearchHit]? {
        guard case .hits(let hits)? = SessionClient.query(SessionWire.Query(query: query, kinds: kinds, ranked: ranked),
                                                          session: session, socket: socket) else { return nil }
        return hits
    }

    /// `jv stats` of the period, from the agent's figures current with the vault as it answers;
    /// nil when no agent answers, its index is not built, or it could not make them: the caller
    /// decrypts.
    func stats(_ query: SessionWire.StatsQuery) -> JournalStats? {
        guard case .stats(let stats)? = SessionClient.stats(query, session: session, socket: socket) else { return nil }
        return stats
    }

    /// Whether the period's entries were written at more than one UTC offset, from the agent's
    /// figures; nil when no agent answers or its index is not built: the caller reads the file.
    func spansZones(_ period: SessionWire.Period) -> Bool? {
        guard case .spans(let spans)? = SessionClient.zones(of: period, session: session, socket: socket) else { return nil }
        return spans
    }
}
