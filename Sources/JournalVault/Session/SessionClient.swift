// SPDX-License-Identifier: Apache-2.0
import CProcessHygiene
import Foundation
import VaultCrypto

/// The command's side of the session protocol (``SessionWire``).
enum SessionClient {
    struct Reply {
        let answer: SessionWire.Answer
        /// The master key, for a key request.
        let key: SecureBytes?
    }

    /// How long a command waits for an agent before going on without it.
    static let timeoutMilliseconds: Int32 = 2000

    /// Asks the agent at `socket`; nil when none answers for `session`. An agent that is not
    /// this user's process is never asked (the kernel's SO_PEERCRED, checked both ways), and a
    /// socket a killed agent left is removed.
    static func ask(_ kind: SessionWire.Request, session: SessionID, socket: String) -> Reply? {
        exchange(SessionWire.request(kind, session: session), socket: socket) { connection, answer in
            guard kind == .key else { return Reply(answer: answer, key: nil) }
            return SessionWire.readKey(from: connection).map { Reply(answer: answer, key: $0) }
        }
    }

    /// The agent's status with its index's; nil when none answers for `session` (or one from
    /// before the index, which does not know the request).
    static func indexStatus(session: SessionID, socket: String) -> SessionStatus? {
        exchange(SessionWire.request(.indexStatus, session: session), socket: socket) { connection, answer in
            // An agent of an earlier jv ends its answer before the stats count.
            guard let known = SessionWire.readBytes(connection, count: SessionWire.IndexStatus.lengthBeforeStats),
                  let index = SessionWire.IndexStatus(bytes: known + (SessionWire.readBytes(connection, count: 8) ?? [])) else { return nil }
            var status = answer.status
            status.index = index.index
            return status
        }
    }

    /// How long a search waits for the agent, which brings its index up to date first (after an
    /// import, that is decrypting what it brought).
    static let queryTimeoutMilliseconds: Int32 = 10_000

    /// The agent's answer to `query`; nil when none answers for `session`.
    static func query(_ query: SessionWire.Query, session: SessionID, socket: String) -> SessionWire.QueryAnswer? {
        guard let request = SessionWire.request(query, session: session) else { return nil }
        return exchange(request, socket: socket, timeout: queryTimeoutMilliseconds) { connection, _ in
            SessionWire.QueryAnswer.read { SessionWire.readBytes(connection, count: $0) }
        }
    }

    /// The agent's answer to `query`; nil when none answers for `session`. It waits as long as a
    /// search: the agent brings its figures up to date first, as its index.
    static func stats(_ query: SessionWire.StatsQuery, session: SessionID, socket: String) -> SessionWire.StatsAnswer? {
        exchange(SessionWire.request(query, session: session), socket: socket, timeout: queryTimeoutMilliseconds) { connection, _ in
            SessionWire.StatsAnswer.read { SessionWire.readBytes(connection, count: $0) }
        }
    }

    /// The agent's answer to whether a period's entries span UTC offsets; nil when none answers
    /// for `session`.
    static func zones(of period: SessionWire.Period, session: SessionID, socket: String) -> SessionWire.ZonesAnswer? {
        exchange(SessionWire.request(zonesOf: period, session: session), socket: socket, timeout: queryTimeoutMilliseconds) { connection, _ in
            SessionWire.ZonesAnswer.read { SessionWire.readBytes(connection, count: $0) }
        }
    }

    /// How long a write waits to tell the agent: a moment, since the next search looks anyway.
    static let nudgeTimeoutMilliseconds: Int32 = 250

    /// Tells the agent that this vault was written, so that it brings its index up to date.
    static func nudge(session: SessionID, socket: String) {
        _ = exchange(SessionWire.request(.nudge, session: session), socket: socket, timeout: nudgeTimeoutMilliseconds) { _, answer in answer }
    }

    /// Sends `request` to the agent at `socket` and reads the fixed answer, then the rest with
    /// `rest`; nil when no agent of this user answers for the request's session.
    private static func exchange<Result>(_ request: [UInt8], socket: String, timeout: Int32 = timeoutMilliseconds,
                                         _ rest: (Int32, SessionWire.Answer) -> Result?) -> Result? {
        let connection = jv_unix_connect(socket, timeout)
        guard connection >= 0 else {
            if errno == ECONNREFUSED { removeIfAbandoned(socket) }
            return nil
        }
        defer { close(connection) }
        var uid: UInt32 = 0
        var pid: Int32 = 0
        guard jv_peer_credentials(connection, &uid, &pid) == 0, uid == getuid(), SessionWire.writeFully(connection, request),
              let answer = SessionWire.readBytes(connection, count: SessionWire.answerLength).flatMap(SessionWire.Answer.init(bytes:)),
              answer.served else { return nil }
        return rest(connection, answer)
    }

    /// Ends the session whose socket is `socket` (named by its session id); false when none was open.
    static func lock(socket: String) -> Bool {
        guard let session = SessionID(socketName: (socket as NSString).lastPathComponent) else { return false }
        return ask(.lock, session: session, socket: socket) != nil
    }

    /// Removes `socket` when no agent listens there any more (a killed agent's).
    static func removeIfAbandoned(_ socket: String) {
        var status = stat()
        guard lstat(socket, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK, status.st_uid == getuid() else { return }
        let probe = jv_unix_connect(socket, timeoutMilliseconds)
        if probe >= 0 {
            close(probe)
        } else if errno == ECONNREFUSED {
            unlink(socket)
        }
    }

    /// Starts the agent `command` detached, hands it `handOver` and `key` through a socket pair
    /// (kernel memory only) and waits for it to report that it listens.
    static func spawnAgent(_ command: [String], handOver: SessionWire.HandOver, key: SecureBytes) throws {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw VaultError.sessionUnavailable("cannot make a channel to the agent (\(String(cString: strerror(errno))))")
        }
        defer { close(ends[0]) }
        let arguments = command.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        let pid = jv_spawn_detached(command[0], arguments, ends[1], ends[1])
        let spawnError = errno
        close(ends[1])
        guard pid > 0 else {
            throw VaultError.sessionUnavailable("cannot start the agent \(command[0]) (\(String(cString: strerror(spawnError))))")
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(ends[0], SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(ends[0], SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard SessionWire.writeFully(ends[0], handOver.bytes), key.withUnsafeBytes({ SessionWire.writeFully(ends[0], $0) }) else {
            throw VaultError.sessionUnavailable("the agent stopped before it was given the key")
        }
        shutdown(ends[0], Int32(SHUT_WR))
        let report = readLine(ends[0])
        guard report == "ready" else {
            kill(pid, SIGKILL)
            let reason = report.map { $0.hasPrefix("error: ") ? String($0.dropFirst(7)) : $0 } ?? "the agent did not start"
            throw VaultError.sessionUnavailable(reason)
        }
    }

    /// One short line (at most 512 bytes) from `descriptor`, without its newline; nil at end of file.
    private static func readLine(_ descriptor: Int32) -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count < 512 {
            let count = read(descriptor, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { break }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
    }
}
