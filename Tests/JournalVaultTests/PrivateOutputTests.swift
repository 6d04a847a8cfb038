// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing
@testable import JournalVault

/// `PrivateOutput.write`: a file that takes its name only once complete, started on its way to
/// the disk as it grows (the final sync then has little left to wait for).
@Suite struct PrivateOutputTests {
    @Test func writebackAsksForEveryStepOnceInOrderFromTheStart() throws {
        let folder = try TemporaryFolder()
        let descriptor = open(folder.file("out.bin"), O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var writeback = PrivateOutput.Writeback(descriptor: descriptor)
        let step = Int64(PrivateOutput.Writeback.step)
        var asked: [Range<Int64>] = []
        // Pieces of 3 MiB: every step (8 MiB) passed asks for what was written since the last ask.
        for _ in 0..<10 {
            if let range = writeback.wrote(3 << 20) { asked.append(range) }
        }
        let mebibyte: Int64 = 1 << 20
        let expected: [Range<Int64>] = [0..<9 * mebibyte, 9 * mebibyte..<18 * mebibyte, 18 * mebibyte..<27 * mebibyte]
        #expect(asked == expected)
        #expect(asked.allSatisfy { $0.count >= step })
        #expect(writeback.wrote(1) == nil, "3 MiB + 1 byte since the last ask is below a step")
    }

    @Test func aLargeOutputComesOutWholeAndOnlyUnderItsName() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("large.bin")
        let piece = [UInt8]((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try PrivateOutput.write(to: path, replace: false) { put in
            for _ in 0..<20 { try piece.withUnsafeBytes(put) }
        }
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(written.count == 20 * piece.count)
        #expect(written.suffix(piece.count).elementsEqual(piece))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["large.bin"])
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try PrivateOutput.write(to: folder.file("failed.bin"), replace: false) { put in
                for _ in 0..<12 { try piece.withUnsafeBytes(put) }
                throw Stop()
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["large.bin"], "nothing left of a write that failed")
    }
}
