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
        _ = jv_vips_load_module("vips-heif")
        vips_concurrency_set(1)
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        vips_cache_set_max_files(0)
        vips_block_untrusted_set(1)
        vips_operation_block_set("VipsForeignLoad", 1)
        for loader in allowedLoaders { vips_operation_block_set(loader, 0) }
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
