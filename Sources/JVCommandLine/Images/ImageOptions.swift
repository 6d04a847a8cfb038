// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// `--images`/`--no-images`, for the commands that show images.
struct ImageOptions: ParsableArguments {
    @Flag(inversion: .prefixedNo,
          help: "Draw images on the terminal, even if the config file's 'images' is \"none\"; --no-images: never (default: when the terminal can; never into a pipe or file).")
    var images: Bool?
}
