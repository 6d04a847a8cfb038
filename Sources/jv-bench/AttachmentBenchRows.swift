// SPDX-License-Identifier: Apache-2.0
import Foundation
import JournalVault
import VaultCrypto

/// Attachments in `make bench` (docs/performance.md "Attachments"), every row's name starting
/// with "attach" so that `--only attach` selects them:
///
/// - a large file (1 GiB unless `--attach-bytes`) and a small one attached and read back by whole
///   `jv attach` and `jv attachment get --output` processes, timed with their peak resident
///   memory (``ChildUsage``), beside reading the same file and sealing it with libsodium's
///   secretstream in chunks of the same size in this process (and reading the sealed copy and
///   opening it);
/// - a 24-megapixel JPEG described as jv does it (``Thumbnailer/describe(fileDescriptor:)``,
///   the `jv-thumbnail` child), beside `vips thumbnail` of the same file;
/// - the benchmark's corpus in two vaults, one of them with `--photos` generated JPEGs of
///   `--photo-bytes` each attached through the library: `jv list -n 10`, a month, `calendar`
///   and `search` as whole processes on each, alternated, the vault without photos as the
///   baseline; `jv backup` of the photo vault beside `cp` of its file and `sync` of the copy;
/// - `jv sync` sending one new 5 MB photo beside `cp` of the photo into the folder and `sync`.
///
/// Each result is checked: the content read back has the file's digest, the photo vault holds
/// every photo, the thumbnail has the JPEG's pixel size, the sync wrote the photo's blob file.
struct AttachmentBenchRows {
    /// What the command line can change.
    struct Options {
        var photos = 10_000
        var photoBytes = 250_000
        var fileBytes = 1 << 30
    }

