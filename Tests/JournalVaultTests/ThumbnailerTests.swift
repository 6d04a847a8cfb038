// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport
@testable import JournalVault

/// jv-thumbnail (built beside the test runner by `swift build --build-tests`) through the
/// library's `Thumbnailer`, on images drawn by libvips' `vips` command with EXIF blocks written
/// here byte by byte; and the program's own exit status on hostile input.
@Suite(.tags(.externalTools))
struct ThumbnailerTests {
    let folder: TemporaryFolder
    let thumbnailer: Thumbnailer

    init() throws {
        folder = try TemporaryFolder(prefix: "thumbnailer")
        thumbnailer = try #require(Thumbnailer.located(environment: [:]),
                                   "jv-thumbnail is built beside the test runner by swift build --build-tests")
        try #require(ImageMaker.available, "libvips' vips command is missing: run make test-deps")
    }

    // MARK: describe

    @Test func aJPEGWithEXIFIsDescribedTurnedUprightAndThumbnailed() throws {
        let exif = ExifBlock(orientation: 6, dateTimeOriginal: "2024:05:01 12:34:56", offsetTimeOriginal: "+02:00",
                             latitude: ("S", [(33, 1), (51, 1), (2448, 100)]), longitude: ("W", [(151, 1), (12, 1), (5508, 100)]))
        let photo = try ImageMaker(folder).jpeg(width: 600, height: 400, exif: exif)
        let details = try #require(describe(photo))
        #expect(details.media.mediaType == "image/jpeg")
        #expect(details.media.kind == .image)
        // Orientation 6 turns the picture a quarter: seen upright it is 400 wide, 600 high.
        #expect(details.media.width == 400 && details.media.height == 600)
        #expect(details.media.takenAt == "2024-05-01T12:34:56+02:00")
        let location = try #require(details.media.location)
        #expect(abs(location.latitude - -(33 + 51.0 / 60 + 24.48 / 3600)) < 1e-9)
        #expect(abs(location.longitude - -(151 + 12.0 / 60 + 55.08 / 3600)) < 1e-9)
        let thumbnail = details.thumbnail
        let size = try ImageMaker(folder).size(of: thumbnail)
        #expect(size.width == 213 && size.height == 320)
        #expect(!containsEXIF(thumbnail), "the thumbnail keeps no metadata")
    }

    @Test func aTimeWithoutOffsetStaysALocalTime() throws {
        let exif = ExifBlock(orientation: 1, dateTimeOriginal: "2019:12:31 23:59:59", offsetTimeOriginal: nil, latitude: nil, longitude: nil)
        let details = try #require(describe(try ImageMaker(folder).jpeg(width: 64, height: 48, exif: exif)))
        #expect(details.media.takenAt == "2019-12-31T23:59:59")
        #expect(details.media.location == nil)
        #expect(details.media.width == 64 && details.media.height == 48)
        // Smaller than a thumbnail: not enlarged.
        #expect(try ImageMaker(folder).size(of: details.thumbnail) == (64, 48))
    }

    @Test func aPNGIsDescribedAndThumbnailed() throws {
        let details = try #require(describe(try ImageMaker(folder).image("photo.png", width: 900, height: 300)))
        #expect(details.media.mediaType == "image/png" && details.media.kind == .image)
        #expect(details.media.width == 900 && details.media.height == 300)
        #expect(details.media.takenAt == nil && details.media.location == nil)
        #expect(try ImageMaker(folder).size(of: details.thumbnail) == (320, 107))
    }

    @Test(arguments: ["webp", "gif", "tif", "heic"])
    func theOtherFormatsAreThumbnailed(_ suffix: String) throws {
        let details = try #require(describe(try ImageMaker(folder).image("photo.\(suffix)", width: 400, height: 400)))
        #expect(details.media.kind == .image)
        #expect(details.media.width == 400 && details.media.height == 400)
        #expect(try ImageMaker(folder).size(of: details.thumbnail) == (320, 320))
    }

    @Test func aTwentyFourMegapixelJPEGIsShrunkWhileLoading() throws {
        let details = try #require(describe(try ImageMaker(folder).jpeg(width: 6000, height: 4000, exif: nil, plain: true)))
        #expect(details.media.width == 6000 && details.media.height == 4000)
        #expect(try ImageMaker(folder).size(of: details.thumbnail) == (320, 213))
    }

    @Test func theFileIsReadFromItsStartAndItsOffsetPutBack() throws {
        let photo = try ImageMaker(folder).image("photo.png", width: 50, height: 40)
        let descriptor = open(photo, O_RDONLY)
        defer { close(descriptor) }
        lseek(descriptor, 7, SEEK_SET)
        #expect(thumbnailer.describe(fileDescriptor: descriptor)?.media.width == 50)
        #expect(lseek(descriptor, 0, SEEK_CUR) == 7)
    }

    // MARK: hostile input

    @Test func garbageIsOtherWithoutThumbnailAndExitsOne() throws {
        var generator = SeededGenerator(seed: 23)
        let garbage = try folder.write("garbage", Data((0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        let details = try #require(describe(garbage))
        #expect(details == MediaDetails(media: AttachmentMedia(mediaType: "application/octet-stream", kind: .other)))
        let run = try runProgram(["describe"], input: garbage)
        #expect(run.status == 1)
        #expect(run.output == Array("{\"media_type\":\"application/octet-stream\",\"kind\":\"other\"}\n".utf8))
    }

    @Test func aTruncatedJPEGIsAnImageWithoutThumbnail() throws {
        let photo = try Data(contentsOf: URL(fileURLWithPath: try ImageMaker(folder).jpeg(width: 600, height: 400, exif: nil)))
        let truncated = try folder.write("truncated.jpg", photo.prefix(photo.count / 2))
        #expect(describe(truncated) == MediaDetails(media: AttachmentMedia(mediaType: "image/jpeg", kind: .image)))
        #expect(try runProgram(["describe"], input: truncated).status == 1)
    }

    @Test func aFileThatOnlyStartsLikeAnImageIsNotDecoded() throws {
        let lying = try folder.write("lying.png", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data("not a chunk in sight".utf8))
        #expect(describe(lying) == MediaDetails(media: AttachmentMedia(mediaType: "image/png", kind: .image)))
        #expect(try runProgram(["describe"], input: lying).status == 1)
    }

    @Test func aPNGClaimingTenGigapixelsIsRefusedUnread() throws {
        let bomb = try folder.write("bomb.png", Data(ImageMaker.png(claimingWidth: 100_000, height: 100_000)))
        let started = ContinuousClock.now
        #expect(describe(bomb) == MediaDetails(media: AttachmentMedia(mediaType: "image/png", kind: .image)))
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(try runProgram(["describe"], input: bomb).status == 1)
    }

    @Test func aRealPNGOfMoreThanTheLargestPixelCountIsNotDecoded() throws {
        // 16,100 × 16,100 black pixels: 259 million, in a 250 KB file that would decode.
        let large = try ImageMaker(folder).blackPNG(width: 16_100, height: 16_100)
        #expect(describe(large) == MediaDetails(media: AttachmentMedia(mediaType: "image/png", kind: .image)))
    }

    @Test func audioVideoAndPDFAreRecognisedByTheirFirstBytes() throws {
        let samples: [(String, [UInt8], MediaKind)] = [
            ("audio/mpeg", Array("ID3\u{4}\0\0\0\0\0\0".utf8), .audio),
            ("audio/flac", Array("fLaC\0\0\0\u{22}".utf8), .audio),
            ("video/mp4", [0, 0, 0, 0x18] + Array("ftypisom\0\0\u{2}\0".utf8), .video),
            ("video/quicktime", [0, 0, 0, 0x14] + Array("ftypqt  \0\0\0\0".utf8), .video),
            ("video/webm", [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81], .video),
            ("application/pdf", Array("%PDF-1.7\n%\u{E2}".utf8), .other),
        ]
        for (mediaType, bytes, kind) in samples {
            let file = try folder.write("sample", Data(bytes))
            #expect(describe(file) == MediaDetails(media: AttachmentMedia(mediaType: mediaType, kind: kind)), "\(mediaType)")
            #expect(try runProgram(["describe"], input: file).status == 0, "\(mediaType)")
        }
    }

    @Test func theProgramConfinesItselfBeforeReadingAByte() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: thumbnailer.executable)
        process.arguments = ["describe"]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        // It waits for its first bytes, which never come while the pipe stays open.
        let procfs = "/proc/\(process.processIdentifier)/"
        var status = ""
        for _ in 0..<500 where !status.contains("Seccomp:\t2") {
            usleep(10_000)
            status = (try? String(contentsOfFile: procfs + "status", encoding: .utf8)) ?? ""
        }
        #expect(status.contains("Seccomp:\t2"), "a seccomp filter")
        #expect(status.contains("NoNewPrivs:\t1"))
        let limits = try String(contentsOfFile: procfs + "limits", encoding: .utf8).split(separator: "\n")
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        for expected in ["Max cpu time 10 11 seconds", "Max file size 50331648 50331648 bytes", "Max core file size 0 0 bytes",
                         "Max open files 64 64 files", "Max address space 1073741824 1073741824 bytes"] {
            #expect(limits.contains(expected), "\(expected)")
        }
    }

    // MARK: decode

    @Test func decodeFillsExactlyTheRectangleLetterboxed() throws {
        let white = try ImageMaker(folder).image("white.jpg", width: 100, height: 50, white: true)
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: white)))
        let pixels = try #require(thumbnailer.decode(jpeg: jpeg, width: 10, height: 10))
        #expect(pixels.count == 10 * 10 * 3)
        // 100 × 50 fitted into 10 × 10 is 10 × 5, centred: rows 0–1 and 7–9 are black bands.
        let row = { (index: Int) in pixels[(index * 30)..<(index * 30 + 30)] }
        #expect(row(0).allSatisfy { $0 < 16 } && row(9).allSatisfy { $0 < 16 })
        #expect(row(4).allSatisfy { $0 > 239 })
        #expect(thumbnailer.decode(jpeg: jpeg, width: 37, height: 3)?.count == 37 * 3 * 3)
    }

    @Test func decodeRefusesBadSizesAndBadImages() throws {
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try ImageMaker(folder).jpeg(width: 30, height: 20, exif: nil))))
        #expect(thumbnailer.decode(jpeg: jpeg, width: 0, height: 10) == nil)
        #expect(thumbnailer.decode(jpeg: jpeg, width: 10, height: Thumbnailer.maximumDecodeSide + 1) == nil)
        #expect(thumbnailer.decode(jpeg: Array(jpeg.prefix(jpeg.count / 2)), width: 10, height: 10) == nil)
        #expect(thumbnailer.decode(jpeg: Array("no image".utf8), width: 10, height: 10) == nil)
        #expect(try runProgram(["decode", "--width", "10"], input: "/dev/null").status == 2)
    }

    // MARK: the runner

    @Test func theThumbnailerIsFoundByVariableBesideJvOrUnderLib() throws {
        #expect(Thumbnailer.located(environment: ["JV_THUMBNAILER": folder.file("absent")]) == nil)
        #expect(Thumbnailer.located(environment: ["JV_THUMBNAILER": thumbnailer.executable])?.executable == thumbnailer.executable)
        let prefix = folder.file("prefix")
        try FileManager.default.createDirectory(atPath: prefix + "/lib/jv", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: thumbnailer.executable, toPath: prefix + "/lib/jv/jv-thumbnail")
        #expect(Thumbnailer.located(environment: [:], runningProgram: prefix + "/bin/jv")?.executable == prefix + "/lib/jv/jv-thumbnail")
        #expect(Thumbnailer.located(environment: [:], runningProgram: folder.file("elsewhere/jv")) == nil)
    }

    @Test func aLyingOverlongSlowOrFailingChildGivesNothing() throws {
        let input = try folder.write("input", Data("x".utf8))
        let scripts = [
            "printf '{\"media_type\":\"image/jpeg\",\"kind\":\"image\",\"thumbnail_bytes\":5}\\nAB'",
            "printf '{\"media_type\":\"image/jpeg\",\"kind\":\"image\",\"taken_at\":\"yesterday\"}\\n'",
            "printf '{\"media_type\":\"image/jpeg\",\"kind\":\"image\",\"location\":{\"latitude\":91,\"longitude\":0}}\\n'",
            "printf '{\"media_type\":\"image jpeg\",\"kind\":\"image\"}\\n'",
            "printf '{\"media_type\":\"image/jpeg\",\"kind\":\"image\"}\\n'; exit 2",
            "/usr/bin/head -c 2000000 /dev/zero",
            "exec /bin/sleep 30",
        ]
        for (index, script) in scripts.enumerated() {
            let program = try folder.write("child\(index)", "#!/bin/sh\n\(script)\n")
            chmod(program, 0o755)
            let started = ContinuousClock.now
            let file = open(input, O_RDONLY)
            defer { close(file) }
            #expect(Thumbnailer(executable: program, timeout: .seconds(1)).describe(fileDescriptor: file) == nil, "\(script)")
            #expect(ContinuousClock.now - started < .seconds(5))
        }
    }

    @Test func theChildGetsAnEmptyEnvironment() throws {
        try #require(ProcessInfo.processInfo.environment["HOME"] != nil)
        let program = try folder.write("child", "#!/bin/sh\n[ -z \"${HOME+set}\" ] && printf '{\"media_type\":\"text/plain\",\"kind\":\"other\"}\\n'\n")
        chmod(program, 0o755)
        let file = open(try folder.write("input", Data("x".utf8)), O_RDONLY)
        defer { close(file) }
        #expect(Thumbnailer(executable: program).describe(fileDescriptor: file) == MediaDetails(media: AttachmentMedia(mediaType: "text/plain", kind: .other)))
    }

    // MARK: helpers

    private func describe(_ path: String) -> MediaDetails? {
        let descriptor = open(path, O_RDONLY)
        defer { close(descriptor) }
        return descriptor < 0 ? nil : thumbnailer.describe(fileDescriptor: descriptor)
    }

    private func containsEXIF(_ jpeg: [UInt8]) -> Bool {
        jpeg.indices.dropLast(1).contains { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xE1 }
    }

    /// Runs jv-thumbnail itself with `input` as its standard input.
    private func runProgram(_ arguments: [String], input: String) throws -> (status: Int32, output: [UInt8]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: thumbnailer.executable)
        process.arguments = arguments
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: input))
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, [UInt8](bytes))
    }
}

