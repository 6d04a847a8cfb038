// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import JournalVault

/// `jv check`: verify everything.
struct Check: VaultCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Verify that every record decrypts and authenticates, and SQLite's integrity and foreign keys; list what fails.")

    @OptionGroup var options: GlobalOptions

    func execute() throws {
        Editor.noteAbandonedFiles()
        let report = try options.unlockedVault(access: .readOnly, onDamage: .report).check()
        if options.json {
            options.output.printJSON(.object([
                ("ok", .bool(report.isClean)),
                ("checked", .object(report.checked.sorted { $0.key < $1.key }.map { ($0.key, .integer(Int64($0.value))) })),
                ("problems", .strings(report.problems)),
                ("notes", .strings(report.notes)),
            ]))
        } else {
            let output = options.output
            let counts = report.checked.sorted { $0.key < $1.key }.map { Output.count($0.value, of: Vault.recordLabel(ofTable: $0.key) ?? "\($0.key) records") }.joined(separator: ", ")
            for problem in report.problems { Console.out(output.red("✗ ") + problem) }
            for note in report.notes { Console.out("• " + note) }
            Console.out(report.isClean ? output.green("✓ ") + "All good: \(counts) verified; SQLite integrity, foreign keys\(report.notes.isEmpty ? " and the row-set manifest" : "") OK."
                                       : "\(report.problems.count) problem\(report.problems.count == 1 ? "" : "s") found (\(counts) checked).")
        }
        if !report.isClean { throw ExitCode(ExitStatus.badData.rawValue) }
    }
}
