// SPDX-License-Identifier: Apache-2.0
import Testing
import TestSupport

// The tags of JournalVaultTests (each test target declares the ones it uses; see
// Tests/jvTests/Support/Tags.swift for what they mean and how the quick run uses them).
extension Tag {
    /// Needs a program from outside the project that `make test-deps` installs (here libvips'
    /// `vips` command, which draws the test images).
    @Tag static var externalTools: Self
    /// Takes more than about 5 s and repeats what quicker tests cover (more seeds, every byte):
    /// `make test-fast` leaves it out, `make test` runs it.
    @Tag static var slow: Self
}

extension Trait where Self == ConditionTrait {
    /// Skips a `.slow` test in a quick run (`JV_TEST_QUICK=1`), reported skipped with the reason.
    static var notInQuickRun: Self {
        .enabled(if: !QuickRun.isOn, Comment(rawValue: QuickRun.reason))
    }
}
