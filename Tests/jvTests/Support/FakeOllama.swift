// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault

/// The fake Ollama server (`Tests/jvTests/Fixtures/fake_ollama.py`) for one test, on 127.0.0.1
/// on a port it chose itself: it answers `/api/generate` and `/api/chat` with ``reply`` as the
/// model's text (an error 500 while that is nil) and keeps every request it got. It is killed
/// when the value goes away, and ends by itself after `seconds` in any case.
///
/// ```swift
/// let server = try FakeOllama(in: jv, reply: "Calm, mostly.")
/// try jv.ok(["chat", "ask", "How was it?", "--command", "OLLAMA_HOST=\(server.host) …/ollama-chat.sh"])
/// server.requests()   // [{"path": "/api/chat", "body": {"model": …, "messages": […], "stream": false}}]
/// ```
final class FakeOllama {
    /// `http://127.0.0.1:PORT`, for `OLLAMA_HOST`.
    let host: String
    private let process: ChildProcess
    private let replyFile: String
    private let requestsFile: String

    init(in sandbox: Sandbox, reply: String?, seconds: Int = 60) throws {
        guard let python = JV.tool("python3") else { throw HarnessError("python3 is not installed (make test-deps installs it)") }
        let portFile = sandbox.folder.file("fake-ollama.port")
        replyFile = sandbox.folder.file("fake-ollama.reply")
        requestsFile = sandbox.folder.file("fake-ollama.requests")
        self.reply = reply
        Self.write(reply, to: replyFile)
        process = try JV.spawn(executable: python, arguments: [Examples.path("Tests/jvTests/Fixtures/fake_ollama.py"), portFile,
                                                               requestsFile, replyFile, String(seconds)],
                               environment: sandbox.environment, stdin: nil, ioFolder: sandbox.folder.file(".io"))
        var port: String?
        for _ in 0..<200 where port == nil {
            port = try? String(contentsOfFile: portFile, encoding: .utf8)
            if port == nil { usleep(50_000) }
        }
        guard let port else {
            process.kill(SIGKILL)
            throw HarnessError("the fake Ollama server did not start: \(process.wait(timeout: 5))")
        }
        host = "http://127.0.0.1:\(port)"
    }

    deinit {
        process.kill(SIGKILL)
        _ = process.wait(timeout: 5)
    }

    /// The model's answer to every request from now on; nil answers 500 "model not found".
    var reply: String? {
        didSet { Self.write(reply, to: replyFile) }
    }

    private static func write(_ reply: String?, to file: String) {
        if let reply { _ = FileManager.default.createFile(atPath: file, contents: Data(reply.utf8)) } else { unlink(file) }
    }

    /// Each request so far, `{"path", "body"}`, in the order they came.
    func requests() throws -> [JSONValue] {
        guard let data = FileManager.default.contents(atPath: requestsFile) else { return [] }
        return try data.split(separator: UInt8(ascii: "\n")).map { try JSONParser.parse(Array($0)) }
    }
}
