// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Where every file of a vault's part of a sync location is (FORMAT.md §14.1): the one place
/// that knows the location's folder and file names, the temporary names written beside them,
/// and the rclone filters that pick them out. Everything else asks it for a path.
///
/// ```
/// LOCATION/jv-sync/VAULT-ID/            root
///   keys/DEVICE-ID                      keysFile(of:)
///   DEVICE-ID/                          deviceFolder(of:)
///     pack-000000000001.jvp             file(.pack, of:number:)
///     .pack-000000000002.jvp.tmp        temporaryPackFile(of:number:)
///     snap-000000000001.jvp             file(.snapshot, of:number:)
///     acks.jva                          acksFile(of:)
///     rotation-0000000002.jvr           rotationFile(of:to:)
///   attachments/                        attachmentsFolder (shared by every device)
///     STREAM-ID.jvb                     blobFile(stream:)
///     .STREAM-ID.jvb.DEVICE-ID.tmp      temporaryBlobFile(stream:device:)
/// ```
///
/// `root` is a local folder laid out as the location is (the location's own, or the cache of
/// an rclone remote), or the same path relative to a remote (``relative(vaultID:)``): the names
/// below it are the same in both.
struct SyncLayout: Sendable, Equatable {
    /// The folder of a location that holds each vault's part, one folder per vault id.
    static let vaultsFolderName = "jv-sync"
    /// The folder of a vault's part that holds each device's keys file.
    static let keysFolderName = "keys"
    /// The folder of a vault's part that holds the attachments' contents, one blob file each.
    static let attachmentsFolderName = "attachments"
    private static let blobExtension = ".jvb"
    private static let acksFileName = "acks.jva"
    private static let packDigits = 12
    private static let packExtension = ".jvp"
    private static let temporaryPackExtension = ".tmp"
    private static let rotationPrefix = "rotation-"
    private static let rotationExtension = ".jvr"
    private static let removalListPrefix = ".remove-"
    private static let lockExtension = ".sync-lock"

    /// The vault's part of the location, `…/jv-sync/VAULT-ID`.
    let root: String

    init(root: String) {
        self.root = root
    }

    /// The vault's part of the folder location `folder`.
    init(folder: String, vaultID: UUID) {
        self.init(root: Self.vaultsFolder(in: folder) + "/" + vaultID.storageText)
    }

    /// `jv-sync/VAULT-ID`: the vault's part of a remote, relative to its `REMOTE:PATH`.
    static func relative(vaultID: UUID) -> SyncLayout {
        SyncLayout(root: vaultsFolderName + "/" + vaultID.storageText)
    }

    /// The folder holding every vault's part of the folder location `folder`.
    static func vaultsFolder(in folder: String) -> String {
        folder + "/" + vaultsFolderName
    }

    /// The lock one `jv sync` of the vault file at `vaultPath` holds (``SyncLock``):
    /// `.NAME.sync-lock` beside the vault file `NAME`, not in the location.
    static func lockFile(vault vaultPath: String) -> String {
        let url = URL(fileURLWithPath: vaultPath)
        return url.deletingLastPathComponent().path + "/." + url.lastPathComponent + lockExtension
    }

    // MARK: Folders

    /// The name of `device`'s folder in ``root``.
    static func folderName(of device: UUID) -> String { device.storageText }

    func deviceFolder(of device: UUID) -> String { root + "/" + Self.folderName(of: device) }

    var keysFolder: String { root + "/" + Self.keysFolderName }

    var attachmentsFolder: String { root + "/" + Self.attachmentsFolderName }

    // MARK: Files

    func keysFile(of device: UUID) -> String { keysFolder + "/" + device.storageText }

    func acksFile(of device: UUID) -> String { deviceFolder(of: device) + "/" + Self.acksFileName }

    /// `device`'s pack or snapshot `number`.
    func file(_ kind: SyncPack.Kind, of device: UUID, number: UInt64) -> String {
        deviceFolder(of: device) + "/" + Self.fileName(kind, number)
    }

    /// Where `device`'s pack `number` is written before it takes its name.
    func temporaryPackFile(of device: UUID, number: UInt64) -> String {
        deviceFolder(of: device) + "/" + Self.temporaryPackName(number)
    }

    /// `device`'s rotation file to key version `version`.
    func rotationFile(of device: UUID, to version: UInt32) -> String {
        deviceFolder(of: device) + "/" + Self.rotationFileName(to: version)
    }

    /// The content of the chunk stream `stream` (FORMAT.md §14.11).
    func blobFile(stream: UUID) -> String {
        attachmentsFolder + "/" + Self.blobFileName(stream: stream)
    }

    /// Where `device` writes the blob file of `stream` before it takes its name: a name of each
    /// device's, as every device writes in the one folder (and removes only its own leftovers).
    func temporaryBlobFile(stream: UUID, device: UUID) -> String {
        attachmentsFolder + "/." + Self.blobFileName(stream: stream) + "." + device.storageText + Self.temporaryPackExtension
    }

    /// Where a blob file brought down from a remote is read (and removed once read).
    func fetchedBlobFile(stream: UUID) -> String {
        attachmentsFolder + "/." + Self.blobFileName(stream: stream) + ".fetched"
    }

    /// The rclone filter file naming the blob files to remove from a remote.
    var blobRemovalList: String { root + "/" + Self.removalListPrefix + Self.attachmentsFolderName + ".txt" }

    /// The rclone filter file naming the files of `device`'s folder to remove from a remote.
    func removalList(of device: UUID) -> String {
        root + "/" + Self.removalListPrefix + device.storageText + ".txt"
    }

    // MARK: Names

    private static func prefix(_ kind: SyncPack.Kind) -> String { kind == .pack ? "pack-" : "snap-" }

