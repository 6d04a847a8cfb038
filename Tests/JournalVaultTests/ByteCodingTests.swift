// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import JournalVault

/// ``ByteWriter`` and ``ByteReader``: big-endian fields as FORMAT.md lays them out, and a reader
/// that answers nil past the end (input from a folder others can write) instead of trapping.
@Suite struct ByteCodingTests {
    @Test func readsWhatTheWriterWrote() {
        var writer = ByteWriter()
        writer.u8(0xfe)
        writer.u16(0x1234)
        writer.u32(0x8765_4321)
        writer.u64(0x0102_0304_0506_0708)
        writer.i64(-2)
        writer.i64(.min)
        writer.u16(.max)
        #expect(writer.bytes == [0xfe, 0x12, 0x34, 0x87, 0x65, 0x43, 0x21, 1, 2, 3, 4, 5, 6, 7, 8,
                                 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff])
        var reader = ByteReader(writer.bytes)
        #expect(reader.u8() == 0xfe)
        #expect(reader.u16() == 0x1234)
        #expect(reader.u32() == 0x8765_4321)
        #expect(reader.u64() == 0x0102_0304_0506_0708)
        #expect(reader.i64() == -2)
        #expect(reader.i64() == Int64.min)
        #expect(reader.u16() == UInt16.max)
        #expect(reader.remaining == 0)
        #expect(reader.u8() == nil)
    }

    @Test func i64IsTheTwosComplementOfTheSameBytes() {
        var reader = ByteReader([0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0x01, 0x00])
        #expect(reader.i64() == Int64.max)
        #expect(reader.i64() == 256)
    }

    @Test func truncatedInputIsNilAndConsumesNothing() {
        for length in 0..<2 {
            var reader = ByteReader(Array(repeating: 0xab, count: length))
            #expect(reader.u16() == nil)
            #expect(reader.offset == 0 && reader.remaining == length)
        }
        for length in 0..<8 {
            var reader = ByteReader(Array(repeating: 0xab, count: length))
            #expect(reader.i64() == nil)
            #expect(reader.offset == 0 && reader.remaining == length)
            // What is there can still be read in smaller pieces.
            if length >= 2 { #expect(reader.u16() == 0xabab) }
        }
        var reader = ByteReader([0x00, 0x01, 0x02])
        #expect(reader.u16() == 1)
        #expect(reader.u16() == nil)
        #expect(reader.u8() == 2)
    }
}
