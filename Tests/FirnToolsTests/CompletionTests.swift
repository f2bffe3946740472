import FirnTestSupport
import Foundation
import Testing

/// The completion scripts as a shell runs them: each option offered once
/// (`verify --version` was offered twice, the database version and the
/// parser's), and aliases completed as their command (`readers`).
@Suite struct CompletionTests {
    static let bash = Repository.root + "/completions/firn.bash"

    /// What bash's completion offers for `words`, the last being completed.
    static func complete(_ words: [String]) throws -> [String] {
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let script = """
            source "$0"
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
            COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            _firn firn "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let run = try ChildProcess.run("/bin/bash", ["-c", script, Self.bash])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    @Test func aliasesCompleteAsTheirCommand() throws {
        #expect(try Self.complete(["firn", "rea"]) == ["readers"])
        #expect(try Self.complete(["firn", "readers", "x.firn", "--max-l"]) == ["--max-lag"])
        let zsh = try String(contentsOfFile: Repository.root + "/completions/_firn", encoding: .utf8)
        #expect(zsh.contains("'readers:Show the reader table") && zsh.contains("|pins|readers|") && zsh.contains("_firn_readers()"))
        let fish = try String(contentsOfFile: Repository.root + "/completions/firn.fish", encoding: .utf8)
        #expect(fish.contains("case 'pins' 'readers'") && fish.contains("-fa 'readers'") && fish.contains("\"firn readers\" max-lag"))
    }

    @Test func everyOptionIsOfferedOnce() throws {
        for command in ["info", "versions", "pins", "growth", "dump", "get", "load", "verify", "checkpoint", "compact",
                        "export", "import", "hold", "demo"] {
            let offered = try Self.complete(["firn", command, "x.firn", "--"])
            #expect(!offered.isEmpty, "\(command)")
            #expect(Set(offered).count == offered.count,
                    "\(command) offers \(offered.filter { o in offered.filter { $0 == o }.count > 1 }) more than once")
        }
        #expect(try Self.complete(["firn", "verify", "x.firn", "--ver"]) == ["--version"])
    }
}
