import Foundation

/// bash, zsh or fish with the completion script `jv --generate-completion-script` writes for it,
/// loaded where that shell's own completion system finds it, asked what TAB offers at the end of
/// a command line — with the sandbox's environment and `jv` on the PATH, as when installed.
///
/// - bash: bash-completion's loader finds the script in `~/.local/share/bash-completion/completions`;
///   the function it registers for `jv` runs with `COMP_WORDS`/`COMP_CWORD` set as bash sets them.
/// - zsh: an interactive zsh on a pseudo-terminal of its own (`zsh/zpty`) runs `compinit` with the
///   script in its `fpath` and is typed the line and a TAB; a `compadd` wrapper writes the matches
///   the completion adds to a file.
/// - fish: `complete -C LINE`, fish's own "what would TAB offer", with the script in
///   `~/.config/fish/completions`.
struct CompletingShell: CustomStringConvertible {
    enum Kind: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    let kind: Kind
    private let sandbox: Sandbox
    private let executable: String
    private let environment: [String: String?]

    var description: String { kind.rawValue }

    init(_ kind: Kind, sandbox: Sandbox) throws {
        guard let executable = JV.tool(kind.rawValue) else {
            throw HarnessError("\(kind.rawValue) is not installed: the completion tests need the Debian package '\(kind.rawValue)' (make test-deps installs it).")
        }
        if kind == .bash, !FileManager.default.fileExists(atPath: Self.bashCompletion) {
            throw HarnessError("\(Self.bashCompletion) is missing: the completion tests need the Debian package 'bash-completion' (make test-deps installs it).")
        }
        self.kind = kind
        self.sandbox = sandbox
        self.executable = executable
        let binaryFolder = (sandbox.binary as NSString).deletingLastPathComponent
        environment = ["PATH": binaryFolder + ":" + (sandbox.environment["PATH"] ?? "/usr/bin:/bin")]
        let script = try sandbox.run(["--generate-completion-script", kind.rawValue])
        try Sandbox.requireSuccess(script)
        try sandbox.folder.write(scriptPath, script.stdout)
        if kind == .zsh { try sandbox.folder.write(Self.zshSetup, Self.zshSetupScript) }
    }

    /// What TAB offers after `line` typed in `folder`: `line`'s words are split at spaces, and a
    /// trailing space starts a new, empty word. The candidates, without descriptions or a
    /// folder's trailing `/`, sorted and each once.
    func offers(_ line: String, in folder: String) throws -> [String] {
        let result: JVResult
        switch kind {
        case .bash:
            result = try sandbox.runTool(executable, ["--norc", "--noprofile", "-c", Self.bashDriver, "bash", folder, Self.bashCompletion]
                                         + line.split(separator: " ", omittingEmptySubsequences: false).map(String.init), env: environment)
        case .zsh:
            let output = sandbox.folder.file("zsh-offers-\(UUID().uuidString)")
            result = try sandbox.runTool(executable, ["-f", "-c", Self.zshDriver, "zsh", folder, sandbox.folder.file(Self.zshSetup), output, line],
                                         env: environment.merging(["JV_TEST_FPATH": (sandbox.folder.file(scriptPath) as NSString).deletingLastPathComponent,
                                                                   "JV_TEST_OFFERS": output]) { $1 })
        case .fish:
            result = try sandbox.runTool(executable, ["-c", "cd $argv[1]; and complete -C $argv[2]", folder, line], env: environment)
        }
        guard result.status == 0, !result.timedOut else { throw HarnessError("\(kind) completing '\(line)' failed: \(result)") }
        let candidates = result.lines.map { candidate in
            let shown = String(candidate.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)[0])
            return shown.count > 1 && shown.hasSuffix("/") ? String(shown.dropLast()) : shown
        }
        return Set(candidates).sorted()
    }

    /// Where each shell's completion system looks for `jv`'s script, under the sandbox's HOME.
    private var scriptPath: String {
        switch kind {
        case .bash: "home/.local/share/bash-completion/completions/jv"
        case .zsh: "zsh-functions/_jv"
        case .fish: "home/.config/fish/completions/jv.fish"
        }
    }

    private static let bashCompletion = "/usr/share/bash-completion/bash_completion"

    /// `bash -c DRIVER bash FOLDER BASH_COMPLETION WORD…`: what the function bash-completion
    /// loads for `jv` puts in COMPREPLY for the last word.
    private static let bashDriver = #"""
        cd "$1" && source "$2" && shift 2 || exit 2
        __load_completion jv || { echo "bash-completion found no completion for jv" >&2; exit 2; }
        spec=$(complete -p jv) || exit 2
        function=${spec##* -F }; function=${function%% *}
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        COMPREPLY=()
        "$function" jv "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        ((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}"
        """#

    private static let zshSetup = "zsh-setup.zsh"

    /// Sourced by the interactive zsh: the completion system with `_jv`, and a `compadd` that
    /// also writes down what it adds. `$JV_TEST_OFFERS.ready` says the shell is ready for the
    /// line; `$JV_TEST_OFFERS.done` that a completion has finished.
    private static let zshSetupScript = #"""
        PROMPT='' RPROMPT=''
        fpath=("$JV_TEST_FPATH" $fpath)
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
        jv_test_completion_done() { : > "$JV_TEST_OFFERS.done" }
        comppostfuncs=(jv_test_completion_done)
        : > "$JV_TEST_OFFERS.ready"
        """#

    /// `zsh -f -c DRIVER zsh FOLDER SETUP OFFERS LINE`: types LINE and a TAB into an interactive
    /// zsh set up by SETUP, in FOLDER, and prints what the completion offered.
    private static let zshDriver = #"""
        cd "$1" || exit 2
        local setup=$2 offers=$3 line=$4
        zmodload zsh/zpty zsh/zselect || exit 2
        # Waits (up to 10 s) for FILE, reading what the shell prints so that it never blocks on a full terminal.
        awaiting() {
            local -i tries=0
            local printed
            while [[ ! -e $1 ]] && (( tries++ < 200 )); do
                while zpty -r -t completing printed; do :; done
                zselect -t 5
            done
            [[ -e $1 ]] || { print -u2 "zsh never wrote ${1:t}"; zpty -d completing; exit 3 }
        }
        zpty completing zsh -f -i
        zpty -w completing "source ${(q)setup}"
        awaiting $offers.ready
        zpty -w -n completing "$line"$'\t'
        awaiting $offers.done
        zpty -d completing
        [[ ! -e $offers ]] || cat $offers
        """#
}
