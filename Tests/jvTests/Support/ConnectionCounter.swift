// SPDX-License-Identifier: Apache-2.0
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP port on 127.0.0.1 that accepts connections and closes them at once, counting them: a
/// browser told to use it as its proxy for everything reaches nothing else, so the count is
/// every request a page made. It stops by itself after `lifetime`, or when stopped.
final class ConnectionCounter: @unchecked Sendable {
    let port: Int
    private let socket: Int32
    private let lock = NSLock()
    private var accepted = 0
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    init(lifetime: TimeInterval = 180) throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && listen(socket, 16) == 0
                && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else {
            close(socket)
            throw HarnessError("cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        self.socket = socket
        port = Int(UInt16(bigEndian: address.sin_port))
        let deadline = Date().addingTimeInterval(lifetime)
        Thread.detachNewThread { [self] in
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            while !isStopped, Date() < deadline {
                guard poll(&poller, 1, 100) > 0 else { continue }
                let connection = accept(socket, nil, nil)
                if connection >= 0 {
                    close(connection)
                    lock.withLock { accepted += 1 }
                }
            }
            close(socket)
            done.signal()
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// The connections accepted so far.
    var count: Int { lock.withLock { accepted } }

    /// Stops accepting and closes the port; returns the count.
    func stop() -> Int {
        lock.withLock { stopped = true }
        done.wait()
        return count
    }
}
