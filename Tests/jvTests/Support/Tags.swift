// SPDX-License-Identifier: Apache-2.0
import Testing
import TestSupport

// The tags of jvTests' suites and tests (each test target declares the ones it uses). A tag on a
// suite holds for every test in it. Swift Testing 6.3 selects tests by name only (`swift test
// --filter`/`--skip`), not by tag, so what `make test-fast` leaves out is said by a condition
// that every `.slow` suite or test carries beside its tag: `.tags(.slow), .notInQuickRun`.
extension Tag {
    /// Runs the built `jv` as a separate process, as a user would: every suite of jvTests.
    @Tag static var e2e: Self
    /// Needs root (mounts a small tmpfs, or runs jv as nobody): skipped, saying so, when not root.
    @Tag static var root: Self
    /// Needs a program from outside the project that `make test-deps` installs: the sqlite3
    /// shell, rclone, groff, bash-completion, zsh, fish or jrnl 4.6 (or age, which the interop
    /// tests install themselves as root).
    @Tag static var externalTools: Self
    /// Opens network connections (to a server the test starts on 127.0.0.1): never to the
    /// internet, but a sandbox without a loopback interface fails it.
    @Tag static var network: Self
    /// Takes more than about 5 s: `make test-fast` leaves it out.
    @Tag static var slow: Self
}

extension Trait where Self == ConditionTrait {
    /// Skips a `.slow` suite or test in a quick run (`JV_TEST_QUICK=1`, which `make test-fast`
    /// sets), and the runner reports it skipped with this reason; `make test` runs it.
    static var notInQuickRun: Self {
        .enabled(if: !QuickRun.isOn, Comment(rawValue: QuickRun.reason))
    }
}
