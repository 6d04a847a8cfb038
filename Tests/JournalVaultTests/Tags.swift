// SPDX-License-Identifier: Apache-2.0
import Testing

// The tags of JournalVaultTests' suites (jvTests declares its own, with the same meanings).
extension Tag {
    /// Needs a program from outside the project that `make test-deps` installs (here libvips'
    /// `vips` command, which draws the test images).
    @Tag static var externalTools: Self
}
