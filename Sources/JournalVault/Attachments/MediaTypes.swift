// SPDX-License-Identifier: Apache-2.0
/// The media type of a file from its name's extension: what jv records when nothing looked
/// inside the file (no thumbnailer installed, or one that could not read it).
///
/// ```swift
/// MediaTypes.mediaType(forName: "IMG_0001.JPG")   // "image/jpeg"
/// ```
public enum MediaTypes {
    /// Files of any other extension.
    public static let unknown = "application/octet-stream"

    static let byExtension: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "heif": "image/heif", "tif": "image/tiff", "tiff": "image/tiff", "bmp": "image/bmp",
        "svg": "image/svg+xml", "avif": "image/avif",
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm", "mkv": "video/x-matroska",
        "avi": "video/x-msvideo",
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav", "ogg": "audio/ogg", "oga": "audio/ogg",
        "opus": "audio/opus", "flac": "audio/flac",
        "pdf": "application/pdf", "txt": "text/plain", "md": "text/markdown", "json": "application/json", "zip": "application/zip",
    ]

    public static func mediaType(forName name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return unknown }
        return byExtension[name[name.index(after: dot)...].lowercased()] ?? unknown
    }
}
