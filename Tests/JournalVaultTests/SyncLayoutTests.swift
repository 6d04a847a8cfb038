// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import Testing
@testable import JournalVault

/// ``SyncLayout`` held against FORMAT.md §14.1 as the document words it — its tree of the
/// location, the names' forms, the lock and the rclone commands — and its rclone filters run
/// with rclone on a folder laid out as a location is.
@Suite struct SyncLayoutTests {
    static let vaultID = UUID(uuidString: "3c0b2a19-0f6e-4d5c-8b4a-39281706f5e4")!
    static let device = UUID(uuidString: "a1b2c3d4-e5f6-4789-9abc-def012345678")!
    static let other = UUID(uuidString: "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0")!

    /// FORMAT.md §14.1, from its heading to the next, with `VAULT-ID` and `DEVICE-ID` as
    /// ``vaultID`` and ``device``.
    static func section() throws -> String {
        let format = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../FORMAT.md").standardizedFileURL
        let text = try String(contentsOf: format, encoding: .utf8)
        let start = try #require(text.range(of: "### 14.1 The sync location\n"))
        let end = try #require(text.range(of: "\n### ", range: start.upperBound..<text.endIndex))
        return String(text[start.upperBound..<end.lowerBound])
            .replacingOccurrences(of: "VAULT-ID", with: vaultID.storageText)
            .replacingOccurrences(of: "DEVICE-ID", with: device.storageText)
    }

