// SPDX-License-Identifier: Apache-2.0

/// What a file is, recognised from its first bytes (never from its name): the media type jv
/// records and the kind `jv attachments --type` filters on. Images are recognised here too, so
/// that a file that looks like an image and cannot be decoded is still called one.
struct MediaType: Equatable {
    enum Kind: String {
        case image, video, audio, other
    }

    let name: String
    let kind: Kind

    /// How many leading bytes `init(recognising:)` looks at.
    static let headLength = 64

    static let unknown = MediaType(name: "application/octet-stream", kind: .other)

    init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }

    /// The type whose signature `head` (the file's first bytes, up to ``headLength``) starts
    /// with, or ``unknown``.
    init(recognising head: [UInt8]) {
        self = MediaType.signatures.first { $0.matches(head) }?.type ?? MediaType.isoBaseMedia(head) ?? .unknown
    }

    /// A signature: bytes expected at an offset (nil bytes match anything).
    private struct Signature {
        let pattern: [UInt8?]
        let offset: Int
        let type: MediaType

        init(_ pattern: String, at offset: Int = 0, _ name: String, _ kind: Kind) {
            self.pattern = pattern.unicodeScalars.map { $0 == "?" ? nil : UInt8($0.value) }
            self.offset = offset
            self.type = MediaType(name: name, kind: kind)
        }

        init(bytes: [UInt8], _ name: String, _ kind: Kind) {
            self.pattern = bytes
            self.offset = 0
            self.type = MediaType(name: name, kind: kind)
        }

        func matches(_ head: [UInt8]) -> Bool {
            guard head.count >= offset + pattern.count else { return false }
            return zip(pattern, head[offset...]).allSatisfy { expected, byte in expected.map { $0 == byte } ?? true }
        }
    }

    // The common signatures (WHATWG MIME Sniffing, and each format's specification).
    private static let signatures: [Signature] = [
        Signature(bytes: [0xFF, 0xD8, 0xFF], "image/jpeg", .image),
        Signature(bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "image/png", .image),
        Signature("GIF87a", "image/gif", .image),
        Signature("GIF89a", "image/gif", .image),
        Signature("RIFF????WEBPVP", "image/webp", .image),
        Signature(bytes: [0x49, 0x49, 0x2A, 0x00], "image/tiff", .image),
        Signature(bytes: [0x4D, 0x4D, 0x00, 0x2A], "image/tiff", .image),
        Signature("BM", "image/bmp", .image),
        Signature("%PDF-", "application/pdf", .other),
        Signature("RIFF????WAVE", "audio/wav", .audio),
        Signature("RIFF????AVI ", "video/x-msvideo", .video),
        Signature("FORM????AIFF", "audio/aiff", .audio),
        Signature("fLaC", "audio/flac", .audio),
        Signature("OggS", "audio/ogg", .audio),
        Signature("ID3", "audio/mpeg", .audio),
        Signature("#!AMR", "audio/amr", .audio),
        Signature(bytes: [0x1A, 0x45, 0xDF, 0xA3], "video/webm", .video),
        Signature(bytes: [0xFF, 0xFB], "audio/mpeg", .audio),
        Signature(bytes: [0xFF, 0xF3], "audio/mpeg", .audio),
        Signature(bytes: [0xFF, 0xF2], "audio/mpeg", .audio),
        Signature(bytes: [0xFF, 0xF1], "audio/aac", .audio),
        Signature(bytes: [0xFF, 0xF9], "audio/aac", .audio),
        Signature(bytes: [0x00, 0x00, 0x01, 0xBA], "video/mpeg", .video),
    ]

    /// ISO base media files (MP4, QuickTime, HEIF, AVIF, M4A, 3GP) start with an `ftyp` box
    /// whose major brand says which.
    private static func isoBaseMedia(_ head: [UInt8]) -> MediaType? {
        guard head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) else { return nil }
        let brand = String(decoding: head[8..<12], as: UTF8.self)
        switch brand {
        case "heic", "heix", "heim", "heis", "hevc", "hevx": return MediaType(name: "image/heic", kind: .image)
        case "mif1", "msf1": return MediaType(name: "image/heif", kind: .image)
        case "avif", "avis": return MediaType(name: "image/avif", kind: .image)
        case "qt  ": return MediaType(name: "video/quicktime", kind: .video)
        case "M4A ", "M4B ", "M4P ": return MediaType(name: "audio/mp4", kind: .audio)
        default:
            return brand.hasPrefix("3g") ? MediaType(name: "video/3gpp", kind: .video) : MediaType(name: "video/mp4", kind: .video)
        }
    }
}
