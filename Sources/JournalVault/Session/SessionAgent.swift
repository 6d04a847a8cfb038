// SPDX-License-Identifier: Apache-2.0
import CAgentMemory
import CProcessHygiene
import Foundation
import VaultCrypto

/// The session agent: a small process that holds one vault file's master key in locked memory and
/// gives it to commands of the same user until the session ends. It also holds the vault's search
/// index, in its memory only (``SessionIndexer``): it opens the vault read-only to build it and
/// keep it current, and writes nothing but its socket. `jv unlock` starts it through ``UnlockedVault/startSession(agent:idleTimeout:lifetime:)``,
/// which runs jv's hidden agent command, which calls ``run()``.
public enum SessionAgent {
    /// Sessions last at most this long after `jv unlock`, however much they are used.
    public static let longestLifetime: TimeInterval = 8 * 3600

    /// Serves the key handed over on standard input until the idle timeout, the lifetime, a
    /// lock request, a signal, or the removal of its socket; then wipes the key, removes the
    /// socket and returns the exit status. Reports "ready" (or why not) on standard output.
    public static func run() -> Int32 {
        // Before SQLite's first use in this process, which fixes its allocator for good.
        guard jv_sqlite_wipe_on_free() == 0 else {
            report("error: SQLite was in use before the agent could set its allocator")
            return 1
        }
        guard let handOver = SessionWire.HandOver.read(from: STDIN_FILENO), let key = SessionWire.readKey(from: STDIN_FILENO) else {
            report("error: the hand-over from jv unlock was incomplete")
            return 1
        }
        let signals = jv_signal_pipe()
        let listener = jv_unix_listen(handOver.socketPath)
        guard signals >= 0, listener >= 0 else {
            report("error: cannot listen at \(handOver.socketPath) (\(String(cString: strerror(errno))))")
            return 1
        }
        guard let indexer = SessionIndexer(handOver: handOver, key: key) else {
            close(listener)
            unlink(handOver.socketPath)
            report("error: cannot make the agent's index thread (\(String(cString: strerror(errno))))")
            return 1
        }
        var agent = Agent(handOver: handOver, key: key, listener: listener, indexer: indexer)
        chdir("/")
        report("ready")
        redirectStandardStreamsToNull()
        indexer.start()
        agent.serve(signals: signals)
        agent.end()
        indexer.stop()
        return 0
    }

    private static func report(_ line: String) {
        _ = SessionWire.writeFully(STDOUT_FILENO, Array((line + "\n").utf8))
    }

    /// After "ready" nothing is read or printed: standard streams point nowhere, so the agent
    /// holds no pipe or terminal of the command that started it.
    private static func redirectStandardStreamsToNull() {
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { return }
        for stream in [STDIN_FILENO, STDOUT_FILENO] { dup2(null, stream) }
        close(null)
    }
}

/// The agent's state while it serves.
private struct Agent {
    let handOver: SessionWire.HandOver
    let key: SecureBytes
    let listener: Int32
    let indexer: SessionIndexer
    /// The socket file as bound: a socket put in its place by anyone else is never removed.
    let socketIdentity: (device: UInt64, inode: UInt64)?
    let started: TimeInterval
    var lastUse: TimeInterval
    var locked = false

    init(handOver: SessionWire.HandOver, key: SecureBytes, listener: Int32, indexer: SessionIndexer) {
        self.handOver = handOver
        self.key = key
        self.listener = listener
        self.indexer = indexer
        socketIdentity = Self.identity(of: handOver.socketPath)
        started = Self.now()
        lastUse = started
    }

    /// Seconds on the boot clock, which keeps counting while the machine sleeps: a laptop
    /// closed for an hour comes back with its 15-minute session over.
    static func now() -> TimeInterval {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1e9
    }

    var deadline: TimeInterval {
        min(lastUse + TimeInterval(handOver.idleTimeout), started + TimeInterval(handOver.lifetime))
    }

