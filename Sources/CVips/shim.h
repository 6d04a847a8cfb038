// SPDX-License-Identifier: Apache-2.0
#ifndef JOURNALVAULT_CVIPS_SHIM_H
#define JOURNALVAULT_CVIPS_SHIM_H
#include <stdio.h>
#include <vips/vips.h>
#include <vips/vector.h>

// libvips' operations take their optional arguments as a NULL-terminated variadic list, which
// Swift cannot call: these fixed-argument wrappers name the options jv-thumbnail uses.

/// A thumbnail of `source` fitting inside width × height (enlarged to fit only when `enlarge`),
/// turned upright by its EXIF orientation, shrunk while loading where the format allows (JPEG's
/// DCT scaling, the largest fitting page of a HEIF or pyramidal TIFF); a truncated or damaged
/// file fails. (libvips 8.14's thumbnail_source does not hand its own `fail_on` to the loader:
/// the loader's option string does.)
static inline int jv_vips_thumbnail(VipsSource *source, VipsImage **out, int width, int height, int enlarge) {
    return vips_thumbnail_source(source, out, width, "height", height,
                                 "size", enlarge ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN,
                                 "option_string", "fail_on=error", NULL);
}

/// The image's header only (pixels are decoded later, if ever, top to bottom).
static inline VipsImage *jv_vips_header(VipsSource *source) {
    return vips_image_new_from_source(source, "", "access", VIPS_ACCESS_SEQUENTIAL,
                                      "fail_on", VIPS_FAIL_ON_ERROR, NULL);
}

/// `in` as 8-bit sRGB with exactly three bands: alpha flattened onto `grey` (0…255), grey
/// images repeated into three bands.
static inline int jv_vips_rgb(VipsImage *in, VipsImage **out, double grey) {
    VipsImage *srgb = NULL, *flat = NULL, *cast = NULL;
    int status = vips_colourspace(in, &srgb, VIPS_INTERPRETATION_sRGB, NULL);
    if (status == 0) {
        if (vips_image_hasalpha(srgb)) {
            double background[3] = {grey, grey, grey};
            VipsArrayDouble *array = vips_array_double_new(background, 3);
            status = vips_flatten(srgb, &flat, "background", array, NULL);
            vips_area_unref(VIPS_AREA(array));
        } else {
            flat = srgb;
            g_object_ref(flat);
        }
    }
    if (status == 0) status = vips_cast_uchar(flat, &cast, NULL);
    if (status == 0) {
        if (cast->Bands >= 3) {
            status = vips_extract_band(cast, out, 0, "n", 3, NULL);
        } else {
            VipsImage *bands[3] = {cast, cast, cast};
            status = vips_bandjoin(bands, out, 3, NULL);
        }
    }
    if (srgb) g_object_unref(srgb);
    if (flat) g_object_unref(flat);
    if (cast) g_object_unref(cast);
    return status;
}

/// `in` as a baseline JPEG of quality `quality`, without any metadata (no EXIF, no ICC, no XMP).
static inline int jv_vips_jpeg(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, NULL);
}

/// `in` centred in a width × height canvas filled with black.
static inline int jv_vips_letterbox(VipsImage *in, VipsImage **out, int width, int height) {
    return vips_gravity(in, out, VIPS_COMPASS_DIRECTION_CENTRE, width, height,
                        "extend", VIPS_EXTEND_BLACK, NULL);
}

/// vips_init (VIPS_INIT is a macro Swift cannot call).
static inline int jv_vips_init(const char *argv0) { return VIPS_INIT(argv0); }

/// Loads the one libvips module named `name` (such as "vips-heif") from libvips' module folder
/// `folder/vips-modules-MAJOR.MINOR/`, where `folder` holds libvips itself. Returns 0, or -1
/// when it is not there.
static inline int jv_vips_load_module(const char *folder, const char *name) {
    char path[4096];
    int length = snprintf(path, sizeof path, "%s/vips-modules-%d.%d/%s.so", folder, vips_version(0), vips_version(1), name);
    if (length < 0 || (size_t)length >= sizeof path) return -1;
    return g_module_open(path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL) ? 0 : -1;
}

#endif