    let bench: JVBench
    let secret: SecureBytes
    let options: Options
    private let folder: String
    private let jv: String
    private let processes: ProcessRows
    private let runtime: String
    private let vips = ["/usr/bin/vips", "/usr/local/bin/vips"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs of each process, alternated between the two vaults.
    static let alternatedRuns = 15
    static let smallFileBytes = 100_000
    static let syncPhotoBytes = 5_000_000
    static let syncRuns = 5

    init(bench: JVBench, secret: SecureBytes, options: Options) throws {
        self.bench = bench
        self.secret = secret
        self.options = options
        folder = bench.folder + "/attachments"
        jv = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("jv").path
        processes = ProcessRows(bench: bench, vaultPath: bench.folder + "/bench.vault", plainPath: bench.folder + "/plain.sqlite", secret: secret)
        runtime = folder + "/runtime"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    func rows() throws -> [ReportRow] {
        guard FileManager.default.isExecutableFile(atPath: jv) else { return [] }
        // `--keep` keeps the vaults too (the large files go as soon as they are measured).
        defer { if !bench.keep { try? FileManager.default.removeItem(atPath: folder) } }
        var rows: [ReportRow] = []
        for bytes in [options.fileBytes, Self.smallFileBytes] where wants("attach \(Self.label(bytes)):") { rows += try fileRows(bytes: bytes) }
        guard wants("attach: ") else { return rows }
        let photo = try makeLargeJPEG()
        if let photo, wants("attach: thumbnail") { rows += try thumbnailRows(photo) }
        let base = try basePhoto(from: photo)
        if wants("attach: \(options.photos) photos") || wants("attach: build") { rows += try photoVaultRows(base: base) }
        if wants("attach: process: jv sync") { rows += try syncRows(base: base) }
        return rows
    }

    /// Whether `--only` can select rows whose names start with `prefix` (every row without it).
    private func wants(_ prefix: String) -> Bool {
        guard let only = bench.only else { return true }
        return prefix.hasPrefix(only) || only.hasPrefix(prefix)
    }

    /// `1 GiB`, `64 MiB`, `100 kB`: a file size as the rows name it.
    private static func label(_ bytes: Int) -> String {
        bytes >= 1 << 30 ? "\(bytes >> 30) GiB" : bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes / 1000) kB"
    }

    // MARK: A large file in and out

    private func fileRows(bytes: Int) throws -> [ReportRow] {
        let label = Self.label(bytes)
        let source = folder + "/file-\(bytes).bin"
        try Self.writeRandomFile(source, bytes: bytes)
        defer { unlink(source) }
        let sealedCopy = folder + "/file-\(bytes).sealed"
        defer { unlink(sealedCopy) }
        let expected = try Self.digest(of: source)
        let runs = bytes >= 256 << 20 ? 3 : 5
        var attach = Timings(), get = Timings(), push = Timings(), pull = Timings()
        var attachPeak = 0, getPeak = 0
        for run in 0..<runs {
            // A new vault each time: attaching the same content again would find it stored.
            let (vault, keyFile, entryID) = try newVault("file-vault")
            let environment = ["JV_RECOVERY_KEY_FILE=" + keyFile, "XDG_RUNTIME_DIR=" + runtime]
            let attached = try ChildUsage.run(jv, ["attach", entryID.uuidString.lowercased(), source, "--vault", vault, "--no-agent"],
                                              environment: environment, processes: processes, folder: folder)
            let stored = try Vault.open(at: vault).unlock(recoveryKey: try RecoveryKey(text: String(contentsOfFile: keyFile, encoding: .utf8))).attachments()
            guard stored.count == 1, stored[0].size == Int64(bytes) else { throw BenchError.wrongResult("jv attach of \(label) stored \(stored.map(\.size))") }
            let output = folder + "/got.bin"
            unlink(output)
            let got = try ChildUsage.run(jv, ["attachment", "get", stored[0].id.uuidString.lowercased(), "--output", output, "--vault", vault, "--no-agent"],
                                         environment: environment, processes: processes, folder: folder)
            if run == 0 {
                guard try Self.digest(of: output) == expected else { throw BenchError.wrongResult("jv attachment get of \(label): not the file attached") }
            }
            unlink(output)
            try Self.removeVault(vault)
            attach.runs.append(attached.duration)
            get.runs.append(got.duration)
            attachPeak = max(attachPeak, attached.peakKiB)
            getPeak = max(getPeak, got.peakKiB)
            // The baselines, alternated with the processes so that both see the same machine.
            var sealed: SealedStream?
            push.runs.append(try ContinuousClock().measure { sealed = try SealedStream.seal(source, to: run == 0 ? sealedCopy : nil) })
            if run == 0, let sealed {
                var opened = 0
                _ = try sealed.open(sealedCopy) { opened += $0 }
                guard opened == bytes else { throw BenchError.wrongResult("the plain secretstream opened \(opened) of \(bytes) bytes") }
            }
        }
        // Reading the sealed copy back, as many times.
        let sealed = try SealedStream.seal(source, to: sealedCopy)
        for _ in 0..<runs { pull.runs.append(try ContinuousClock().measure { _ = try sealed.open(sealedCopy) { _ in } }) }

        let large = bytes == options.fileBytes && bytes >= 256 << 20
        func rate(_ timings: Timings) -> Double { Double(bytes) / (timings.median.milliseconds / 1000) / 1e6 }
        func row(_ name: String, _ timings: Timings, _ baseline: Timings, peakKiB: Int, minimum: Double) -> ReportRow {
            let memory = Double(peakKiB) / 1024
            let share = rate(timings) / rate(baseline)
            // A small file's time is the process's (start, unlock, the thumbnailer): its rate says nothing.
            return ReportRow(workload: "attach \(label): \(name)", entries: bench.size, vault: timings, baseline: baseline,
                             throughput: large ? String(format: "%.0f MB/s (%.0f%% of plain %.0f MB/s)", rate(timings), share * 100, rate(baseline)) : "",
                             memory: String(format: "%.0f MiB", memory),
                             target: large ? "≥ \(Int(minimum)) MB/s, ≥ 50% plain, ≤ 64 MiB" : "≤ 64 MiB",
                             met: large ? rate(timings) >= minimum && share >= 0.5 && memory <= 64 : memory <= 64)
        }
        return [row("jv attach (process)", attach, push, peakKiB: attachPeak, minimum: 250),
                row("jv attachment get --output (process)", get, pull, peakKiB: getPeak, minimum: 400)]
    }

    /// The plain baseline of a file in and out: read in chunks of the vault's size and sealed
    /// with libsodium's secretstream, nothing stored; opened from a sealed copy the same way.
    private struct SealedStream {
        let key: SecureBytes
        let header: [UInt8]
        static let chunk = 1 << 20

        /// Reads `path` a chunk at a time and seals each; writes the sealed chunks to `copy` when given.
        static func seal(_ path: String, to copy: String?) throws -> SealedStream {
            let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? input.close() }
            let output = try copy.map { path in
                guard FileManager.default.createFile(atPath: path, contents: nil) else { throw BenchError.wrongResult("cannot create \(path)") }
                return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            }
            defer { try? output?.close() }
            let key = try SecureBytes.random(count: SecretStream.keyLength)
            let (writer, header) = try SecretStream.Writer.start(key: key)
            var buffer = [UInt8](repeating: 0, count: chunk)
            while true {
                let count = try fill(&buffer, from: input.fileDescriptor)
                let sealed = try writer.push(count == chunk ? buffer : Array(buffer[..<count]), final: count < chunk)
                try output?.write(contentsOf: sealed)
                if count < chunk { break }
            }
            return SealedStream(key: key, header: header)
        }

        /// Reads the sealed copy a chunk at a time and opens each; `emit` gets each chunk's length.
        func open(_ path: String, _ emit: (Int) -> Void) throws -> Int {
            let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? input.close() }
            let reader = try SecretStream.Reader(key: key, header: header)
            var buffer = [UInt8](repeating: 0, count: Self.chunk + SecretStream.overhead)
            var chunks = 0
            while true {
                let count = try Self.fill(&buffer, from: input.fileDescriptor)
                let (plaintext, isFinal) = try reader.pull(count == buffer.count ? buffer : Array(buffer[..<count]))
                emit(plaintext.count)
                chunks += 1
                if isFinal { return chunks }
            }
        }