/// An EXIF block (TIFF, little-endian) with the fields jv reads: orientation in IFD0, the time
/// in the EXIF IFD, the place in the GPS IFD.
struct ExifBlock {
    var orientation: UInt16
    var dateTimeOriginal: String
    var offsetTimeOriginal: String?
    var latitude: (String, [(UInt32, UInt32)])?
    var longitude: (String, [(UInt32, UInt32)])?

    private enum Value {
        case short(UInt16), long(UInt32), ascii(String), rationals([(UInt32, UInt32)])

        var type: UInt16 {
            switch self {
            case .short: 3
            case .long: 4
            case .ascii: 2
            case .rationals: 5
            }
        }

        var bytes: [UInt8] {
            switch self {
            case .short(let value): ExifBlock.little(value)
            case .long(let value): ExifBlock.little(value)
            case .ascii(let text): Array(text.utf8) + [0]
            case .rationals(let parts): parts.flatMap { ExifBlock.little($0.0) + ExifBlock.little($0.1) }
            }
        }

        var count: UInt32 {
            switch self {
            case .short, .long: 1
            case .ascii(let text): UInt32(text.utf8.count + 1)
            case .rationals(let parts): UInt32(parts.count)
            }
        }
    }

    /// The APP1 segment's payload: `Exif\0\0` and the TIFF structure.
    var payload: [UInt8] {
        var exifFields: [(UInt16, Value)] = [(0x9003, .ascii(dateTimeOriginal))]
        if let offsetTimeOriginal { exifFields.append((0x9011, .ascii(offsetTimeOriginal))) }
        var gpsFields: [(UInt16, Value)] = []
        if let latitude { gpsFields += [(1, .ascii(latitude.0)), (2, .rationals(latitude.1))] }
        if let longitude { gpsFields += [(3, .ascii(longitude.0)), (4, .rationals(longitude.1))] }
        // IFD0 holds only inline values, so its size is known before the offsets it points to.
        let mainCount = gpsFields.isEmpty ? 2 : 3
        let exifOffset = 8 + 2 + 12 * mainCount + 4
        let exif = ExifBlock.directory(exifFields, at: exifOffset)
        var mainFields: [(UInt16, Value)] = [(0x0112, .short(orientation)), (0x8769, .long(UInt32(exifOffset)))]
        var gps: [UInt8] = []
        if !gpsFields.isEmpty {
            let gpsOffset = exifOffset + exif.count
            gps = ExifBlock.directory(gpsFields, at: gpsOffset)
            mainFields.append((0x8825, .long(UInt32(gpsOffset))))
        }
        let tiff = Array("II".utf8) + ExifBlock.little(UInt16(42)) + ExifBlock.little(UInt32(8)) + ExifBlock.directory(mainFields, at: 8) + exif + gps
        return Array("Exif\0\0".utf8) + tiff
    }