    /// `pack-NNNNNNNNNNNN.jvp` or `snap-NNNNNNNNNNNN.jvp`: twelve digits.
    static func fileName(_ kind: SyncPack.Kind, _ number: UInt64) -> String {
        prefix(kind) + zeroPadded(number, to: packDigits) + packExtension
    }

    /// `number` in decimal with leading zeros up to `digits` (as printf's `%0Nllu`): Foundation's
    /// `String(format:)` cost every `jv sync` process a million instructions for these names.
    private static func zeroPadded<Number: BinaryInteger>(_ number: Number, to digits: Int) -> String {
        let decimal = String(number)
        return String(repeating: "0", count: max(0, digits - decimal.count)) + decimal
    }

    /// The number in a file name of this kind, or nil for any other name.
    static func number(_ kind: SyncPack.Kind, inFileName name: String) -> UInt64? {
        let start = prefix(kind)
        let digits = name.dropFirst(start.count).prefix(packDigits)
        guard name.hasPrefix(start), name.hasSuffix(packExtension), name.count == start.count + packDigits + packExtension.count,
              digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt64(digits)
    }

    /// `.pack-NNNNNNNNNNNN.jvp.tmp`.
    static func temporaryPackName(_ number: UInt64) -> String {
        "." + fileName(.pack, number) + temporaryPackExtension
    }

    /// Whether `name` is a temporary pack, of any number.
    static func isTemporaryPackName(_ name: String) -> Bool {
        name.hasPrefix("." + prefix(.pack)) && name.hasSuffix(packExtension + temporaryPackExtension)
    }

    /// Whether `name`, in a device's folder, is a snapshot, acks or rotation file being written
    /// (`.NAME.writing-XXXXXXXX`, ``PrivateFiles/createLockedTemporary(beside:purpose:)``).
    static func isTemporaryWrite(_ name: String) -> Bool {
        name.hasPrefix(".") && name.contains(".\(PrivateFiles.Purpose.writing.rawValue)-")
    }

    /// `STREAM-ID.jvb`.
    static func blobFileName(stream: UUID) -> String {
        stream.storageText + blobExtension
    }

    /// The stream a blob file's name names, or nil for any other name.
    static func stream(inBlobFileName name: String) -> UUID? {
        guard name.hasSuffix(blobExtension) else { return nil }
        return UUID(storageText: String(name.dropLast(blobExtension.count)))
    }

    /// Whether `name`, in the attachments folder, is a blob file `device` was writing.
    static func isTemporaryBlobName(_ name: String, of device: UUID) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(blobExtension + "." + device.storageText + temporaryPackExtension)
    }

    /// `rotation-NNNNNNNNNN.jvr`: ten digits.
    static func rotationFileName(to version: UInt32) -> String {
        rotationPrefix + zeroPadded(version, to: 10) + rotationExtension
    }

    // MARK: Listing

    /// The folders of ``root`` named by a device id; a link of such a name is not followed.
    func devices() -> [UUID] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter { name in
            var status = stat()
            return lstat(root + "/" + name, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
        }.compactMap(UUID.init(storageText:))
    }

    /// The devices with a keys file, in order of their ids; other names there (a temporary being
    /// written) are not keys files.
    func keysFileDevices() -> [UUID] {
        ((try? FileManager.default.contentsOfDirectory(atPath: keysFolder)) ?? []).sorted().compactMap(UUID.init(storageText:))
    }

    /// The streams whose blob file is in the attachments folder.
    func blobStreams() -> Set<UUID> {
        Set(((try? FileManager.default.contentsOfDirectory(atPath: attachmentsFolder)) ?? []).compactMap(Self.stream(inBlobFileName:)))
    }

    /// The numbers of `device`'s packs or snapshots present.
    func numbers(of kind: SyncPack.Kind, device: UUID) -> [UInt64] {
        ((try? FileManager.default.contentsOfDirectory(atPath: deviceFolder(of: device))) ?? []).compactMap { Self.number(kind, inFileName: $0) }
    }

    // MARK: rclone filters

    /// Paths as rclone filter rules take them: relative to the vault's part, from a leading `/`.
    private static let filterRoot = SyncLayout(root: "")

    /// The filters of the copy down from a remote: everything but `device`'s own keys and acks
    /// files, which only this device writes (an older copy on the remote must not come back).
    /// The attachments' contents are not among them: each comes down when it is fetched
    /// (``SyncLocation/fetchBlob(vaultID:stream:)``), as a device may leave them at the location.
    static func fetchFilters(ownFilesOf device: UUID?) -> [String] {
        let contents = ["--exclude", "/" + attachmentsFolderName + "/**"]
        guard let device else { return contents }
        return contents + ["--exclude", filterRoot.keysFile(of: device), "--exclude", filterRoot.acksFile(of: device)]
    }

    /// The filters of the copy up of the blob files written here (under their names only).
    static let blobPublishFilters = ["--include", "/" + attachmentsFolderName + "/*" + blobExtension]

    /// The filters of the copy up to a remote: `device`'s packs, snapshots, rotation files, acks
    /// file and keys file, under their names only (no temporary).
    static func publishFilters(device: UUID) -> [String] {
        let folder = filterRoot.deviceFolder(of: device) + "/"
        let names = [prefix(.pack) + "*" + packExtension, prefix(.snapshot) + "*" + packExtension, rotationPrefix + "*" + rotationExtension, acksFileName]
        return names.flatMap { ["--include", folder + $0] } + ["--include", filterRoot.keysFile(of: device)]
    }

    /// The rclone filter rules, one a line, that pick exactly the files `names` of a device's
    /// folder, rooted there (the contents of ``removalList(of:)``).
    static func removalRules(names: [String]) -> String {
        names.map { "/" + $0 }.joined(separator: "\n")
    }
}
