// SPDX-License-Identifier: Apache-2.0
import Foundation

/// bash, zsh or fish with the completion script `jv --generate-completion-script` writes for it,
/// asked what TAB offers at the end of a command line through that shell's own completion
/// machinery — with the sandbox's environment and `jv` on the PATH, as when installed.
///
/// - bash: bash-completion's loader finds the script in `~/.local/share/bash-completion/completions`;
///   the function it registers for `jv` runs with `COMP_WORDS`/`COMP_CWORD` set as bash sets them.
/// - zsh: an interactive zsh on a pseudo-terminal (driven by zsh's `zsh/zpty`) runs `compinit`
///   with the script in its `fpath` and is typed the line and a TAB; a `compadd` wrapper writes
///   down the matches the completion adds.
/// - fish: an interactive fish on a pseudo-terminal sources the script and is typed the line and a
///   key bound to `complete -C` of the line: the completions TAB would offer. (fish 3.6's
///   `complete -C` outside an interactive session has no cursor, which the script asks for.)
struct CompletingShell: CustomStringConvertible {
    enum Kind: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    let kind: Kind
    private let sandbox: Sandbox
    private let executable: String
    /// zsh, which drives zsh and fish on a pseudo-terminal (bash needs none).
    private let driver: String?
    private let environment: [String: String?]

    var description: String { kind.rawValue }

    init(_ kind: Kind, sandbox: Sandbox) throws {
        func required(_ program: String, why: String = "") throws -> String {
            guard let path = JV.tool(program) else {
                throw HarnessError("\(program) is not installed: the \(kind.rawValue) completion tests need the Debian package '\(program)'\(why) (make test-deps installs it).")
            }
            return path
        }
        executable = try required(kind.rawValue)
        driver = kind == .bash ? nil : try required("zsh", why: kind == .zsh ? "" : " to drive \(kind.rawValue) on a pseudo-terminal")
        if kind == .bash, !FileManager.default.fileExists(atPath: Self.bashCompletion) {
            throw HarnessError("\(Self.bashCompletion) is missing: the bash completion tests need the Debian package 'bash-completion' (make test-deps installs it).")
        }
        self.kind = kind
        self.sandbox = sandbox
        let binaryFolder = (sandbox.binary as NSString).deletingLastPathComponent
        environment = ["PATH": binaryFolder + ":" + (sandbox.environment["PATH"] ?? "/usr/bin:/bin"),
                       "JV_TEST_SCRIPT": sandbox.folder.file(Self.scriptPath(kind))]
        let script = try sandbox.run(["--generate-completion-script", kind.rawValue])
        try Sandbox.requireSuccess(script)
        try sandbox.folder.write(Self.scriptPath(kind), script.stdout)
        if kind == .zsh { try sandbox.folder.write(Self.zshSetup, Self.zshSetupScript) }
    }

