// SPDX-License-Identifier: Apache-2.0
import CProcessHygiene
import CThumbnailSandbox
import Glibc

/// The limits jv-thumbnail puts on itself before it reads a byte: an image decoder given a
/// hostile file must stay small, short and mute whatever the file makes it do — resource
/// limits, then a seccomp filter (`jv_thumbnail_confine`) that leaves it its standard
/// descriptors only. The caller (jv's `Thumbnailer`) adds a wall-time limit and a bounded read
/// of the output; these hold even when someone runs the program by hand.
enum ProcessLimits {
    /// Address space: libvips streams images through small tiles, and a 24-megapixel JPEG needs
    /// about 40 MiB; anything that wants more than this is refused by the allocator.
    static let addressSpace: rlim_t = 1 << 30
    /// Processor seconds (a loop in a decoder is ended by SIGXCPU, then SIGKILL a second later).
    static let processorSeconds: rlim_t = 10
    /// The largest file the program may write (only standard output, when it is a file): the
    /// largest `decode` answer, 4096 × 4096 × 3 bytes.
    static let outputFileSize: rlim_t = 48 << 20
    /// Open descriptors: libvips, GLib and one image need a few dozen.
    static let openFiles: rlim_t = 64

    /// Applies every limit and the filter; false if the kernel refused one (the program then
    /// does not run: a kernel without seccomp filters, or another architecture than x86-64 and
    /// AArch64, gets no thumbnails rather than an unconfined decoder). `allowingExec` leaves
    /// execve allowed, for `frame`, which becomes ffmpeg under the same limits and filter.
    static func apply(allowingExec: Bool = false) -> Bool {
        // The decoded pixels are the user's plaintext: no core file, and no ptrace or
        // /proc/PID/mem by other processes of the user (jv's own hardening).
        guard jv_harden_process() == 0 else { return false }
        let limits: [(__rlimit_resource, rlim_t, rlim_t)] = [
            (RLIMIT_AS, addressSpace, addressSpace),
            (RLIMIT_CPU, processorSeconds, processorSeconds + 1),
            (RLIMIT_FSIZE, outputFileSize, outputFileSize),
            (RLIMIT_NOFILE, openFiles, openFiles),
        ]
        for (resource, soft, hard) in limits {
            var limit = rlimit(rlim_cur: soft, rlim_max: hard)
            guard setrlimit(__rlimit_resource_t(resource.rawValue), &limit) == 0 else { return false }
        }
        // Last, since it refuses what the steps above need not: no socket, no program run, no
        // file written, created or removed, whatever a decoder is made to attempt.
        return (allowingExec ? jv_thumbnail_confine_for_exec() : jv_thumbnail_confine()) == 0
    }
}
