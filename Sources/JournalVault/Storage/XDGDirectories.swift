// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The folders of the XDG Base Directory specification, the one place jv reads
/// `$XDG_CONFIG_HOME`, `$XDG_DATA_HOME`, `$XDG_STATE_HOME`, `$XDG_CACHE_HOME` and
/// `$XDG_RUNTIME_DIR`. As the specification says, a value that is not an absolute path (a
/// relative one, or an empty one) is invalid and ignored: the default is used, never a folder
/// that depends on where jv happened to be started.
///
/// ```swift
/// XDGDirectories().config + "/jv/config.toml"   // ~/.config/jv/config.toml when $XDG_CONFIG_HOME is unset
/// ```
public struct XDGDirectories: Sendable {
    private let environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// `$HOME`, else the account's home folder.
    public var home: String { environment["HOME"] ?? NSHomeDirectory() }

    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    public var config: String { absolute(environment["XDG_CONFIG_HOME"]) ?? home + "/.config" }

    /// `$XDG_DATA_HOME`, else `~/.local/share`.
    public var data: String { absolute(environment["XDG_DATA_HOME"]) ?? home + "/.local/share" }

    /// `$XDG_STATE_HOME`, else `~/.local/state`.
    public var state: String { absolute(environment["XDG_STATE_HOME"]) ?? home + "/.local/state" }

    /// `$XDG_CACHE_HOME`, else `~/.cache`.
    public var cache: String { absolute(environment["XDG_CACHE_HOME"]) ?? home + "/.cache" }

    /// `$XDG_RUNTIME_DIR`; nil when it is unset or invalid. The specification leaves the
    /// replacement to each use: `/dev/shm` for files kept in memory (``PrivateOutput``),
    /// `/tmp/jv-<uid>` for the session sockets.
    public var runtime: String? { absolute(environment["XDG_RUNTIME_DIR"]) }

    /// `value` when it is an absolute path; nil when it is missing, empty or relative.
    private func absolute(_ value: String?) -> String? {
        value.flatMap { $0.hasPrefix("/") ? $0 : nil }
    }
}
