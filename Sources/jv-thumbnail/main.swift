// SPDX-License-Identifier: Apache-2.0
import Glibc

// jv-thumbnail: looks at one file for jv, in a process of its own (README "Attachments").
//
//   jv-thumbnail describe                        < FILE   → one JSON line, then the thumbnail
//   jv-thumbnail decode --width W --height H     < JPEG   → W × H × 3 bytes of RGB
//   jv-thumbnail frame FFMPEG MEDIA-TYPE         < VIDEO  → the first frame, a PNG (ffmpeg's)
//
// Exit status: 0 done; 1 the input is not an image this program can decode (describe still
// prints the JSON line, with the media type and kind only); 2 usage or failure; for frame,
// ffmpeg's.

let arguments = Array(CommandLine.arguments.dropFirst())
guard ProcessLimits.apply(allowingExec: arguments.first == "frame") else {
    ExitStatus.fail("jv-thumbnail: could not set its resource limits.")
}

switch arguments.first {
case "frame":
    FirstFrame.run(Array(arguments.dropFirst()))
case "describe" where arguments.count == 1:
    Vips.start()
    exit(Describe.run().rawValue)
case "decode":
    guard let size = DecodeSize(arguments: Array(arguments.dropFirst())) else {
        ExitStatus.fail("jv-thumbnail decode: --width and --height take whole numbers from 1 to \(DecodeSize.maximum).")
    }
    Vips.start()
    exit(Decode.run(size).rawValue)
default:
    ExitStatus.fail("usage: jv-thumbnail describe < FILE | jv-thumbnail decode --width W --height H < JPEG | jv-thumbnail frame FFMPEG MEDIA-TYPE < VIDEO")
}
