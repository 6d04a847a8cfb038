// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Where a vault's devices exchange packs (FORMAT.md §14.1): a folder that something else
/// carries between machines (Syncthing, Nextcloud, Dropbox, a USB stick), or any rclone remote
/// (`rclone:REMOTE:PATH`). Packs are immutable and every device writes only its own files, so
/// for a remote a plain `rclone copy` each way is all the exchange there is.
///
/// jv always works on a local folder laid out as the location is (``layout(vaultID:)``): the
/// location itself, or for a remote a cache under `$XDG_CACHE_HOME/jv/sync/VAULT-ID` that
/// ``fetch(vaultID:device:)`` fills and ``publish(vaultID:device:)`` copies up.
///
/// ```swift
/// let location = try SyncLocation("rclone:b2:journal")
/// try location.fetch(vaultID: id, device: me)
/// ```
public struct SyncLocation: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case folder(String)
        /// The rclone path `REMOTE:PATH` of the location.
        case rclone(String)
    }

    static let rclonePrefix = "rclone:"
    let kind: Kind

    /// As the user names it: a folder (made absolute), or `rclone:REMOTE:PATH`.
    public init(_ text: String) throws {
        if text.hasPrefix(Self.rclonePrefix) {
            let remote = String(text.dropFirst(Self.rclonePrefix.count))
            guard let colon = remote.firstIndex(of: ":"), colon != remote.startIndex else {
                throw VaultError.syncUnavailable("\(text) is not of the form rclone:REMOTE:PATH")
            }
            // rclone takes it after `--` anyway; a remote no rclone configuration can name is refused
            // here too, when set up and each time it is read back from the vault.
            guard !remote.hasPrefix("-") else {
                throw VaultError.syncUnavailable("\(text) is not an rclone location: its remote begins with '-'")
            }
            kind = .rclone(remote)
        } else {
            guard !text.isEmpty else { throw VaultError.syncUnavailable("the sync location is empty") }
            kind = .folder(URL(fileURLWithPath: text).standardizedFileURL.path)
        }
    }

    /// How it is stored in the vault and shown.
    public var description: String {
        switch kind {
        case .folder(let path): path
        case .rclone(let remote): Self.rclonePrefix + remote
        }
    }

    /// This vault's part of the location in the local folder jv works on, `…/jv-sync/VAULT-ID`
    /// (for a remote, its cache).
    func layout(vaultID: UUID) -> SyncLayout {
        switch kind {
        case .folder(let path): SyncLayout(folder: path, vaultID: vaultID)
        case .rclone: SyncLayout(root: Self.cacheFolder(vaultID: vaultID))
        }
    }

    /// Vault ids with a folder at the location (a clone finds the one it joins).
    func vaultIDs() throws -> [UUID] {
        switch kind {
        case .folder(let path):
            try checkFolder(path)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: SyncLayout.vaultsFolder(in: path))) ?? []
            return names.compactMap(UUID.init(storageText:))
        case .rclone(let remote):
            let listing = try Self.rclone("lsf", options: ["--dirs-only"], paths: [Self.join(remote, SyncLayout.vaultsFolderName)], allowMissing: true)
            return listing.split(separator: "\n").compactMap { UUID(storageText: String($0.dropLast($0.hasSuffix("/") ? 1 : 0))) }
        }
    }

    /// Brings the other devices' new files into ``layout(vaultID:)`` (for a folder: checks it is there).
    func fetch(vaultID: UUID, device: UUID?) throws {
        switch kind {
        case .folder(let path):
            try checkFolder(path)
        case .rclone(let remote):
            let cache = layout(vaultID: vaultID).root
            try VaultDatabase.createPrivateFolder(cache)
            // This device's packs are here already, but for those of a later state of its vault
            // than the one restored here, which come down like the others'. Its keys and acks
            // files are written only here: an older copy on the remote must not come back.
            _ = try Self.rclone("copy", options: SyncLayout.fetchFilters(ownFilesOf: device),
                                paths: [Self.join(remote, SyncLayout.relative(vaultID: vaultID).root), cache], allowMissing: true)
        }
    }

    /// For the first device: makes a folder location that is not there yet when the folder it
    /// goes in is (`jv sync init ~/Sync/journal` in a Syncthing folder). Later syncs never
    /// make it: a missing folder then means an unmounted disk, not a place to start afresh.
    func prepareForFirstDevice() throws {
        guard case .folder(let path) = kind, !FileManager.default.fileExists(atPath: path) else { return }
        try checkFolder((path as NSString).deletingLastPathComponent)
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw VaultError.syncUnavailable("the sync location \(path) cannot be made (\(String(cString: strerror(errno))))")
        }
    }

    /// Copies this device's new files (its packs and keys file) up to the location.
    func publish(vaultID: UUID, device: UUID) throws {
        guard case .rclone(let remote) = kind else { return }
        _ = try Self.rclone("copy", options: SyncLayout.publishFilters(device: device),
                            paths: [layout(vaultID: vaultID).root, Self.join(remote, SyncLayout.relative(vaultID: vaultID).root)], allowMissing: false)
    }

    /// The streams whose blob file is at the location (FORMAT.md §14.11): for a remote, there or
    /// in the cache waiting to go up (``publishBlobs(vaultID:)``).
    func blobStreams(vaultID: UUID) throws -> Set<UUID> {
        let local = layout(vaultID: vaultID).blobStreams()
        guard case .rclone(let remote) = kind else { return local }
        let listing = try Self.rclone("lsf", options: ["--files-only"],
                                      paths: [Self.join(remote, SyncLayout.relative(vaultID: vaultID).attachmentsFolder)], allowMissing: true)
        return local.union(listing.split(separator: "\n").compactMap { SyncLayout.stream(inBlobFileName: String($0)) })
    }

    /// The blob files at the location, by stream, with when each was last written (ms since the
    /// epoch, as the location's files say).
    func blobFiles(vaultID: UUID) throws -> [UUID: Int64] {
        let local = layout(vaultID: vaultID)
        guard case .rclone(let remote) = kind else {
            var files: [UUID: Int64] = [:]
            for stream in local.blobStreams() {
                var status = stat()
                guard lstat(local.blobFile(stream: stream), &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
                files[stream] = Int64(status.st_mtim.tv_sec) * 1000 + Int64(status.st_mtim.tv_nsec) / 1_000_000
            }
            return files
        }
        let listing = try Self.rclone("lsjson", options: ["--files-only"],
                                      paths: [Self.join(remote, SyncLayout.relative(vaultID: vaultID).attachmentsFolder)], allowMissing: true)
        guard case .array(let items)? = try? JSONParser.parse(Array(listing.utf8)) else { return [:] }
        var files: [UUID: Int64] = [:]
        for case .object(let fields) in items {
            let value = { (name: String) in fields.first { $0.0 == name }?.1 }
            guard case .string(let name)? = value("Name"), let stream = SyncLayout.stream(inBlobFileName: name),
                  case .string(let time)? = value("ModTime"), let millis = Self.millis(rcloneTime: time) else { continue }
            files[stream] = millis
        }
        return files
    }

    /// rclone's `2024-05-01T12:00:00.123456789+02:00` (or `Z`), to the second, as ms since the epoch.
    static func millis(rcloneTime text: String) -> Int64? {
        let seconds = text.prefix(19)
        let zone = text.hasSuffix("Z") ? "Z" : String(text.suffix(6))
        return ISO8601DateFormatter().date(from: seconds + zone).map { Int64($0.timeIntervalSince1970) * 1000 }
    }

    /// Copies the blob files written here up to a remote, before the packs that name them, and
    /// then lets the cache forget them: it keeps no second copy of every attachment.
    func publishBlobs(vaultID: UUID) throws {
        guard case .rclone(let remote) = kind else { return }
        let local = layout(vaultID: vaultID)
        let streams = local.blobStreams()
        guard !streams.isEmpty else { return }
        _ = try Self.rclone("copy", options: SyncLayout.blobPublishFilters,
                            paths: [local.root, Self.join(remote, SyncLayout.relative(vaultID: vaultID).root)], allowMissing: false)
        for stream in streams { unlink(local.blobFile(stream: stream)) }
    }

    /// Where the blob file of `stream` can be read here, and whether it is a copy brought down
    /// from a remote for this read (the caller removes it once read). Nil when it is not at the
    /// location.
    func fetchBlob(vaultID: UUID, stream: UUID) throws -> (path: String, downloaded: Bool)? {
        let local = layout(vaultID: vaultID)
        let path = local.blobFile(stream: stream)
        if FileManager.default.fileExists(atPath: path) { return (path, false) }
        guard case .rclone(let remote) = kind else { return nil }
        try SyncLocation.folder(SyncLayout.attachmentsFolderName, in: local)
        let copy = local.fetchedBlobFile(stream: stream)
        unlink(copy)
        _ = try Self.rclone("copyto", paths: [Self.join(remote, SyncLayout.relative(vaultID: vaultID).blobFile(stream: stream)), copy],
                            allowMissing: true)
        return FileManager.default.fileExists(atPath: copy) ? (copy, true) : nil
    }

    /// Removes blob files (already removed from ``layout(vaultID:)``) from a remote too.
    func removeBlobs(vaultID: UUID, streams: [UUID]) throws {
        guard case .rclone(let remote) = kind, !streams.isEmpty else { return }
        let folder = Self.join(remote, SyncLayout.relative(vaultID: vaultID).attachmentsFolder)
        let list = layout(vaultID: vaultID).blobRemovalList
        try PrivateFiles.writeWhole(Array(SyncLayout.removalRules(names: streams.map(SyncLayout.blobFileName(stream:))).utf8), to: list, replace: true)
        defer { unlink(list) }
        _ = try Self.rclone("delete", options: ["--include-from", list], paths: [folder], allowMissing: true)
    }

    /// Removes a keys file of this vault's (of a device id a restored vault no longer uses),
    /// here and on a remote.
    func removeKeysFile(vaultID: UUID, device: UUID) throws {
        unlink(layout(vaultID: vaultID).keysFile(of: device))
        guard case .rclone(let remote) = kind else { return }
        _ = try Self.rclone("deletefile", paths: [Self.join(remote, SyncLayout.relative(vaultID: vaultID).keysFile(of: device))], allowMissing: true)
    }

    /// Removes files of this device's folder (already removed from ``layout(vaultID:)``) from a
    /// remote too, by name.
    func remove(vaultID: UUID, device: UUID, names: [String]) throws {
        guard case .rclone(let remote) = kind, !names.isEmpty else { return }
        let folder = Self.join(remote, SyncLayout.relative(vaultID: vaultID).deviceFolder(of: device))
        // The names as rclone filter rules, a file of them: there may be thousands.
        let list = layout(vaultID: vaultID).removalList(of: device)
        try PrivateFiles.writeWhole(Array(SyncLayout.removalRules(names: names).utf8), to: list, replace: true)
        defer { unlink(list) }
        _ = try Self.rclone("delete", options: ["--include-from", list], paths: [folder], allowMissing: true)
    }

    /// The folder `name` — a device's folder, or the keys folder — of this vault's part of the
    /// location, `layout`, made (0700) where missing when `create`. It and the two folders above it
    /// (`jv-sync/VAULT-ID`) must be folders, not symbolic links: a link there would make jv write
    /// outside the location, wherever whoever can write to the location points it (FORMAT.md
    /// §14.1). Only the location itself, as the user named it, may be a link. Checked right
    /// before each use.
    @discardableResult
    static func folder(_ name: String, in layout: SyncLayout, create: Bool = true) throws -> String {
        let root = layout.root
        for folder in [(root as NSString).deletingLastPathComponent, root, root + "/" + name] {
            var status = stat()
            if lstat(folder, &status) != 0 {
                guard errno == ENOENT, create else { break }
                guard mkdir(folder, 0o700) == 0 || errno == EEXIST, lstat(folder, &status) == 0 else {
                    throw VaultError.storage("cannot create the folder \(folder): \(String(cString: strerror(errno)))")
                }
            }
            switch status.st_mode & S_IFMT {
            case S_IFDIR: continue
            case S_IFLNK: throw VaultError.syncUnavailable("\(folder) is a symbolic link, which jv does not follow in a sync location")
            default: throw VaultError.syncUnavailable("\(folder) is not a folder")
            }
        }
        return root + "/" + name
    }

    private func checkFolder(_ path: String) throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
            throw VaultError.syncUnavailable("the sync location \(path) is not there (is it mounted?)")
        }
    }

    static func cacheFolder(vaultID: UUID) -> String {
        "\(XDGDirectories().cache)/jv/sync/\(vaultID.storageText)"
    }

    /// `REMOTE:PATH` joined with a relative path.
    static func join(_ remote: String, _ relative: String) -> String {
        remote.hasSuffix(":") || remote.hasSuffix("/") ? remote + relative : remote + "/" + relative
    }

    /// Runs `rclone COMMAND OPTIONS -- PATHS`; its standard output. The paths come after `--`, so
    /// that none is taken for an option. `allowMissing`: a path that does not exist yet (a
    /// location nobody has written to) is not an error. rclone runs in a process group of its own,
    /// as Foundation's `Process` ran it: a Ctrl-C at the terminal goes to jv, not to rclone.
    static func rclone(_ command: String, options: [String] = [], paths: [String], allowMissing: Bool) throws -> String {
        guard let executable = ChildProcess.onPath("rclone") else {
            throw VaultError.syncUnavailable("rclone is not installed (Debian package rclone)")
        }
        let output = Pipe()
        let errors = Pipe()
        let pid: pid_t
        do {
            pid = try ChildProcess(executable, arguments: [command] + options + ["--"] + paths)
                .spawn(standardInput: .null, standardOutput: .descriptor(output.fileHandleForWriting.fileDescriptor),
                       standardError: .descriptor(errors.fileHandleForWriting.fileDescriptor), ownProcessGroup: true)
        } catch {
            throw VaultError.syncUnavailable("rclone could not be started")
        }
        // rclone holds the write ends now; with jv's closed, each read ends when rclone's writing does.
        try? output.fileHandleForWriting.close()
        try? errors.fileHandleForWriting.close()
        // Standard error is drained beside standard output: rclone can fill either while jv waits on the other.
        let said = DrainedPipe(errors)
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = said.text()
        let termination = Termination(waitingFor: pid)
        guard termination == .exited(0) else {
            // rclone exits 3 for a directory that is not found.
            if allowMissing, termination == .exited(3) { return "" }
            let last = errorText.split(separator: "\n").last(where: { !$0.isEmpty }).map(String.init) ?? "exit \(termination.shellStatus)"
            throw VaultError.syncUnavailable("rclone failed: \(last)")
        }
        return String(decoding: printed, as: UTF8.self)
    }
}

/// A pipe read to its end on another thread.
private final class DrainedPipe: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ pipe: Pipe) {
        DispatchQueue.global().async {
            self.data = pipe.fileHandleForReading.readDataToEndOfFile()
            self.done.signal()
        }
    }

    func text() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