    /// §14.1's words, each run of white space (a line break too) as one space.
    static func prose() throws -> String {
        try section().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The tree that opens §14.1 as paths: each line's first word, below the folder it is
    /// indented under (two spaces a level); a folder's path ends in `/`.
    static func documentedTree() throws -> [String] {
        let section = try section()
        let opening = "```\nLOCATION/"
        let start = try #require(section.range(of: opening))
        let end = try #require(section.range(of: "\n```", range: start.upperBound..<section.endIndex))
        var folders: [String] = []
        var paths: [String] = []
        for line in section[section.index(start.lowerBound, offsetBy: 4)..<end.lowerBound].split(separator: "\n") {
            let level = line.prefix(while: { $0 == " " }).count / 2
            let name = String(try #require(line.split(separator: " ").first))
            folders.removeLast(folders.count - level)
            let path = folders.joined() + name
            paths.append(path)
            if name.hasSuffix("/") { folders.append(name) }
        }
        return paths
    }

    /// The `rclone …` commands of §14.1, split in words.
    static func documentedCommands() throws -> [[String]] {
        try section().matches(of: /`(rclone [^`]+)`/).map { $0.1.split(whereSeparator: \.isWhitespace).map(String.init) }
    }

    /// The documented command `rclone VERB …` whose words end with `paths`: the filter
    /// options between the verb and `--`.
    static func documentedOptions(_ verb: String, paths: [String]) throws -> [String] {
        let command = try #require(try documentedCommands().first { $0.starts(with: ["rclone", verb]) && Array($0.suffix(paths.count + 1)) == ["--"] + paths },
                                   "FORMAT.md §14.1 has no `rclone \(verb) … -- \(paths.joined(separator: " "))`")
        return Array(command.dropFirst(2).dropLast(paths.count + 1))
    }

    /// A name written under a temporary name beside `path` (FORMAT.md's `XXXXXXXX` for the
    /// random digits), and whether the layout takes it for one.
    static func temporaryWrite(beside path: String) -> (documented: String, recognised: Bool) {
        let temporary = PrivateFiles.temporaryPath(beside: path, purpose: .writing)
        return (String(temporary.dropLast(8)) + "XXXXXXXX", SyncLayout.isTemporaryWrite(URL(fileURLWithPath: temporary).lastPathComponent))
    }

    @Test("every path of FORMAT.md's tree of the location is the layout's, and the layout makes no other")
    func treeMatchesTheDocument() throws {
        // Absolute, as every location jv stores is.
        let layout = SyncLayout(folder: "/LOCATION", vaultID: Self.vaultID)
        let device = Self.device
        let made = [
            layout.root + "/",
            layout.keysFile(of: device),
            Self.temporaryWrite(beside: layout.keysFile(of: device)).documented,
            layout.deviceFolder(of: device) + "/",
            layout.file(.pack, of: device, number: 1),
            layout.file(.pack, of: device, number: 2),
            layout.temporaryPackFile(of: device, number: 3),
            layout.file(.snapshot, of: device, number: 2),
            layout.acksFile(of: device),
            layout.rotationFile(of: device, to: 2),
            layout.attachmentsFolder + "/",
            layout.attachmentsFolder + "/STREAM-ID.jvb",
            layout.attachmentsFolder + "/.STREAM-ID.jvb." + device.storageText + ".tmp",
        ]
        var documented = try Self.documentedTree().map { "/" + $0 }
        // `.NAME.writing-XXXXXXXX` stands for each of the files written whole beside their name.
        let writing = try #require(documented.firstIndex { $0.hasSuffix("/.NAME.writing-XXXXXXXX") })
        let name = documented.remove(at: writing)
        for path in [layout.file(.snapshot, of: device, number: 2), layout.acksFile(of: device), layout.rotationFile(of: device, to: 2)] {
            let temporary = Self.temporaryWrite(beside: path)
            #expect(temporary.documented == name.replacingOccurrences(of: "NAME", with: URL(fileURLWithPath: path).lastPathComponent))
            #expect(temporary.recognised)
        }
        #expect(Self.temporaryWrite(beside: layout.keysFile(of: device)).recognised)
        #expect(documented == made)
    }

    @Test("names are of the forms FORMAT.md gives, and readers take only those")
    func namesAreOfTheDocumentedForms() throws {
        let section = try Self.prose()
        let pack = String(try #require(section.firstMatch(of: /printf '(pack-[^']+)'/)).1)
        let rotation = String(try #require(section.firstMatch(of: /printf '(rotation-[^']+)'/)).1)
        #expect(section.contains("a snapshot's is the same with `snap-`"))
        for number: Int32 in [0, 1, 42, .max] {
            #expect(SyncLayout.fileName(.pack, UInt64(number)) == String(format: pack, number))
            #expect(SyncLayout.fileName(.snapshot, UInt64(number)) == String(format: pack, number).replacingOccurrences(of: "pack-", with: "snap-"))
        }
        for number: UInt64 in [0, 1, 42, 999_999_999_999] {
            #expect(SyncLayout.number(.pack, inFileName: SyncLayout.fileName(.pack, number)) == number)
            #expect(SyncLayout.number(.snapshot, inFileName: SyncLayout.fileName(.snapshot, number)) == number)
            #expect(SyncLayout.number(.pack, inFileName: SyncLayout.fileName(.snapshot, number)) == nil)
            #expect(SyncLayout.number(.pack, inFileName: SyncLayout.temporaryPackName(number)) == nil)
            #expect(SyncLayout.isTemporaryPackName(SyncLayout.temporaryPackName(number)))
            #expect(!SyncLayout.isTemporaryPackName(SyncLayout.fileName(.pack, number)))
        }
        for version: UInt32 in [1, 2, .max] {
            #expect(SyncLayout.rotationFileName(to: version) == String(format: rotation, version))
        }
        // "exactly that form — 21 characters, the twelve in the middle ASCII digits".
        #expect(section.contains("21 characters"))
        for name in ["pack-00000000001.jvp", "pack-0000000000001.jvp", "pack-00000000000a.jvp", "pack-00000000000١.jvp", "pack-000000000001.jvr", "Pack-000000000001.jvp"] {
            #expect(SyncLayout.number(.pack, inFileName: name) == nil, "\(name)")
        }
        // The lock: "`.NAME.sync-lock` beside the vault file `NAME`".
        #expect(section.contains("`.NAME.sync-lock` beside the vault file `NAME`"))
        #expect(SyncLayout.lockFile(vault: "/home/me/journal.vault") == "/home/me/.journal.vault.sync-lock")
    }

    @Test("the rclone commands pass the filters and paths FORMAT.md gives")
    func rcloneCommandsMatchTheDocument() throws {
        let device = Self.device
        let remote = "REMOTE:PATH/" + SyncLayout.relative(vaultID: Self.vaultID).root
        #expect(try Self.documentedOptions("copy", paths: [remote, "CACHE"]) == SyncLayout.fetchFilters(ownFilesOf: device))
        #expect(SyncLayout.fetchFilters(ownFilesOf: nil) == ["--exclude", "/attachments/**"])
        // The blob files' copy up, where one is fetched to, and their removal list (FORMAT.md §14.1).
        let prose = try Self.prose()
        #expect(prose.contains("`rclone copy \(SyncLayout.blobPublishFilters.joined(separator: " ")) -- CACHE \(remote)`"))
        let stream = try #require(UUID(storageText: "0f0e0d0c-0b0a-4908-8706-050403020100"))
        #expect(SyncLayout(root: "CACHE").fetchedBlobFile(stream: stream) == "CACHE/attachments/.\(stream.storageText).jvb.fetched")
        #expect(prose.contains("CACHE/attachments/.STREAM-ID.jvb.fetched`") && prose.contains("`CACHE/.remove-attachments.txt`"))
        #expect(SyncLayout(root: "CACHE").blobRemovalList == "CACHE/.remove-attachments.txt")
        #expect(try Self.documentedOptions("copy", paths: ["CACHE", remote]) == SyncLayout.publishFilters(device: device))
        #expect(try Self.documentedOptions("delete", paths: ["REMOTE:PATH/" + SyncLayout.relative(vaultID: Self.vaultID).deviceFolder(of: device)])
                == ["--include-from", "LIST"])
        #expect(try Self.documentedOptions("lsf", paths: ["REMOTE:PATH/" + SyncLayout.vaultsFolderName]) == ["--dirs-only"])
        // "`LIST` a file in `CACHE` (`.remove-DEVICE-ID.txt`, …) naming each as `/NAME`, one a line".
        let list = try #require(try Self.prose().firstMatch(of: /a file in `CACHE` \(`([^`]+)`/)).1
        #expect(SyncLayout(root: "CACHE").removalList(of: device) == "CACHE/" + list)
        #expect(SyncLayout.removalRules(names: ["pack-000000000001.jvp", "snap-000000000002.jvp"]) == "/pack-000000000001.jvp\n/snap-000000000002.jvp")
    }