        /// Fills `buffer` from `descriptor` as far as the file goes: its length but at the end.
        static func fill(_ buffer: inout [UInt8], from descriptor: Int32) throws -> Int {
            var filled = 0
            while filled < buffer.count {
                let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else { throw BenchError.wrongResult("read failed") }
                if count == 0 { break }
                filled += count
            }
            return filled
        }
    }

    // MARK: Thumbnails

    /// A 24-megapixel JPEG (6,000 × 4,000) of noise over smooth shapes, as `vips` makes it (about
    /// 10 MB at quality 90, as a camera's); nil without the `vips` program.
    private func makeLargeJPEG() throws -> String? {
        guard let vips else {
            FileHandle.standardError.write(Data("attach: no vips program (libvips-tools): the thumbnail row is left out and the photos are random bytes\n".utf8))
            return nil
        }
        let parts = folder + "/jpeg"
        try FileManager.default.createDirectory(atPath: parts, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: parts) }
        let steps: [[String]] = [
            ["perlin", parts + "/p.v", "6000", "4000", "--cell-size", "96", "--uchar"],
            ["gaussnoise", parts + "/g.v", "6000", "4000", "--mean", "0", "--sigma", "12"],
            ["add", parts + "/p.v", parts + "/g.v", parts + "/s.v"],
            ["bandjoin", "\(parts)/s.v \(parts)/p.v \(parts)/s.v", parts + "/c.v"],
            ["cast", parts + "/c.v", parts + "/u.v", "uchar"],
            ["copy", parts + "/u.v", folder + "/photo-24mp.jpg[Q=90]"],
        ]
        for step in steps { _ = try processes.time(vips, step, environment: [], runs: 1) }
        return folder + "/photo-24mp.jpg"
    }

    private func thumbnailRows(_ photo: String) throws -> [ReportRow] {
        let program = URL(fileURLWithPath: jv).deletingLastPathComponent().appendingPathComponent(Thumbnailer.programName).path
        guard FileManager.default.isExecutableFile(atPath: program), let vips else { return [] }
        let thumbnailer = Thumbnailer(executable: program)
        let descriptor = open(photo, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BenchError.wrongResult("cannot open \(photo)") }
        defer { close(descriptor) }
        var details: MediaDetails?
        var described = Timings(), plain = Timings()
        for _ in 0..<10 {
            described.runs.append(ContinuousClock().measure { details = thumbnailer.describe(fileDescriptor: descriptor) })
            plain.runs += try processes.time(vips, ["thumbnail", photo, folder + "/thumbnail.jpg", "320"], environment: [], runs: 1).runs
        }
        guard let details, details.media.width == 6000, details.media.height == 4000, case let thumbnail = details.thumbnail, !thumbnail.isEmpty else {
            throw BenchError.wrongResult("jv-thumbnail describe of the 24-megapixel JPEG: \(details.map(\.description) ?? "no answer")")
        }
        let size = (try FileManager.default.attributesOfItem(atPath: photo)[.size] as? Int) ?? 0
        return [ReportRow(workload: "attach: thumbnail of a 24 MP JPEG (jv-thumbnail describe)", entries: bench.size, vault: described, baseline: plain,
                          throughput: String(format: "%.1f MB JPEG, thumbnail %d B; plain: vips thumbnail", Double(size) / 1e6, thumbnail.count),
                          target: "≤ 150 ms", met: described.median <= .milliseconds(150))]
    }

    // MARK: A vault with photos

    /// A small JPEG the photos are made of (640 pixels wide, from the large one), its media details
    /// and thumbnail; random bytes without vips.
    private struct BasePhoto {
        let bytes: [UInt8]
        let media: AttachmentMedia
        let thumbnail: [UInt8]

        /// Photo `index` of `length` bytes: the JPEG, then bytes after its end (which readers ignore)
        /// that make each photo's content its own, so none is stored as another's.
        func photo(_ index: Int, length: Int) -> [UInt8] {
            var photo = bytes
            withUnsafeBytes(of: UInt64(index).littleEndian) { photo += $0 }
            var random = Corpus.Generator(state: UInt64(index))
            while photo.count < length { withUnsafeBytes(of: random.next()) { photo += $0.prefix(length - photo.count) } }
            return photo
        }
    }

    private func basePhoto(from large: String?) throws -> BasePhoto {
        let small = folder + "/base.jpg"
        if let large, let vips {
            _ = try processes.time(vips, ["thumbnail", large, small, "640"], environment: [], runs: 1)
        } else {
            var random = Corpus.Generator(state: 5)
            let bytes = (0..<8192).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } }
            guard FileManager.default.createFile(atPath: small, contents: Data([0xFF, 0xD8, 0xFF] + bytes)) else {
                throw BenchError.wrongResult("cannot write \(small)")
            }
        }
        let bytes = [UInt8](FileManager.default.contents(atPath: small) ?? Data())
        let program = URL(fileURLWithPath: jv).deletingLastPathComponent().appendingPathComponent(Thumbnailer.programName).path
        let descriptor = open(small, O_RDONLY | O_CLOEXEC)
        defer { if descriptor >= 0 { close(descriptor) } }
        let details = FileManager.default.isExecutableFile(atPath: program) && descriptor >= 0
            ? Thumbnailer(executable: program).describe(fileDescriptor: descriptor) : nil
        return BasePhoto(bytes: bytes, media: details?.media ?? AttachmentMedia(mediaType: "image/jpeg", kind: .image),
                         thumbnail: details?.thumbnail ?? [])
    }

    private func photoVaultRows(base: BasePhoto) throws -> [ReportRow] {
        let corpus = bench.corpus
        let (plainVault, plainKey, _) = try newVault("without-photos", entries: corpus.entries)
        let (photoVault, photoKey, _) = try newVault("with-photos", entries: corpus.entries)
        defer {
            if !bench.keep {
                try? Self.removeVault(plainVault)
                try? Self.removeVault(photoVault)
            }
        }
        // Photos attached a few to an entry (as a day's photos are), spread over the journal. The
        // vault is let go afterwards, as the last jv command to write it would: its write-ahead
        // log folded in, so the processes timed below find it as a person's vault is.
        let build: Timings
        do {
            let journal = try Vault.open(at: photoVault).unlock(recoveryKey: try RecoveryKey(text: String(contentsOfFile: photoKey, encoding: .utf8)))
            let perEntry = 4
            let groups = (options.photos + perEntry - 1) / perEntry
            let spacing = max(1, corpus.entries.count / max(groups, 1))
            FileHandle.standardError.write(Data("attach: building a vault of \(corpus.entries.count) entries with \(options.photos) photos of \(options.photoBytes) bytes…\n".utf8))
            build = try Timings.measure(1) {
                for group in 0..<groups {
                    let first = group * perEntry
                    let inputs = try (first..<min(first + perEntry, options.photos)).map { index in
                        let path = folder + "/photo-\(index - first).jpg"
                        guard FileManager.default.createFile(atPath: path, contents: Data(base.photo(index, length: options.photoBytes))) else {
                            throw BenchError.wrongResult("cannot write \(path)")
                        }
                        return AttachmentInput.file(path, name: String(format: "IMG_%05d.jpg", index), media: base.media, thumbnail: base.thumbnail)
                    }
                    try journal.attach(inputs, to: corpus.entries[(group * spacing) % corpus.entries.count].id)
                }
            }
            let attached = try journal.attachmentCounts().values.reduce(0, +)
            guard attached == options.photos else { throw BenchError.wrongResult("the photo vault holds \(attached) of \(options.photos) photos") }
        }
        guard !FileManager.default.fileExists(atPath: photoVault + "-wal") else {
            throw BenchError.wrongResult("the photo vault's write-ahead log is still there after the vault was let go")
        }
        let photoVaultBytes = Self.fileSize(photoVault)
        var rows = [ReportRow(workload: "attach: build a vault with \(options.photos) photos (library)", entries: bench.size, vault: build,
                              throughput: String(format: "%.0f photos/s, vault %.2f GB", Double(options.photos) / (build.median.milliseconds / 1000),
                                                 Double(photoVaultBytes) / 1e9))]

        let month = corpus.entries[corpus.entries.count / 2].localDay
        let monthStart = CivilDay(year: month.year, month: month.month, day: 1)!
        let monthEnd = CivilDay(year: month.year, month: month.month, day: CivilDay.daysIn(month: month.month, year: month.year))!
        let commands: [(String, [String])] = [
            ("jv list -n 10", ["list", "-n", "10"]),
            ("jv list (a month)", ["list", "--from", monthStart.description, "--to", monthEnd.description]),
            ("jv calendar YYYY", ["calendar", String(month.year)]),
            ("jv search WORD", ["search", Corpus.needle]),
        ]
        for (name, arguments) in commands {
            var with = Timings(), without = Timings()
            for _ in 0..<Self.alternatedRuns {
                without.runs += try processes.time(jv, arguments + ["--vault", plainVault, "--no-agent"],
                                                   environment: ["JV_RECOVERY_KEY_FILE=" + plainKey, "XDG_RUNTIME_DIR=" + runtime], runs: 1).runs
                with.runs += try processes.time(jv, arguments + ["--vault", photoVault, "--no-agent"],
                                                environment: ["JV_RECOVERY_KEY_FILE=" + photoKey, "XDG_RUNTIME_DIR=" + runtime], runs: 1).runs
            }
            let ratio = with.median.milliseconds / without.median.milliseconds
            rows.append(ReportRow(workload: "attach: \(options.photos) photos, process: \(name)", entries: bench.size, vault: with, baseline: without,
                                  throughput: "baseline: the vault without photos", target: "≤ 1.05× without photos", met: ratio <= 1.05))
        }

        // Backup of the photo vault, beside cp of its file then sync of the copy (the backup is durable too).
        // Each starts once the disk has written out everything before it (an untimed `sync`): the
        // vault was just built, and gigabytes still being written back would slow whichever ran
        // next, by seconds.
        let backupFile = folder + "/photos.jvbak", copy = folder + "/photos-copy.vault"
        var backup = Timings(), plainCopy = Timings(), copyOnly = Timings()
        for _ in 0..<3 {
            unlink(backupFile)
            unlink(copy)
            _ = try processes.time("/bin/sync", [], environment: [], runs: 1)
            let copied = try processes.time("/bin/cp", [photoVault, copy], environment: [], runs: 1)
            let synced = try processes.time("/bin/sync", [copy], environment: [], runs: 1)
            copyOnly.runs += copied.runs
            plainCopy.runs.append(copied.median + synced.median)
            unlink(copy)
            _ = try processes.time("/bin/sync", [], environment: [], runs: 1)
            backup.runs += try processes.time(jv, ["backup", backupFile, "--vault", photoVault, "--no-agent"],
                                              environment: ["JV_RECOVERY_KEY_FILE=" + photoKey, "XDG_RUNTIME_DIR=" + runtime], runs: 1).runs
        }
        let backupBytes = Self.fileSize(backupFile)
        unlink(backupFile)
        guard backupBytes >= photoVaultBytes / 2 else { throw BenchError.wrongResult("the photo vault's backup is \(backupBytes) bytes") }
        let speed = Double(photoVaultBytes) / (backup.median.milliseconds / 1000) / 1e6
        let cpSpeed = Double(photoVaultBytes) / (plainCopy.median.milliseconds / 1000) / 1e6
        rows.append(ReportRow(workload: "attach: \(options.photos) photos, process: jv backup", entries: bench.size, vault: backup, baseline: plainCopy,
                              throughput: String(format: "%.0f MB/s (%.0f%% of cp + sync %.0f MB/s; cp alone %@)", speed, speed / cpSpeed * 100, cpSpeed,
                                                 copyOnly.median.text),
                              target: "≥ 70% of cp", met: speed >= 0.7 * cpSpeed))
        return rows
    }

    // MARK: Sync

    /// `jv sync` sending one new 5 MB photo, on a vault of the corpus whose sync is set up.
    private func syncRows(base: BasePhoto) throws -> [ReportRow] {
        let (vault, keyFile, _) = try newVault("sync", entries: bench.corpus.entries)
        defer { try? Self.removeVault(vault) }
        let location = folder + "/sync-location"
        let journal = try Vault.open(at: vault).unlock(recoveryKey: try RecoveryKey(text: String(contentsOfFile: keyFile, encoding: .utf8)))
        _ = try SyncEngine(journal).setUp(at: location)
        let environment = ["JV_RECOVERY_KEY_FILE=" + keyFile, "XDG_RUNTIME_DIR=" + runtime]
        var sync = Timings(), nothing = Timings(), plain = Timings(), copyOnly = Timings()
        for run in 0..<Self.syncRuns {
            nothing.runs += try processes.time(jv, ["sync", "run", "--vault", vault, "--no-agent"], environment: environment, runs: 1).runs
            let path = folder + "/sync-photo.jpg"
            guard FileManager.default.createFile(atPath: path, contents: Data(base.photo(1_000_000 + run, length: Self.syncPhotoBytes))) else {
                throw BenchError.wrongResult("cannot write \(path)")
            }
            try journal.attach([.file(path, name: "IMG_SYNC_\(run).jpg", media: base.media, thumbnail: base.thumbnail)],
                               to: bench.corpus.entries[(run * 977) % bench.corpus.entries.count].id)
            let before = Self.largeFiles(in: location)
            sync.runs += try processes.time(jv, ["sync", "run", "--vault", vault, "--no-agent"], environment: environment, runs: 1).runs
            guard Self.largeFiles(in: location) == before + 1 else {
                throw BenchError.wrongResult("jv sync did not write the new photo's content to the location")
            }
            let copy = location + "/plain-\(run).jpg"
            let copied = try processes.time("/bin/cp", [path, copy], environment: [], runs: 1)
            let synced = try processes.time("/bin/sync", [copy], environment: [], runs: 1)
            copyOnly.runs += copied.runs
            plain.runs.append(copied.median + synced.median)
            unlink(copy)
        }
        let beyond = sync.median - plain.median
        return [
            ReportRow(workload: "attach: process: jv sync, nothing new", entries: bench.size, vault: nothing),
            ReportRow(workload: "attach: process: jv sync, send 1 new 5 MB photo", entries: bench.size, vault: sync, baseline: plain,
                      throughput: "\(beyond.text) beyond cp + sync (cp alone \(copyOnly.median.text))",
                      target: "≤ 100 ms beyond the copy", met: beyond <= .milliseconds(100)),
        ]
    }

    // MARK: Helpers

    /// A new vault (the `interactive` profile) under `name` with `entries` (one of its own when
    /// none are given), its recovery key in a file, and the first entry's id.
    private func newVault(_ name: String, entries: [Entry] = []) throws -> (path: String, keyFile: String, entryID: UUID) {
        let path = folder + "/\(name).vault"
        try Self.removeVault(path)
        let (journal, recoveryKey) = try Vault.create(at: path, passphrase: secret, kdf: .profile(.interactive))
        let entryID: UUID
        if entries.isEmpty {
            entryID = try journal.addEntry("An entry to attach files to.").id
        } else {
            for start in stride(from: 0, to: entries.count, by: 5000) { try journal.addEntries(Array(entries[start..<min(start + 5000, entries.count)])) }
            entryID = entries[0].id
        }
        let keyFile = folder + "/\(name).recovery-key"
        try recoveryKey.text.write(toFile: keyFile, atomically: true, encoding: .utf8)
        return (path, keyFile, entryID)
    }

    private static func removeVault(_ path: String) throws {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }

    private static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
    }

    /// Files of at least 1 MB under `folder`, recursively.
    private static func largeFiles(in folder: String) -> Int {
        (FileManager.default.subpaths(atPath: folder) ?? []).filter { fileSize(folder + "/" + $0) >= 1_000_000 }.count
    }

    /// `bytes` of pseudo-random content (no two MiB alike) written to `path`.
    private static func writeRandomFile(_ path: String, bytes: Int) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw BenchError.wrongResult("cannot create \(path)") }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var random = Corpus.Generator(state: 24)
        var block = (0..<(1 << 17)).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } }
        var written = 0, counter: UInt64 = 0
        while written < bytes {
            withUnsafeBytes(of: counter) { block.replaceSubrange(0..<8, with: $0) }
            counter += 1
            let count = min(block.count, bytes - written)
            try handle.write(contentsOf: block[..<count])
            written += count
        }
    }

    /// BLAKE2b-256 of the file at `path`, read a MiB at a time.
    private static func digest(of path: String) throws -> [UInt8] {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var digest = try Blake2bStream()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = try SealedStream.fill(&buffer, from: handle.fileDescriptor)
            buffer.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            if count < buffer.count { break }
        }
        return try digest.finalize()
    }
}
