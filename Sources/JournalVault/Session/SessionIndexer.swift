// SPDX-License-Identifier: Apache-2.0
import CAgentMemory
import Dispatch
import Foundation
import GRDB
import Synchronization
import VaultCrypto

/// The session agent's search index (SECURITY.md "Sessions"): a ``SearchIndex`` in the agent's
/// memory, and the figures `jv stats` reads (``SessionFigures``), built on a thread of its own
/// from the vault opened read-only with the session's key, and brought up to date before every
/// answer. The serving loop hands it questions with their connections and nudges, and keeps
/// answering key, status and lock requests meanwhile.
///
/// Current at every answer: the vault's `PRAGMA data_version` on the index's own connection
/// (and the file at the path, which `jv restore` replaces) tells whether anything changed since
/// the last look; if so, each kind's stored fingerprints (``SearchDocumentSource``: a read of
/// plaintext columns and nonces, nothing decrypted) are compared with the index's, and only new
/// or changed records are decrypted, vanished ones removed. A key version other than the
/// session's, or a key that no longer opens the vault, ends the session (``endDescriptor``).
final class SessionIndexer: Sendable {
    private enum Job: Sendable {
        case question(SessionWire.Question, connection: Int32, prefix: [UInt8])
        case refresh
    }

    private struct Shared: Sendable {
        var status = SessionIndexStatus(state: .building, documents: 0, bytes: 0, lockedBytes: 0)
        var searches = 0
        var statsAnswered = 0
        /// The first build is over (whether or not it succeeded): queries go to the thread.
        var built = false
        var jobs: [Job] = []
        var stopping = false
    }

    private let vaultPath: String
    private let keyVersion: UInt32
    private let key: SecureBytes
    private let shared = Mutex(Shared())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// Readable once the session must end; the serving loop polls it.
    let endDescriptor: Int32
    private let endWriter: Int32

