// SPDX-License-Identifier: Apache-2.0
import Foundation
import VaultCrypto

/// The bytes between `jv` and its session agent (SECURITY.md "Sessions", FORMAT.md §13). Both
/// ends are the same jv binary on the same machine, so the layout carries a version tag but no
/// negotiation.
///
/// Hand-over, `jv unlock` → agent, through a socket pair (never a file): `JVH3`, session id (16,
/// ``SessionID``), key version u32, idle timeout u32 s, lifetime u32 s, socket path and vault path
/// (each u16 length, UTF-8), then the master key (32). Request, client → agent: `JVS2`, kind (1:
/// `K`ey, `S`tatus, `L`ock, `I`ndex status, `N`udge, `Q`uery, s`T`ats, `Z`ones), session id (16),
/// then for a query its ranked flag u8, kinds u8 (a bit per ``SearchKind``), text length u32 and
/// text, for stats and zones a period (``Period``). Answer:
/// `JVS2`, result (1: 0 served, 1 another session's agent), agent pid u32, expires-at and ends-at
/// (u64 ms since 1970), idle timeout u32 s, key version u32, then for a served key request the
/// master key (32), for an index status request ``IndexStatus``, for a query ``QueryAnswer``, for
/// stats ``StatsAnswer``, for zones ``ZonesAnswer``.
/// Integers are big-endian.
enum SessionWire {
    enum Request: UInt8 {
        case key = 0x4B, status = 0x53, lock = 0x4C, indexStatus = 0x49, nudge = 0x4E, query = 0x51, stats = 0x54, zones = 0x5A
    }

    static let requestLength = 4 + 1 + SessionID.length
    static let answerLength = 4 + 1 + 4 + 8 + 8 + 4 + 4
    static let keyLength = SubkeyDerivation.keyLength
    private static let sessionTag = Array("JVS2".utf8)
    private static let handOverTag = Array("JVH3".utf8)

    static func request(_ kind: Request, session: SessionID) -> [UInt8] {
        var writer = ByteWriter(capacity: requestLength)
        writer.raw(sessionTag)
        writer.u8(kind.rawValue)
        writer.raw(session.bytes)
        return writer.bytes
    }

    static func parseRequest(_ bytes: [UInt8]) -> (kind: Request, session: SessionID)? {
        var reader = ByteReader(bytes)
        guard reader.raw(4) == sessionTag, let kind = reader.u8().flatMap(Request.init),
              let session = reader.raw(SessionID.length).flatMap(SessionID.init(bytes:)) else { return nil }
        return (kind, session)
    }

    /// The rest of an answer that carries a result (`Q`, `T`): result u8 (0: the payload is the
    /// answer; 1: the index is not built yet; 2: refused) ‖ payload length u32 ‖ the payload,
    /// empty for 1 and 2.
    static func resultAnswer(_ result: UInt8, payload: [UInt8] = []) -> [UInt8] {
        var writer = ByteWriter(capacity: 5 + payload.count)
        writer.u8(result)
        writer.u32(UInt32(payload.count))
        writer.raw(payload)
        return writer.bytes
    }

    /// The answer of an agent whose index is not built yet, whatever was asked.
    static let notReadyAnswer = resultAnswer(1)

    /// Reads an answer of ``resultAnswer(_:payload:)``'s form, `read(n)` giving the next n bytes;
    /// nil when its result is unknown, 1 or 2 come with a payload, or result 0's payload is
    /// shorter than `shortest` or longer than `longest` bytes.
    static func readResultAnswer(_ read: (Int) -> [UInt8]?, shortest: Int, longest: Int) -> (result: UInt8, payload: [UInt8])? {
        guard let header = read(5) else { return nil }
        var reader = ByteReader(header)
        guard let result = reader.u8(), result <= 2, let length = reader.u32().map(Int.init) else { return nil }
        guard result == 0 else { return length == 0 ? (result, []) : nil }
        guard length >= shortest, length <= longest, let payload = read(length) else { return nil }
        return (result, payload)
    }

    /// An answer's fixed part: whether the agent serves that vault, its status and key version.
    struct Answer: Equatable {
        var served: Bool
        var status: SessionStatus
        var keyVersion: UInt32

