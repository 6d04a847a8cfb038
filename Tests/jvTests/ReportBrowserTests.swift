// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// `jv report`'s page in a real browser, headless Chromium (Debian's `chromium`, which
/// `make test-deps` installs): it renders with no console message (no script error, no load
/// refused by its policy) and makes no request — the browser's only way out is a proxy on
/// 127.0.0.1 that counts connections, and a control page with one remote image shows that the
/// count sees a request. The screenshot is kept as `.build/test-artifacts/report.png`.
@Suite("jv report in a browser", .tags(.e2e, .externalTools, .slow), .notInQuickRun,
       .enabled(if: Chromium.path != nil || Chromium.inCI,
                "chromium is not installed (make test-deps installs it; in CI the test runs and fails without it)"))
struct ReportBrowserTests {
    static let artifacts = Examples.repository.appendingPathComponent(".build/test-artifacts")

    /// Runs Chromium on `page` with every request sent to `proxy`, logging the console to standard error.
    private func browse(_ page: String, proxy: ConnectionCounter, in sandbox: Sandbox, _ arguments: [String]) throws -> JVResult {
        let chromium = try #require(Chromium.path, "chromium is not installed: run make test-deps")
        return try sandbox.runTool(chromium, [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync", "--disable-default-apps",
            "--disable-background-networking", "--disable-component-update", "--user-data-dir=\(sandbox.folder.file("chromium"))",
            "--proxy-server=http://127.0.0.1:\(proxy.port)", "--proxy-bypass-list=<-loopback>",
            "--enable-logging=stderr", "--v=0",
        ] + arguments + ["file://" + page])
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

        // The control: a page with a remote image reaches the proxy.
        let control = try sandbox.folder.write("control.html", "<!DOCTYPE html><p>control</p><img src=\"http://report-control.invalid/x.png\">")
        let controlProxy = try ConnectionCounter()
        let controlRun = try browse(control, proxy: controlProxy, in: sandbox, ["--dump-dom"])
        #expect(controlRun.status == 0 && controlRun.out.contains("control"), "\(controlRun)")
        #expect(controlProxy.stop() > 0, "the proxy saw no request from the control page: the check below would prove nothing")

        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
        let screenshot = Self.artifacts.appendingPathComponent("report.png").path
        try? FileManager.default.removeItem(atPath: screenshot)
        let proxy = try ConnectionCounter()
        let shot = try browse(report, proxy: proxy, in: sandbox, ["--screenshot=\(screenshot)", "--window-size=1200,2400", "--hide-scrollbars"])
        let dom = try browse(report, proxy: proxy, in: sandbox, ["--dump-dom"])
        let requests = proxy.stop()
        #expect(shot.status == 0 && dom.status == 0, "\(shot)\n\(dom)")
        #expect(requests == 0, "the report made \(requests) requests")
        #expect(Self.consoleLines(shot).isEmpty && Self.consoleLines(dom).isEmpty, "\(Self.consoleLines(shot) + Self.consoleLines(dom))")
        // The parsed page: every section, its charts as SVG, nothing a script added.
        for id in ["calendar", "words", "entries-per-month", "weeks", "sentiment", "tags", "people", "on-this-day", "starred", "photos"] {
            #expect(dom.out.contains("<section id=\"\(id)\">"), "\(id)")
        }
        #expect(dom.out.components(separatedBy: "<svg ").count > 8 && !dom.out.contains("<script"))
        let size = (try FileManager.default.attributesOfItem(atPath: screenshot)[.size] as? Int) ?? 0
        #expect(size > 20_000, "the screenshot is \(size) bytes")
        print("jv report screenshot: \(screenshot)")
    }

    /// Six photos on entries of the demo year, drawn by libvips' vips command when it is there
    /// (colour bands), else the small grey JPEG of the attachment tests; jv-thumbnail makes
    /// their thumbnails as `jv attach` stores them.
    private func attachPhotos(_ sandbox: Sandbox) throws {
        for (index, month) in ["02", "04", "05", "07", "08", "10"].enumerated() {
            let entry = try #require(sandbox.list(["--on", "2026-\(month)", "-n", "1"]).first?["id"] as? String)
            let photo = sandbox.folder.file("photo-\(month).jpg")
            if let vips = JV.tool("vips") {
                let wave = sandbox.folder.file("wave-\(month).v"), bytes = sandbox.folder.file("bytes-\(month).v")
                for arguments in [["sines", wave, "320", "220", "--hfreq", "\(0.5 + Double(index) * 0.4)", "--vfreq", "\(1 + index % 3)"],
                                  ["linear", wave, bytes, "\(100 + index * 5)", "128", "--uchar"], ["falsecolour", bytes, photo]] {
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
