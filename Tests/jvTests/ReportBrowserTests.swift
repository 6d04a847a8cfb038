// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `jv report`'s page in a real browser, headless Chromium (Debian's `chromium`, which
/// `make test-deps` installs): it renders with no console message (no script error, no load
/// refused by its policy) and makes no request. Chromium resolves no name (every host maps to
/// nothing) and logs what its network stack does (`--log-net-log`): a request a page makes
/// names the page's origin as its initiator, where the browser's own background requests
/// (updates, accounts) have none — and a control page with one remote image shows that the log
/// sees such a request. The screenshot is kept as `.build/test-artifacts/report.png`, beside the page.
@Suite("jv report in a browser", .tags(.e2e, .externalTools, .slow), .notInQuickRun,
       .enabled(if: Chromium.path != nil || Chromium.inCI,
                "chromium is not installed (make test-deps installs it; in CI the test runs and fails without it)"))
struct ReportBrowserTests {
    static let artifacts = Examples.repository.appendingPathComponent(".build/test-artifacts")

    /// Runs Chromium on `page` offline, logging the console to standard error and the network
    /// to a file; returns the run and the URLs of the requests the page made.
    private func browse(_ page: String, in sandbox: Sandbox, _ arguments: [String]) throws -> (run: JVResult, requests: [String]) {
        let chromium = try #require(Chromium.path, "chromium is not installed: run make test-deps")
        let netLog = sandbox.folder.file("netlog-\(UUID().uuidString).json")
        let run = try sandbox.runTool(chromium, [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync", "--disable-default-apps",
            "--disable-background-networking", "--disable-component-update", "--user-data-dir=\(sandbox.folder.file("chromium"))",
            "--host-resolver-rules=MAP * ~NOTFOUND", "--log-net-log=\(netLog)", "--enable-logging=stderr", "--v=0",
        ] + arguments + ["file://" + page])
        return (run, try Self.pageRequests(netLog))
    }

    /// The URLs of the requests in a NetLog file that a page made: those whose initiator is an
    /// origin (a page opened from a file has the opaque origin `null`) or whose network
    /// isolation key is a file page's; the browser's own requests say "not an origin".
    private static func pageRequests(_ path: String) throws -> [String] {
        let log = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let constants = try #require(log["constants"] as? [String: Any])
        let start = try #require((constants["logEventTypes"] as? [String: Int])?["URL_REQUEST_START_JOB"])
        return (log["events"] as? [[String: Any]] ?? []).compactMap { event in
            guard event["type"] as? Int == start, let parameters = event["params"] as? [String: Any] else { return nil }
            let initiator = parameters["initiator"] as? String ?? "not an origin"
            let isolation = parameters["network_isolation_key"] as? String ?? ""
            return initiator != "not an origin" || isolation.contains("file://") ? parameters["url"] as? String ?? "?" : nil
        }
    }

    /// The console's lines in Chromium's log (`…:INFO:CONSOLE:…] "message", source: …`).
    private static func consoleLines(_ result: JVResult) -> [String] {
        result.err.split(separator: "\n").map(String.init).filter { $0.contains(":CONSOLE") || $0.contains("Uncaught") }
    }