    /// An IFD at `offset` followed by its values that do not fit in four bytes.
    private static func directory(_ fields: [(UInt16, Value)], at offset: Int) -> [UInt8] {
        var entries = little(UInt16(fields.count))
        var data: [UInt8] = []
        let dataStart = offset + 2 + 12 * fields.count + 4
        for (tag, value) in fields {
            entries += little(tag) + little(value.type) + little(value.count)
            let bytes = value.bytes
            if bytes.count <= 4 {
                entries += bytes + [UInt8](repeating: 0, count: 4 - bytes.count)
            } else {
                entries += little(UInt32(dataStart + data.count))
                data += bytes + (bytes.count % 2 == 1 ? [0] : [])
            }
        }
        return entries + little(UInt32(0)) + data
    }

    static func little<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
}

/// Test images drawn by libvips' `vips` command in a test's folder.
struct ImageMaker {
    static let available = access("/usr/bin/vips", X_OK) == 0 && access("/usr/bin/vipsheader", X_OK) == 0
    let folder: TemporaryFolder

    init(_ folder: TemporaryFolder) { self.folder = folder }

    /// A noisy picture (or a plain grey one) saved as `name`, whose suffix picks the format.
    func image(_ name: String, width: Int, height: Int, white: Bool = false, plain: Bool = false) throws -> String {
        let pixels = folder.file(name + ".v")
        if white || plain {
            try vips(["black", pixels, String(width), String(height)])
            if white { try vips(["linear", pixels, folder.file(name + ".w.v"), "1", "255", "--uchar"]) }
        } else {
            try vips(["gaussnoise", pixels, String(width), String(height)])
        }
        let target = folder.file(name)
        try vips(["copy", white ? folder.file(name + ".w.v") : pixels, target + (name.hasSuffix(".jpg") ? "[strip]" : "")])
        return target
    }

