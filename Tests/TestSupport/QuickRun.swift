// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Whether this is the quick run (`JV_TEST_QUICK=1`, which `make test-fast` sets): each test
/// target's `.notInQuickRun` condition leaves its `.slow` tests out of it, saying why.
public enum QuickRun {
    public static let isOn = ProcessInfo.processInfo.environment["JV_TEST_QUICK"] == "1"
    /// The reason the runner reports for each test left out.
    public static let reason = "slow: left out of the quick run (JV_TEST_QUICK=1, make test-fast)"
}
