// SPDX-License-Identifier: Apache-2.0
import CVips
import Glibc

/// libvips, started for one untrusted file: one thread of work, no operation cache, and only
/// the loaders of the formats jv makes thumbnails of — JPEG, PNG, WebP, GIF, TIFF and HEIF
/// (HEIC, and AVIF where libheif decodes it). Everything else libvips can load (SVG, FITS,
/// Matlab, raw, JPEG 2000, PPM…, most of them marked untrusted by libvips itself) is blocked,
/// so a file cannot reach those decoders whatever its bytes; the modules of the others
/// (ImageMagick, PDF, OpenSlide, JPEG XL) are not loaded at all.
enum Vips {
    static let allowedLoaders = [
        "VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadWebp",
        "VipsForeignLoadNsgif", "VipsForeignLoadTiff", "VipsForeignLoadHeif",
    ]

    /// Starts libvips so; exits with a failure if it cannot start.
    static func start() {
        // At start libvips loads every module of its module folder — on Debian those of
        // ImageMagick, poppler, OpenSlide, JPEG XL and HEIF, with their dozens of libraries
        // (30 ms of processor, more of disk). Pointed at a prefix that holds nothing
        // (`$VIPSHOME/lib/vips-modules-…`), it loads none, and the HEIF one is loaded by name:
        // the other decoders are not even in the process.
        setenv("VIPSHOME", "/dev/null", 1)
        guard jv_vips_init("jv-thumbnail") == 0 else { ExitStatus.fail("jv-thumbnail: libvips could not start.") }
        if let folder = libraryFolder() { _ = jv_vips_load_module(folder, "vips-heif") }
        // ORC, libvips' code generator, writes its machine code to a file it maps executable:
        // none here (the sandbox would refuse the file anyway), plain C loops instead.
        vips_vector_set_enabled(0)
        vips_concurrency_set(1)
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        vips_cache_set_max_files(0)
        vips_block_untrusted_set(1)
        vips_operation_block_set("VipsForeignLoad", 1)
        for loader in allowedLoaders { vips_operation_block_set(loader, 0) }
    }

    /// The folder libvips was loaded from, as the process's memory map names it.
    private static func libraryFolder() -> String? {
        guard let file = fopen("/proc/self/maps", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), file) != nil {
            var text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasSuffix("\n") { text.removeLast() }
            guard let slash = text.firstIndex(of: "/") else { continue }
            let path = text[slash...]
            if let name = path.split(separator: "/").last, name.hasPrefix("libvips.so") {
                return path.lastIndex(of: "/").map { String(path[..<$0]) }
            }
        }
        return nil
    }

    /// Standard input as a libvips source: the file itself when it is one (read in place,
    /// seeking as the loader needs), else a pipe read as far as needed.
    static func standardInput() -> UnsafeMutablePointer<VipsSource> {
        guard let source = vips_source_new_from_descriptor(STDIN_FILENO) else {
            ExitStatus.fail("jv-thumbnail: standard input cannot be read.")
        }
        return source
    }

    /// Releases a libvips object.
    static func release<Object>(_ object: UnsafeMutablePointer<Object>?) {
        if let object { g_object_unref(object) }
    }
}