    /// A one-band black PNG, drawn straight into the file (no pixels held anywhere).
    func blackPNG(width: Int, height: Int) throws -> String {
        let target = folder.file("black\(width)x\(height).png")
        try vips(["black", target, String(width), String(height), "--bands", "1"])
        return target
    }

    /// A JPEG with `exif`'s APP1 segment right after its start-of-image marker.
    func jpeg(width: Int, height: Int, exif: ExifBlock?, plain: Bool = false) throws -> String {
        let path = try image("photo\(width)x\(height).jpg", width: width, height: height, plain: plain)
        guard let exif else { return path }
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let payload = exif.payload
        let segment: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        return try folder.write("exif\(width)x\(height).jpg", Data(jpeg.prefix(2) + segment + jpeg.dropFirst(2)))
    }

    /// The pixel size of an image, as `vipsheader` reads it.
    func size(of image: [UInt8]) throws -> (width: Int, height: Int) {
        let path = try folder.write("measured.jpg", Data(image))
        let width = try Int(run("vipsheader", ["-f", "width", path])) ?? -1
        let height = try Int(run("vipsheader", ["-f", "height", path])) ?? -1
        return (width, height)
    }

    /// A PNG whose header claims `width` × `height` RGB pixels and whose one IDAT holds a few
    /// stored bytes: a decompression bomb's promise, kept small.
    static func png(claimingWidth width: UInt32, height: UInt32) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return big(UInt32(data.count)) + body + big(crc32(body))
        }
        let stored: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0]
        let zlib: [UInt8] = [0x78, 0x01, 0x01, UInt8(stored.count), 0, ~UInt8(stored.count), 0xFF] + stored + big(UInt32(1 | (8 << 16)))
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", big(width) + big(height) + [8, 2, 0, 0, 0])
            + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    private static func big(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }

    private func vips(_ arguments: [String]) throws { try run("vips", arguments) }

    /// Runs `/usr/bin/<tool>` and returns its output.
    @discardableResult
    private func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ImageMakerError(command: ([tool] + arguments).joined(separator: " ")) }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

struct ImageMakerError: Error, CustomStringConvertible {
    let command: String
    var description: String { "vips failed: \(command)" }
}
