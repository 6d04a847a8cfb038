// SPDX-License-Identifier: Apache-2.0
import Foundation
@testable import JVCommandLine
import Testing

/// How jv chooses to draw images: on a pseudo-terminal whose other end this test plays — it
/// reads jv's questions and answers as kitty, as an xterm with sixel, as a plain VT100, or not
/// at all — and on pipes, which get nothing. The terminal's settings are as before afterwards.
@Suite("Terminal images: detection", .tags(.inProcess))
struct TerminalImageDetectionTests {
    static let environment = ["TERM": "xterm-256color", "COLORTERM": "truecolor"]

    /// What `auto` chooses on a terminal that answers `answer`, what the terminal was asked,
    /// and how long it took.
    func chosen(answering answer: String?, environment: [String: String] = environment, color: Bool = true,
                timeout: Duration = TerminalProbe.timeout) throws -> (ImageProtocol?, [UInt8], Duration) {
        let pty = try PseudoTerminal()
        let before = pty.localModes
        #expect(before & tcflag_t(ECHO | ICANON) == tcflag_t(ECHO | ICANON), "a new pseudo-terminal echoes and reads lines")
        let start = ContinuousClock.now
        let (drawing, asked) = pty.answering(answer) {
            TerminalImages.chosen(setting: .auto, flag: nil, color: color, environment: environment,
                                  input: pty.terminal, output: pty.terminal, timeout: timeout)
        }
        #expect(pty.localModes == before, "the terminal's settings are restored")
        return (drawing, asked, ContinuousClock.now - start)
    }

    @Test("kitty answers the graphics query: kitty graphics; the questions are the graphics query, XTVERSION and DA1")
    func kitty() throws {
        let (drawing, asked, _) = try chosen(answering: "\u{1B}_Gi=31;OK\u{1B}\\\u{1B}P>|kitty(0.35.2)\u{1B}\\\u{1B}[?62;c")
        #expect(drawing == .kitty)
        #expect(String(decoding: asked, as: UTF8.self) == "\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\\u{1B}[>0q\u{1B}[c")
    }

    @Test("An xterm with sixel (DA1 attribute 4): sixel")
    func sixelXterm() throws {
        let (drawing, _, _) = try chosen(answering: "\u{1B}P>|XTerm(390)\u{1B}\\\u{1B}[?63;1;2;4;6;9;15;22c")
        #expect(drawing == .sixel)
    }

    @Test("A plain VT100: half blocks in the colours the environment names, none without colour")
    func plainVT100() throws {
        #expect(try chosen(answering: "\u{1B}[?1;2c").0 == .blocks(.trueColor))
        #expect(try chosen(answering: "\u{1B}[?1;2c", environment: ["TERM": "xterm-256color"]).0 == .blocks(.palette256))
        #expect(try chosen(answering: "\u{1B}[?1;2c", environment: ["TERM": "vt100"]).0 == nil)
        #expect(try chosen(answering: "\u{1B}[?1;2c", color: false).0 == nil, "NO_COLOR and the like turn the coloured blocks off")
    }

    @Test("WezTerm by its XTVERSION answer, iTerm2 by $TERM_PROGRAM: iTerm2's inline images")
    func iTerm() throws {
        #expect(try chosen(answering: "\u{1B}P>|WezTerm 20240203-110809-5046fc22\u{1B}\\\u{1B}[?65;4;6;18;22c").0 == .iterm2)
        #expect(try chosen(answering: "\u{1B}[?62;22c", environment: ["TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"]).0 == .iterm2)
    }

    @Test("A kitty refusal and keys typed meanwhile are passed over; a terminal that answers nothing costs the timeout")
    func noAnswer() throws {
        #expect(try chosen(answering: "a\u{1B}[A\u{1B}_Gi=31;ENOTSUPPORTED:no\u{1B}\\\u{1B}[?64;4c").0 == .sixel)
        let (drawing, asked, took) = try chosen(answering: nil, timeout: .milliseconds(120))
        #expect(asked == TerminalProbe.queries)
        #expect(drawing == .blocks(.trueColor))
        #expect(took >= .milliseconds(120) && took < .seconds(2), "\(took)")
    }