        var bytes: [UInt8] {
            var writer = ByteWriter(capacity: SessionWire.answerLength)
            writer.raw(sessionTag)
            writer.u8(served ? 0 : 1)
            writer.u32(UInt32(bitPattern: status.agentPID))
            writer.u64(UInt64(max(0, status.expiresAt.timeIntervalSince1970 * 1000)))
            writer.u64(UInt64(max(0, status.endsAt.timeIntervalSince1970 * 1000)))
            writer.u32(UInt32(status.idleTimeout))
            writer.u32(keyVersion)
            return writer.bytes
        }

        init(served: Bool, status: SessionStatus, keyVersion: UInt32) {
            self.served = served
            self.status = status
            self.keyVersion = keyVersion
        }

        init?(bytes: [UInt8]) {
            var reader = ByteReader(bytes)
            guard reader.raw(4) == sessionTag, let result = reader.u8(), result <= 1, let pid = reader.u32(),
                  let expires = reader.u64(), let ends = reader.u64(), let idle = reader.u32(), let keyVersion = reader.u32() else { return nil }
            served = result == 0
            status = SessionStatus(agentPID: Int32(bitPattern: pid), expiresAt: Date(timeIntervalSince1970: Double(expires) / 1000),
                                   endsAt: Date(timeIntervalSince1970: Double(ends) / 1000), idleTimeout: TimeInterval(idle))
            self.keyVersion = keyVersion
        }
    }

    /// What `jv unlock` gives its agent, but the key.
    struct HandOver: Equatable {
        var session: SessionID
        var keyVersion: UInt32
        var idleTimeout: UInt32
        var lifetime: UInt32
        var socketPath: String
        /// The vault file the agent indexes (its canonical path: the one the session id names).
        var vaultPath: String

        var bytes: [UInt8] {
            var writer = ByteWriter()
            writer.raw(handOverTag)
            writer.raw(session.bytes)
            writer.u32(keyVersion)
            writer.u32(idleTimeout)
            writer.u32(lifetime)
            for path in [socketPath, vaultPath] {
                writer.u16(UInt16(path.utf8.count))
                writer.raw(path.utf8)
            }
            return writer.bytes
        }

        /// Reads the hand-over's fixed part and path from `descriptor`.
        static func read(from descriptor: Int32) -> HandOver? {
            let fixedLength = 4 + SessionID.length + 4 + 4 + 4 + 2
            guard let fixed = readBytes(descriptor, count: fixedLength) else { return nil }
            var reader = ByteReader(fixed)
            guard reader.raw(4) == handOverTag, let session = reader.raw(SessionID.length).flatMap(SessionID.init(bytes:)), let keyVersion = reader.u32(), let idle = reader.u32(),
                  let lifetime = reader.u32(), let pathLength = reader.u16(),
                  let path = readBytes(descriptor, count: Int(pathLength)),
                  let vaultPathLength = readBytes(descriptor, count: 2).flatMap({ bytes -> UInt16? in
                      var reader = ByteReader(bytes)
                      return reader.u16()
                  }),
                  let vaultPath = readBytes(descriptor, count: Int(vaultPathLength)) else { return nil }
            return HandOver(session: session, keyVersion: keyVersion, idleTimeout: idle, lifetime: lifetime,
                            socketPath: String(decoding: path, as: UTF8.self), vaultPath: String(decoding: vaultPath, as: UTF8.self))
        }
    }

    /// The master key, read from `descriptor` straight into secure memory.
    static func readKey(from descriptor: Int32) -> SecureBytes? {
        var complete = false
        let key = try? SecureBytes.filling(count: keyLength) { buffer in complete = readFully(descriptor, into: buffer) }
        return complete ? key : nil
    }

    static func readBytes(_ descriptor: Int32, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        return bytes.withUnsafeMutableBytes { readFully(descriptor, into: $0) } ? bytes : nil
    }

    /// Reads exactly `buffer.count` bytes (false at end of file, on an error or a timeout).
    static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        var done = 0
        while done < buffer.count {
            let count = Glibc.read(descriptor, buffer.baseAddress! + done, buffer.count - done)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }

    /// Writes all of `buffer` to the socket `descriptor` (false on an error or a timeout; a
    /// peer that went away is an error, never a SIGPIPE).
    static func writeFully(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < buffer.count {
            let count = send(descriptor, buffer.baseAddress! + done, buffer.count - done, Int32(MSG_NOSIGNAL))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }

    static func writeFully(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { writeFully(descriptor, $0) }
    }
}
