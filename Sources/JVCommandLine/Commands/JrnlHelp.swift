// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `jv help jrnl`: what jv reads of jrnl's command line (see `JrnlCommandLine`).
struct JrnlHelp: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jrnl",
        abstract: "What jv reads of jrnl's command line, and the jv equivalents ('jv help jrnl').",
        shouldDisplay: false)

    func run() {
        Console.out(JrnlCommandLine.mapping)
    }
}