    /// How often the agent checks that its socket is still there (a logout removes the folder).
    static let socketCheckInterval: TimeInterval = 5

    mutating func serve(signals: Int32) {
        while !locked {
            let remaining = deadline - Self.now()
            guard remaining > 0 else { return }
            var descriptors = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: signals, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: indexer.endDescriptor, events: Int16(POLLIN), revents: 0)]
            let waited = poll(&descriptors, 3, Int32(min(remaining, Self.socketCheckInterval) * 1000) + 1)
            if waited < 0, errno != EINTR { return }
            // A signal, or the index thread found that the key no longer opens the vault.
            if descriptors[1].revents != 0 || descriptors[2].revents != 0 { return }
            if descriptors[0].revents & Int16(POLLIN) != 0 { answerOneConnection() }
            guard socketIsOurs else { return }
        }
    }

    /// Serves one request. The peer's uid comes from the kernel (SO_PEERCRED); a process of any
    /// other user is disconnected before a byte is read. A question the index and figures can
    /// answer goes to the index thread with its connection, so this loop never waits for one.
    private mutating func answerOneConnection() {
        let connection = jv_unix_accept(listener, 1000)
        guard connection >= 0 else { return }
        var handedOn = false
        defer { if !handedOn { close(connection) } }
        var uid: UInt32 = 0
        var pid: Int32 = 0
        guard jv_peer_credentials(connection, &uid, &pid) == 0, uid == getuid(),
              let request = SessionWire.readRequest({ SessionWire.readBytes(connection, count: $0) }) else { return }
        let served = request.session == handOver.session
        if served, request.kind == .key { lastUse = Self.now() }
        if served, request.kind == .lock { locked = true }
        let answer = SessionWire.Answer(served: served, status: status, keyVersion: handOver.keyVersion)
        guard served else {
            _ = SessionWire.writeFully(connection, answer.bytes)
            return
        }
        switch request.kind {
        case .key:
            guard SessionWire.writeFully(connection, answer.bytes) else { return }
            _ = key.withUnsafeBytes { SessionWire.writeFully(connection, $0) }
        case .indexStatus:
            _ = SessionWire.writeFully(connection, answer.bytes + SessionWire.IndexStatus(indexer.status).bytes)
        case .nudge:
            indexer.nudge()
            _ = SessionWire.writeFully(connection, answer.bytes)
        case .query, .stats, .zones:
            handedOn = indexer.isReady && request.question.map { indexer.answer($0, on: connection, prefix: answer.bytes) } == true
            if !handedOn { _ = SessionWire.writeFully(connection, answer.bytes + SessionWire.notReadyAnswer) }
        case .status, .lock:
            _ = SessionWire.writeFully(connection, answer.bytes)
        }
    }

    private var status: SessionStatus {
        let wallNow = Date()
        let bootNow = Self.now()
        return SessionStatus(agentPID: getpid(), expiresAt: wallNow.addingTimeInterval(deadline - bootNow),
                             endsAt: wallNow.addingTimeInterval(started + TimeInterval(handOver.lifetime) - bootNow),
                             idleTimeout: TimeInterval(handOver.idleTimeout))
    }

    private var socketIsOurs: Bool {
        guard let bound = socketIdentity, let current = Self.identity(of: handOver.socketPath) else { return false }
        return bound == current
    }

    private static func identity(of path: String) -> (device: UInt64, inode: UInt64)? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return (UInt64(status.st_dev), UInt64(status.st_ino))
    }

    /// Removes the socket if it is still the one this agent bound. The key is wiped when the
    /// last reference to it goes (SecureBytes zeroes and frees its locked pages).
    func end() {
        close(listener)
        if socketIsOurs { unlink(handOver.socketPath) }
        // The outcome of the session's background check (`Vault.sessionCheckFile()`) ends with it.
        unlink(handOver.socketPath + ".checked")
    }
}