    @Test("the demo year renders with no console message and no request; the screenshot is kept")
    func rendersOffline() throws {
        let sandbox = try Sandbox()
        try sandbox.installEmptyVault()
        let document = try sandbox.folder.write("demo.json", DemoJournal.document())
        try sandbox.ok(["import", "--format", "json", document])
        try attachPhotos(sandbox)
        let report = sandbox.folder.file("report.html")
        try sandbox.ok(["report", "--year", "2026", "--output", report])
        let html = try String(contentsOfFile: report, encoding: .utf8)
        #expect(html.components(separatedBy: "<img src=\"data:image/jpeg;base64,").count == 7, "the six photos' thumbnails are in the page")

        // The control: a page with a remote image makes a request the log shows.
        let control = try sandbox.folder.write("control.html", "<!DOCTYPE html><p>control</p><img src=\"http://report-control.invalid/x.png\">")
        let controlRun = try browse(control, in: sandbox, ["--dump-dom"])
        #expect(controlRun.run.status == 0 && controlRun.run.out.contains("control"), "\(controlRun.run)")
        #expect(controlRun.requests == ["http://report-control.invalid/x.png"], "the check below would prove nothing: \(controlRun.requests)")

        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
        let screenshot = Self.artifacts.appendingPathComponent("report.png").path
        try? FileManager.default.removeItem(atPath: screenshot)
        // The page beside it, made from invented entries only, to look at whole.
        try? FileManager.default.removeItem(at: Self.artifacts.appendingPathComponent("report.html"))
        try FileManager.default.copyItem(atPath: report, toPath: Self.artifacts.appendingPathComponent("report.html").path)
        let shot = try browse(report, in: sandbox, ["--screenshot=\(screenshot)", "--window-size=1200,2400", "--hide-scrollbars"])
        let dom = try browse(report, in: sandbox, ["--dump-dom"])
        #expect(shot.run.status == 0 && dom.run.status == 0, "\(shot.run)\n\(dom.run)")
        #expect(shot.requests.isEmpty && dom.requests.isEmpty, "the report made requests: \(shot.requests + dom.requests)")
        #expect(Self.consoleLines(shot.run).isEmpty && Self.consoleLines(dom.run).isEmpty, "\(Self.consoleLines(shot.run) + Self.consoleLines(dom.run))")
        // The parsed page: every section, its charts as SVG, nothing a script added.
        for id in ["calendar", "words", "entries-per-month", "weeks", "sentiment", "tags", "people", "on-this-day", "starred", "photos"] {
            #expect(dom.run.out.contains("<section id=\"\(id)\">"), "\(id)")
        }
        let charts = dom.run.out.components(separatedBy: "<svg ").count - 1
        #expect(charts == 7 && !dom.run.out.contains("<script"), "\(charts) charts: calendar, words, entries, weeks, sentiment, tags, people")
        let size = (try FileManager.default.attributesOfItem(atPath: screenshot)[.size] as? Int) ?? 0
        #expect(size > 20_000, "the screenshot is \(size) bytes")
        print("jv report screenshot: \(screenshot)")
    }

    /// Six photos on entries of the demo year, drawn by libvips' vips command when it is there
    /// (soft colour bands), else the small grey JPEG of the attachment tests; jv-thumbnail makes
    /// their thumbnails as `jv attach` stores them.
    private func attachPhotos(_ sandbox: Sandbox) throws {
        for (index, month) in ["02", "04", "05", "07", "08", "10"].enumerated() {
            let entry = try #require(sandbox.list(["--on", "2026-\(month)", "-n", "1"]).first?["id"] as? String)
            let photo = sandbox.folder.file("photo-\(month).jpg")
            if let vips = JV.tool("vips") {
                let wave = sandbox.folder.file("wave-\(month).v"), bytes = sandbox.folder.file("bytes-\(month).v")
                let colours = sandbox.folder.file("colours-\(month).v")
                // Soft colours: the false-colour bands halved and lightened.
                for arguments in [["sines", wave, "320", "220", "--hfreq", "\(0.5 + Double(index) * 0.4)", "--vfreq", "\(1 + index % 3)"],
                                  ["linear", wave, bytes, "\(100 + index * 5)", "128", "--uchar"], ["falsecolour", bytes, colours],
                                  ["linear", colours, photo, "0.45", "120", "--uchar"]] {
                    try #require(try sandbox.runTool(vips, arguments).status == 0, "vips \(arguments)")
                }
            } else {
                try ExifImages.jpeg(taken: "2026:\(month):10 12:00:00", latitude: 46.5, longitude: 7.9, seed: UInt8(index))
                    .write(to: URL(fileURLWithPath: photo))
            }
            try sandbox.ok(["attach", entry, photo])
        }
    }
}

/// Where Debian's chromium is, and whether its absence fails the test rather than skips it.
private enum Chromium {
    static let path = JV.tool("chromium")
    /// CI runs with CI=true, after `make test` installed the test packages: there a missing
    /// browser is a failure, not a skip.
    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"
}
