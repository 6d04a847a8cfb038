import CProcessHygiene
import Foundation
import VaultCrypto

extension Vault {
    /// This vault unlocked with the key of an open session (`jv unlock`), without a passphrase;
    /// nil when no session is open for it, or the session's key no longer opens it (after
    /// `jv rekey`, or a file replaced by another vault with the same id), which is then ended.
    ///
    /// ```swift
    /// let vault = try Vault.open(at: path, access: .readOnly)
    /// let journal = try vault.unlockThroughSession() ?? vault.unlock(passphrase: secret)
    /// ```
    public func unlockThroughSession() throws -> UnlockedVault? {
        let header = try header()
        guard let folder = try SessionFolder.current(creating: false),
              let reply = SessionClient.ask(.key, vaultID: header.vaultID, socket: folder.socket(for: header.vaultID)),
              let key = reply.key else { return nil }
        guard reply.answer.keyVersion == header.keyVersion, isMasterKey(key, keyVersion: header.keyVersion) else {
            _ = try? lockSession()
            return nil
        }
        return try unlock(masterKey: key)
    }

    /// The open session of this vault, if any.
    public func session() throws -> SessionStatus? {
        let vaultID = try header().vaultID
        guard let folder = try SessionFolder.current(creating: false) else { return nil }
        return SessionClient.ask(.status, vaultID: vaultID, socket: folder.socket(for: vaultID))?.answer.status
    }

    /// Ends this vault's session: the agent wipes the key and exits. False when none was open.
    @discardableResult
    public func lockSession() throws -> Bool {
        let vaultID = try header().vaultID
        guard let folder = try SessionFolder.current(creating: false) else { return false }
        return SessionClient.ask(.lock, vaultID: vaultID, socket: folder.socket(for: vaultID)) != nil
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
    /// is started detached and handed the master key through a pipe; it serves commands of this
    /// user for `idleTimeout` after each use and `lifetime` at most. A session already open for
    /// this vault is ended first.
    ///
    /// ```swift
    /// let session = try journal.startSession(agent: ["/usr/bin/jv", "session-agent"], idleTimeout: 900, lifetime: 8 * 3600)
    /// ```
    public func startSession(agent: [String], idleTimeout: TimeInterval, lifetime: TimeInterval) throws -> SessionStatus {
        precondition(!agent.isEmpty, "the agent command names an executable")
        let folder = try SessionFolder.current(creating: true)!
        let socket = folder.socket(for: keys.vaultID)
        if SessionClient.ask(.lock, vaultID: keys.vaultID, socket: socket) == nil { SessionClient.removeIfAbandoned(socket) }
        let handOver = SessionWire.HandOver(vaultID: keys.vaultID, keyVersion: keys.keyVersion,
                                            idleTimeout: UInt32(max(1, idleTimeout.rounded())),
                                            lifetime: UInt32(max(1, min(lifetime, SessionAgent.longestLifetime).rounded())),
                                            socketPath: socket)
        try SessionClient.spawnAgent(agent, handOver: handOver, key: keys.masterKey)
        guard let status = SessionClient.ask(.status, vaultID: keys.vaultID, socket: socket)?.answer.status else {
            throw VaultError.sessionUnavailable("the agent started but does not answer at \(socket)")
        }
        return status
    }
}

extension Vault {
    /// Whether `masterKey` is this vault's: the row-set manifest authenticates under it (a
    /// vault from before the manifest: it opens a stored record).
    fileprivate func isMasterKey(_ masterKey: SecureBytes, keyVersion: UInt32) -> Bool {
        guard let header = try? header(),
              let keys = try? VaultKeys(vaultID: header.vaultID, keyVersion: keyVersion, masterKey: masterKey) else { return false }
        do {
            if try database.read({ db in try Manifest.load(db, keys: keys) }) != nil { return true }
        } catch {
            return false
        }
        return opensARecord(masterKey: masterKey, keyVersion: keyVersion)
    }
}
