// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Runs a local analyser command (``Analyser``) or chat command (``ChatResponder``): `/bin/sh -c
/// COMMAND` in its own process group, the input written to its standard input (through a socket
/// pair, never a file), its standard output collected, the whole group killed if it outlives the
/// timeout. Standard error passes through to ours so the user sees the command's own complaints.
/// (A process that leaves the group with `setsid` is beyond the library's reach: a program that
/// has no other children, as `jv analyze` and `jv chat ask`, makes itself their subreaper and
/// ends them.)
enum AnalyserProcess {
    /// Answers larger than this are refused (a command printing without end).
    static let maximumOutput = 16 << 20

    enum Failure: Error, Equatable {
        case couldNotStart(String)
        case exited(Int32)
        case killedBySignal(Int32)
        case timedOut(seconds: Double)
        case outputTooLarge

        /// What went wrong, to follow "the analyser" or "the chat command": "exited with status 3".
        var reason: String {
            switch self {
            case .couldNotStart(let reason): "could not be started (\(reason))"
            case .exited(let status): "exited with status \(status)"
            case .killedBySignal(let signal): "was killed by signal \(signal)"
            case .timedOut(let seconds): "gave no answer within \(Self.spoken(seconds)) and was stopped"
            case .outputTooLarge: "printed more than \(AnalyserProcess.maximumOutput >> 20) MiB"
            }
        }

        /// "1 second", "30 seconds", "0.5 seconds".
        static func spoken(_ seconds: Double) -> String {
            if seconds == 1 { return "1 second" }
            if seconds == seconds.rounded() { return "\(Int(seconds)) seconds" }
            return "\((seconds * 1000).rounded() / 1000) seconds"
        }
    }

    /// `duration` in seconds, fractions kept (a timeout of 0.5 s is not "0 seconds").
    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func run(command: String, input: [UInt8], timeout: Duration) throws(Failure) -> [UInt8] {
        var stdinPair: [Int32] = [-1, -1]
        var stdoutPipe: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &stdinPair) == 0 else {
            throw .couldNotStart(String(cString: strerror(errno)))
        }
        guard pipe(&stdoutPipe) == 0, fcntl(stdoutPipe[0], F_SETFD, FD_CLOEXEC) == 0,
              fcntl(stdoutPipe[1], F_SETFD, FD_CLOEXEC) == 0 else {
            close(stdinPair[0]); close(stdinPair[1])
            throw .couldNotStart(String(cString: strerror(errno)))
        }
        let pid: pid_t
        do {
            pid = try spawn(command: command, stdin: stdinPair[1], stdout: stdoutPipe[1])
        } catch {
            [stdinPair[0], stdinPair[1], stdoutPipe[0], stdoutPipe[1]].forEach { close($0) }
            throw error
        }
        close(stdinPair[1])
        close(stdoutPipe[1])
        defer { close(stdoutPipe[0]) }

        var output: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        let failure = pump(input: input, to: stdinPair[0], from: stdoutPipe[0], into: &output, deadline: deadline, timeout: timeout)
        close(stdinPair[0])
        // An analyser may close its output and go on running: the deadline covers its exit too.
        let termination = failure == nil ? Termination(waitingFor: pid, until: deadline) : nil
        guard let termination else {
            kill(-pid, SIGKILL)
            _ = Termination(waitingFor: pid)
            throw failure ?? .timedOut(seconds: Self.seconds(timeout))
        }
        switch termination {
        case .signalled(let signal): throw .killedBySignal(signal)
        case .exited(let code) where code != 0: throw .exited(code)
        case .exited: return output
        }
    }

    /// Writes `input` and reads the answer until end of output, without blocking on either, so a
    /// large entry cannot deadlock against a large answer. Returns the failure, if any.
    /// The socket is shut down for writing when the input is written, and closed by the caller.
    private static func pump(input: [UInt8], to inputSocket: Int32, from outputPipe: Int32,
                             into output: inout [UInt8], deadline: ContinuousClock.Instant, timeout: Duration) -> Failure? {
        _ = fcntl(inputSocket, F_SETFL, fcntl(inputSocket, F_GETFL) | O_NONBLOCK)
        _ = fcntl(outputPipe, F_SETFL, fcntl(outputPipe, F_GETFL) | O_NONBLOCK)
        var inputOpen = true
        var written = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        if input.isEmpty { shutdown(inputSocket, Int32(SHUT_WR)) }
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return .timedOut(seconds: Self.seconds(timeout)) }
            var fds = [pollfd(fd: outputPipe, events: Int16(POLLIN), revents: 0)]
            let writing = written < input.count && inputOpen
            if writing { fds.append(pollfd(fd: inputSocket, events: Int16(POLLOUT), revents: 0)) }
            let milliseconds = Int32(min(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1, 1000))
            if poll(&fds, nfds_t(fds.count), milliseconds) < 0 && errno != EINTR { return .couldNotStart(String(cString: strerror(errno))) }
            if writing, fds.count > 1, fds[1].revents != 0 {
                let count = input[written...].withUnsafeBytes { send(inputSocket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count > 0 { written += count }
                if count < 0 && errno != EAGAIN && errno != EINTR { written = input.count }  // it stopped reading; fine
                if written >= input.count {
                    shutdown(inputSocket, Int32(SHUT_WR))
                    inputOpen = false
                }
            }
            if fds[0].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(outputPipe, $0.baseAddress, $0.count) }
                if count == 0 { return nil }
                if count > 0 {
                    output += buffer[0..<count]
                    if output.count > maximumOutput { return .outputTooLarge }
                } else if errno != EAGAIN && errno != EINTR {
                    return nil
                }
            }
        }
    }

    private static func spawn(command: String, stdin: Int32, stdout: Int32) throws(Failure) -> pid_t {
        // Its own process group, so a timeout kills the shell and everything it started.
        do {
            return try ShellCommand(command).spawn(standardInput: stdin, standardOutput: stdout, ownProcessGroup: true)
        } catch {
            throw .couldNotStart(error.reason)
        }
    }
}
