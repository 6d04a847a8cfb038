// SPDX-License-Identifier: Apache-2.0
import CProcessHygiene
import Foundation
import VaultCrypto

extension Vault {
    /// This vault unlocked with the key of an open session (`jv unlock` of this file, at its
    /// path; a copy has its own), without a passphrase; nil when no session is open for it, or
    /// the session's key no longer opens it (after `jv rekey`, or a file replaced by another
    /// vault with the same id), which is then ended.
    ///
    /// ```swift
    /// let vault = try Vault.open(at: path, access: .readOnly)
    /// let journal = try vault.unlockThroughSession() ?? vault.unlock(passphrase: secret)
    /// ```
    public func unlockThroughSession() throws -> UnlockedVault? {
        let header = try header()
        guard let endpoint = try sessionEndpoint(vaultID: header.vaultID),
              let reply = SessionClient.ask(.key, session: endpoint.session, socket: endpoint.socket), let key = reply.key else { return nil }
        let keys = try VaultKeys(vaultID: header.vaultID, keyVersion: header.keyVersion, masterKey: key)
        guard reply.answer.keyVersion == header.keyVersion, opens(with: keys) else {
            _ = SessionClient.ask(.lock, session: endpoint.session, socket: endpoint.socket)
            return nil
        }
        return UnlockedVault(vault: self, keys: keys, unlockedSlot: nil, session: endpoint)
    }

    /// Where the background check of the whole vault that `jv unlock` starts leaves its outcome,
    /// beside the session's socket: nil without a session folder.
    public func sessionCheckFile() throws -> String? {
        guard let folder = try SessionFolder.current(creating: false),
              let session = try folder.session(vaultID: try header().vaultID, file: path, creating: false) else { return nil }
        return folder.socket(for: session) + ".checked"
    }

    /// The open session of this vault, if any, with its search index
    /// (``SessionStatus/index``).
    public func session() throws -> SessionStatus? {
        try sessionEndpoint(vaultID: header().vaultID)?.status()
    }

    /// Ends this vault's session: the agent wipes the key and exits. False when none was open.
    @discardableResult
    public func lockSession() throws -> Bool {
        try askAgent(.lock, vaultID: header().vaultID) != nil
    }

    /// The answer of this vault file's agent; nil when none answers.
    private func askAgent(_ kind: SessionWire.Request, vaultID: UUID) throws -> SessionClient.Reply? {
        try sessionEndpoint(vaultID: vaultID).flatMap { SessionClient.ask(kind, session: $0.session, socket: $0.socket) }
    }

    /// Where this vault file's session would be; nil without a session folder or its salt.
    private func sessionEndpoint(vaultID: UUID) throws -> SessionEndpoint? {
        guard let folder = try SessionFolder.current(creating: false),
              let session = try folder.session(vaultID: vaultID, file: path, creating: false) else { return nil }
        return SessionEndpoint(session: session, socket: folder.socket(for: session))
    }

    /// Ends every session of this user, whatever the vault; returns how many were open.
    ///
    /// ```swift
    /// let ended = try Vault.lockAllSessions()
    /// ```
    public static func lockAllSessions() throws -> Int {
        guard let folder = try SessionFolder.current(creating: false) else { return 0 }
        return folder.sockets().count { SessionClient.lock(socket: $0) }
    }
}

extension UnlockedVault {
    /// Starts a session for this vault: `agent` (jv's own binary and its hidden agent command)
    /// is started detached and handed the master key through a socket pair; it serves commands of this
    /// user for `idleTimeout` after each use and `lifetime` at most. A session already open for
    /// this vault file is ended first; a copy's (another file with the same vault id) is not.
    ///
    /// ```swift
    /// let session = try journal.startSession(agent: ["/usr/bin/jv", "session-agent"], idleTimeout: 900, lifetime: 8 * 3600)
    /// ```
    public func startSession(agent: [String], idleTimeout: TimeInterval, lifetime: TimeInterval) throws -> SessionStatus {
        guard !agent.isEmpty, let folder = try SessionFolder.current(creating: true),
              let session = try folder.session(vaultID: keys.vaultID, file: vault.path, creating: true) else {
            throw VaultError.sessionUnavailable(agent.isEmpty ? "no agent command was given" : "the session folder cannot be used")
        }
        let socket = folder.socket(for: session)
        if SessionClient.ask(.lock, session: session, socket: socket) == nil { SessionClient.removeIfAbandoned(socket) }
        let handOver = SessionWire.HandOver(session: session, keyVersion: keys.keyVersion,
                                            idleTimeout: UInt32(max(1, idleTimeout.rounded())),
                                            lifetime: UInt32(max(1, min(lifetime, SessionAgent.longestLifetime).rounded())),
                                            socketPath: socket, vaultPath: SessionID.canonicalPath(vault.path))
        try SessionClient.spawnAgent(agent, handOver: handOver, key: keys.masterKey)
        guard let status = SessionEndpoint(session: session, socket: socket).status() else {
            throw VaultError.sessionUnavailable("the agent started but does not answer at \(socket)")
        }
        return status
    }
}

extension Vault {
    /// Whether `keys` are this vault's: the row-set manifest authenticates under them (a vault
    /// from before the manifest: they open a stored record).
    func opens(with keys: VaultKeys) -> Bool {
        do {
            if try database.read({ db in try Manifest.load(db, keys: keys) }) != nil { return true }
        } catch {
            return false
        }
        return opensARecord(masterKey: keys.masterKey, keyVersion: keys.keyVersion)
    }
}