    @Test("TERM=dumb and the Linux console are not asked")
    func notAsked() throws {
        let pty = try PseudoTerminal()
        for term in ["dumb", "linux"] {
            #expect(TerminalImages.chosen(setting: .auto, flag: nil, color: true, environment: ["TERM": term],
                                          input: pty.terminal, output: pty.terminal) == nil)
        }
        var waiting = pollfd(fd: pty.screen, events: Int16(POLLIN), revents: 0)
        #expect(poll(&waiting, 1, 50) == 0, "nothing was written to the terminal")
    }

    @Test("A setting or flag chooses without asking; --no-images and a pipe get nothing, whatever the setting")
    func settingsAndPipes() throws {
        let pty = try PseudoTerminal()
        func chosen(_ setting: ImageMode, flag: Bool? = nil, environment: [String: String] = Self.environment,
                    output: Int32? = nil) -> ImageProtocol? {
            TerminalImages.chosen(setting: setting, flag: flag, color: true, environment: environment,
                                  input: pty.terminal, output: output ?? pty.terminal, timeout: .milliseconds(50))
        }
        #expect(chosen(.kitty) == .kitty)
        #expect(chosen(.iterm2) == .iterm2)
        #expect(chosen(.sixel) == .sixel)
        #expect(chosen(.blocks) == .blocks(.trueColor))
        #expect(chosen(.blocks, environment: ["TERM": "xterm"]) == .blocks(.palette256))
        #expect(chosen(.none) == nil)
        #expect(chosen(.kitty, flag: false) == nil)
        var waiting = pollfd(fd: pty.screen, events: Int16(POLLIN), revents: 0)
        #expect(poll(&waiting, 1, 50) == 0, "nothing was asked")

        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        for setting in ImageMode.allCases {
            #expect(chosen(setting, flag: true, output: ends[1]) == nil, "\(setting) into a pipe")
        }
        #expect(TerminalProbe.ask(input: ends[0], output: ends[1]) == nil)
        #expect(TerminalProbe.ask(input: pty.terminal, output: ends[1]) == nil)
        _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
        var byte: UInt8 = 0
        #expect(read(ends[0], &byte, 1) == -1 && errno == EAGAIN, "not a byte went into the pipe")
    }

    @Test("--images turns a setting of none into auto, and draws half blocks even where colours are off")
    func imagesFlag() throws {
        let pty = try PseudoTerminal()
        let (drawing, _) = pty.answering("\u{1B}[?1;2c") {
            TerminalImages.chosen(setting: .none, flag: true, color: false, environment: Self.environment,
                                  input: pty.terminal, output: pty.terminal)
        }
        #expect(drawing == .blocks(.trueColor))
    }

    @Test("Answers are read as far as they have come, whatever else is among them")
    func answers() {
        func read(_ text: String) -> TerminalAnswers { TerminalAnswers(parsing: Array(text.utf8)) }
        #expect(read("\u{1B}_Gi=31;OK\u{1B}\\") == TerminalAnswers(kittyGraphics: true))
        #expect(!read("\u{1B}_Gi=31;OK\u{1B}\\").complete)
        #expect(read("\u{1B}_Gi=7;OK\u{1B}\\").kittyGraphics == false, "an answer about another image")
        #expect(read("\u{1B}_Gi=31;OK").kittyGraphics == false, "not ended yet")
        #expect(read("\u{1B}[?62;4c").sixel && read("\u{1B}[?62;4c").complete)
        #expect(!read("\u{1B}[?4;6c").sixel, "4 as the terminal's class is no sixel")
        #expect(read("\u{1B}[?62;4").deviceAttributes == nil)
        #expect(read("x\u{1B}P>|foot(1.16.2)\u{7}\u{1B}[?62;4;22c") == TerminalAnswers(version: "foot(1.16.2)", deviceAttributes: [62, 4, 22]))
        #expect(read("\u{1B}").deviceAttributes == nil && read("") == TerminalAnswers())
    }
}