    /// Nil when the pipe to the serving loop cannot be made (errno says why).
    init?(handOver: SessionWire.HandOver, key: SecureBytes) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        endDescriptor = ends[0]
        endWriter = ends[1]
        vaultPath = handOver.vaultPath
        keyVersion = handOver.keyVersion
        self.key = key
    }

    var status: SessionIndexStatus {
        shared.withLock { shared in
            var status = shared.status
            status.searches = shared.searches
            status.statsAnswered = shared.statsAnswered
            return status
        }
    }

    /// Whether queries go to the index thread (its first build is over); until then they are
    /// answered "not ready" at once, and commands scan.
    var isReady: Bool { shared.withLock { $0.built } }

    func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        // Half of glibc's default (RLIMIT_STACK, 8 MiB): where the limit allows, every page of
        // a stack is made resident and locked (``jv_lock_memory``).
        thread.stackSize = 4 << 20
        thread.start()
    }

    /// Answers `question` on `connection` (closing it) after bringing the index and figures up
    /// to date, the answer's fixed part `prefix` first. False when the thread is ending (the
    /// caller answers).
    func answer(_ question: SessionWire.Question, on connection: Int32, prefix: [UInt8]) -> Bool {
        enqueue(.question(question, connection: connection, prefix: prefix))
    }

    /// Schedules a look at the vault, so that the next query rarely pays for it.
    func nudge() {
        _ = enqueue(.refresh)
    }

    /// Asks the thread to end, dropping the index (SQLite wipes every block it frees), and waits
    /// for it a moment: a build under way is not waited for, the process's end takes it.
    func stop() {
        shared.withLock { $0.stopping = true }
        wake.signal()
        _ = finished.wait(timeout: .now() + 2)
    }

    @discardableResult
    private func enqueue(_ job: Job) -> Bool {
        let taken = shared.withLock { shared -> Bool in
            guard !shared.stopping else { return false }
            if case .refresh = job, shared.jobs.contains(where: { if case .refresh = $0 { true } else { false } }) { return true }
            shared.jobs.append(job)
            return true
        }
        if taken { wake.signal() }
        return taken
    }

    private func nextJob() -> Job? {
        while true {
            let (job, stopping) = shared.withLock { shared -> (Job?, Bool) in
                guard !shared.stopping else { return (nil, true) }
                return (shared.jobs.isEmpty ? nil : shared.jobs.removeFirst(), false)
            }
            if stopping { return nil }
            if let job { return job }
            wake.wait()
        }
    }

    /// What a look at the vault found.
    private enum Outcome {
        /// The index holds what the vault holds, as it did before the look.
        case current
        /// The index was brought up to what the vault holds: its status is to be published.
        case updated
        /// The vault could not be read as a whole: queries are answered "not ready" (commands
        /// scan, and meet what stopped the index) and the next look tries again.
        case notCurrent
        /// The key no longer opens the vault: the session ends.
        case ended
    }

    private func run() {
        guard let index = try? SearchIndex() else {
            publish(state: .unavailable, index: nil, built: true)
            return
        }
        let figures = SessionFigures()
        // The first build at the lowest priority, on a thread of its own (this one keeps its
        // priority for the queries after): until it is over, queries are answered "not ready"
        // and nobody waits for it, while the person who unlocked goes on with jv.
        // The status is published here, at this thread's priority: locking the index's memory
        // holds the process's memory map, which the serving thread needs too.
        var (outcome, source) = ThreadPriority.runInBackground { [self] () -> (Outcome, SessionIndexSource?) in
            var source: SessionIndexSource?
            return (refresh(index, figures, &source), source)
        }
        publish(outcome, index)
        shared.withLock { $0.built = true }
        while outcome != .ended, let job = nextJob() {
            switch job {
            case .refresh:
                outcome = refresh(index, figures, &source)
                publish(outcome, index)
            case let .question(question, connection, prefix):
                outcome = refresh(index, figures, &source)
                publish(outcome, index)
                let current = outcome == .current || outcome == .updated
                _ = SessionWire.writeFully(connection, prefix + (current ? answer(question, index, figures) : SessionWire.notReadyAnswer))
                close(connection)
            }
        }
        for job in shared.withLock({ $0.jobs }) {
            if case let .question(_, connection, _) = job { close(connection) }
        }
        source?.retire()
    }

    /// The answer's bytes, from an index and figures that are current; each answer with hits or
    /// figures is counted.
    private func answer(_ question: SessionWire.Question, _ index: SearchIndex, _ figures: SessionFigures) -> [UInt8] {
        switch question {
        case .search(let query):
            let answer = Self.answer(query, index)
            if case .hits = answer { shared.withLock { $0.searches += 1 } }
            return answer.bytes
        case .stats(let query):
            shared.withLock { $0.statsAnswered += 1 }
            return SessionWire.StatsAnswer.stats(figures.stats(query)).bytes
        case .zones(let period):
            return SessionWire.ZonesAnswer.spans(figures.spansZones(period)).bytes
        }
    }

    private static func answer(_ query: SessionWire.Query, _ index: SearchIndex) -> SessionWire.QueryAnswer {
        guard let hits = try? index.hits(query.query, kinds: query.kinds, ranked: query.ranked) else { return .refused }
        return .hits(hits)
    }

    /// Brings `index` up to date with the vault at the session's path, opening it (again, when
    /// `jv restore` replaced the file) as needed.
    private func refresh(_ index: SearchIndex, _ figures: SessionFigures, _ source: inout SessionIndexSource?) -> Outcome {
        do {
            if source?.fileWasReplaced ?? true {
                source?.retire()
                source = nil
                source = try SessionIndexSource.open(vaultPath, key: key, keyVersion: keyVersion)
            }
            guard let opened = source else {
                endSession()
                return .ended
            }
            switch try opened.update(index, figures) {
            case .unchanged: return .current
            case .keyDoesNotOpen:
                endSession()
                return .ended
            case .updated: return .updated
            }
        } catch {
            return .notCurrent
        }
    }

    /// Makes what a look found known to the serving loop: an index brought up to date has its
    /// memory locked (as far as the limit allows) and is ready; one that could not be is not.
    private func publish(_ outcome: Outcome, _ index: SearchIndex) {
        switch outcome {
        case .updated: publish(state: .ready, index: index, lockedBytes: jv_lock_memory())
        case .notCurrent: publish(state: .unavailable, index: index)
        case .current, .ended: break
        }
    }

    private func publish(state: SessionIndexStatus.State, index: SearchIndex?, lockedBytes: Int? = nil, built: Bool? = nil) {
        let locked = lockedBytes ?? jv_locked_bytes()
        let status = SessionIndexStatus(state: state, documents: index?.documentCount ?? 0, bytes: index?.memoryBytes ?? 0,
                                        lockedBytes: max(0, locked))
        shared.withLock {
            $0.status = status
            if let built { $0.built = built }
        }
    }

    private func endSession() {
        publish(state: .unavailable, index: nil)
        var byte: UInt8 = 1
        _ = write(endWriter, &byte, 1)
    }
}