    /// A local copy of a location of two devices with every kind of file the layout names, the
    /// temporaries beside them, and a stray file; the paths written.
    static func populatedCopy(_ layout: SyncLayout) throws -> Set<String> {
        var written: Set<String> = []
        func write(_ path: String) throws {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(path.utf8).write(to: URL(fileURLWithPath: path))
            written.insert(path)
        }
        for device in [Self.device, Self.other] {
            let files = [layout.keysFile(of: device), layout.file(.pack, of: device, number: 1), layout.file(.pack, of: device, number: 2),
                         layout.file(.snapshot, of: device, number: 2), layout.acksFile(of: device), layout.rotationFile(of: device, to: 2)]
            for file in files { try write(file) }
            for file in [layout.keysFile(of: device), layout.acksFile(of: device), layout.file(.snapshot, of: device, number: 3)] {
                try write(PrivateFiles.temporaryPath(beside: file, purpose: .writing))
            }
            try write(layout.temporaryPackFile(of: device, number: 3))
            try write(layout.deviceFolder(of: device) + "/notes.txt")
        }
        try write(layout.removalList(of: Self.device))
        return written
    }

    /// The files under `root`, as paths beginning with it.
    static func files(under root: String) throws -> Set<String> {
        var files: Set<String> = []
        for relative in try FileManager.default.subpathsOfDirectory(atPath: root) {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isFolder), !isFolder.boolValue {
                files.insert(root + "/" + relative)
            }
        }
        return files
    }

    @Test("rclone with the upload filters copies exactly this device's packs, snapshots, rotation, acks and keys files; no temporary")
    func publishFiltersSelectTheDevicesFiles() throws {
        let folder = try TemporaryFolder()
        let (cache, remote) = (SyncLayout(root: folder.file("cache")), SyncLayout(root: folder.file("remote")))
        _ = try Self.populatedCopy(cache)
        _ = try SyncLocation.rclone("copy", options: SyncLayout.publishFilters(device: Self.device), paths: [cache.root, remote.root], allowMissing: false)
        let device = Self.device
        #expect(try Self.files(under: remote.root) == [
            remote.keysFile(of: device), remote.file(.pack, of: device, number: 1), remote.file(.pack, of: device, number: 2),
            remote.file(.snapshot, of: device, number: 2), remote.acksFile(of: device), remote.rotationFile(of: device, to: 2),
        ])
    }

    @Test("rclone with the download filters copies everything but this device's own keys and acks files")
    func fetchFiltersLeaveOutTheDevicesOwnFiles() throws {
        let folder = try TemporaryFolder()
        let (remote, cache) = (SyncLayout(root: folder.file("remote")), SyncLayout(root: folder.file("cache")))
        let written = try Self.populatedCopy(remote)
        let moved = { (paths: Set<String>) in Set(paths.map { cache.root + $0.dropFirst(remote.root.count) }) }
        _ = try SyncLocation.rclone("copy", options: SyncLayout.fetchFilters(ownFilesOf: Self.device), paths: [remote.root, cache.root], allowMissing: true)
        #expect(try Self.files(under: cache.root) == moved(written.subtracting([remote.keysFile(of: Self.device), remote.acksFile(of: Self.device)])))
        // A first fetch, before the device has an id: everything.
        let first = SyncLayout(root: folder.file("first"))
        _ = try SyncLocation.rclone("copy", options: SyncLayout.fetchFilters(ownFilesOf: nil), paths: [remote.root, first.root], allowMissing: true)
        #expect(try Self.files(under: first.root).count == written.count)
    }

    @Test("rclone with the removal list removes exactly the files it names from the device's folder")
    func removalRulesSelectTheNamedFiles() throws {
        let folder = try TemporaryFolder()
        let remote = SyncLayout(root: folder.file("remote"))
        let written = try Self.populatedCopy(remote)
        let removed = [SyncLayout.fileName(.pack, 1), SyncLayout.fileName(.snapshot, 2)]
        let list = folder.file("list.txt")
        try Data(SyncLayout.removalRules(names: removed).utf8).write(to: URL(fileURLWithPath: list))
        _ = try SyncLocation.rclone("delete", options: ["--include-from", list], paths: [remote.deviceFolder(of: Self.device)], allowMissing: true)
        #expect(try Self.files(under: remote.root) == written.subtracting(removed.map { remote.deviceFolder(of: Self.device) + "/" + $0 }))
    }
}