    /// What TAB offers after each of `lines`, typed one after the other into one shell in
    /// `folder`. A line's words are split at spaces, and a trailing space starts a new, empty
    /// word. For each line, the candidates without descriptions or a folder's trailing `/`,
    /// sorted and each once.
    func offers(_ lines: [String], in folder: String) throws -> [[String]] {
        let result: JVResult
        switch kind {
        case .bash:
            result = try sandbox.runTool(executable, ["--norc", "--noprofile", "-c", Self.bashDriver, "bash", folder, Self.bashCompletion] + lines,
                                         env: environment)
        case .zsh:
            // Ctrl-U first: the line the previous TAB left is wiped.
            result = try typed(lines.map { "\u{15}" + $0 + "\t" }, into: [executable, "-f", "-i"],
                               setup: "source \(sandbox.folder.file(Self.zshSetup))", in: folder)
        case .fish:
            result = try typed(lines.map { $0 + "\u{18}" }, into: [executable, "--no-config", "-i"], setup: Self.fishSetup, in: folder)
        }
        guard result.status == 0, !result.timedOut else { throw HarnessError("\(kind) completing \(lines) failed: \(result)") }
        let offered = result.out.components(separatedBy: Self.separator + "\n").dropLast().map { block in
            let candidates = block.split(separator: "\n").map { candidate in
                let shown = String(candidate.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)[0])
                return shown.count > 1 && shown.hasSuffix("/") ? String(shown.dropLast()) : shown
            }
            return Set(candidates).sorted()
        }
        guard offered.count == lines.count else { throw HarnessError("\(kind) answered \(offered.count) of \(lines.count) lines: \(result)") }
        return offered
    }

    /// Ends each line's candidates in the drivers' output.
    private static let separator = "\u{1e}"

    /// Runs `shell` on a pseudo-terminal in `folder`, types `setup` and Enter, then (once the shell
    /// says it is ready) each of `keys`; the shell writes what completing offered to `$JV_TEST_OFFERS`.
    private func typed(_ keys: [String], into shell: [String], setup: String, in folder: String) throws -> JVResult {
        guard let driver else { throw HarnessError("\(kind) is not driven on a pseudo-terminal") }
        let offers = sandbox.folder.file("offers-\(UUID().uuidString)")
        return try sandbox.runTool(driver, ["-f", "-c", Self.ptyDriver, "zsh", folder, offers, setup, String(shell.count)] + shell + keys,
                                   env: environment.merging(["JV_TEST_OFFERS": offers]) { $1 })
    }

    /// Where the script is written: where each shell's completion system looks for it (bash,
    /// zsh), or anywhere (fish sources it).
    private static func scriptPath(_ kind: Kind) -> String {
        switch kind {
        case .bash: "home/.local/share/bash-completion/completions/jv"
        case .zsh: "zsh-functions/_jv"
        case .fish: "jv.fish"
        }
    }

    private static let bashCompletion = "/usr/share/bash-completion/bash_completion"

    /// `bash -c DRIVER bash FOLDER BASH_COMPLETION LINE…`: what the function bash-completion
    /// loads for `jv` puts in COMPREPLY for the last word of each LINE, each followed by a separator line.
    private static let bashDriver = #"""
        cd "$1" && source "$2" && shift 2 || exit 2
        __load_completion jv || { echo "bash-completion found no completion for jv" >&2; exit 2; }
        spec=$(complete -p jv) || exit 2
        function=${spec##* -F }; function=${function%% *}
        for line in "$@"; do
            read -ra COMP_WORDS <<< "$line"
            [[ $line != *' ' ]] || COMP_WORDS+=('')
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE=$line; COMP_POINT=${#COMP_LINE}
            COMPREPLY=()
            "$function" jv "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
            ((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}"
            printf '\x1e\n'
        done
        """#

    /// `zsh -f -c DRIVER zsh FOLDER OFFERS SETUP N SHELL(N words) KEYS…`: starts SHELL on a
    /// pseudo-terminal in FOLDER, types SETUP and Enter, waits for OFFERS.ready; then for each KEYS
    /// types them, waits for OFFERS.done and prints OFFERS, then a separator line.
    private static let ptyDriver = #"""
        cd "$1" || exit 2
        local offers=$2 setup=$3
        local -a shell=("${@[5,4+$4]}") typed=("${@[5+$4,-1]}")
        zmodload zsh/zpty zsh/zselect || exit 2
        # Waits (up to 10 s) for a file, reading what the shell prints so that it never blocks on a full terminal.
        awaiting() {
            local -i tries=0
            local printed
            while [[ ! -e $1 ]] && (( tries++ < 200 )); do
                while zpty -r -t completing printed; do :; done
                zselect -t 5
            done
            [[ -e $1 ]] || { print -u2 "$shell[1] never wrote ${1:t}"; zpty -d completing; exit 3 }
        }
        zpty completing ${(j: :)${(q)shell}}
        zpty -w completing "$setup"
        awaiting $offers.ready
        local keys
        for keys in $typed; do
            zpty -w -n completing "$keys"
            awaiting $offers.done
            rm -f $offers.done
            [[ ! -e $offers ]] || { cat $offers; rm -f $offers }
            print -r -- $'\x1e'
        done
        zpty -d completing
        """#

    private static let zshSetup = "zsh-setup.zsh"

    /// Sourced by the interactive zsh: the completion system with `_jv`, and a `compadd` that
    /// also writes down what it adds.
    private static let zshSetupScript = #"""
        PROMPT='' RPROMPT=''
        bindkey -e
        fpath=("${JV_TEST_SCRIPT:h}" $fpath)
        autoload -Uz compinit && compinit -u -D
        compadd() {
            # Calls that only gather matches for their caller (-O, -A, -D) add none themselves.
            if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
                builtin compadd "$@"
                return
            fi
            local -a added
            builtin compadd -A added "$@"
            (( ${#added} )) && print -rl -- $added >> "$JV_TEST_OFFERS"
            builtin compadd "$@"
        }
        # Run after every completion: _main_complete empties comppostfuncs before it calls them.
        jv_test_completion_done() {
            : > "$JV_TEST_OFFERS.done"
            comppostfuncs=(jv_test_completion_done)
        }
        comppostfuncs=(jv_test_completion_done)
        : > "$JV_TEST_OFFERS.ready"
        """#

    /// Typed into the interactive fish: the script, and Ctrl-X bound to write what TAB would offer
    /// and clear the line.
    private static let fishSetup = #"""
        source $JV_TEST_SCRIPT; bind \cx 'complete -C (commandline -cp) > $JV_TEST_OFFERS; commandline ""; touch $JV_TEST_OFFERS.done'; touch $JV_TEST_OFFERS.ready
        """#
}
