import ArgumentParser

/// The shell completion scripts: the parser's, with each command's aliases
/// (`readers` for `pins`) completed as the command itself. The parser's
/// generators leave aliases out; `firn --generate-completion-script SHELL`
/// comes here instead (`make docs` writes the result to completions/).
enum CompletionScript {
    static func script(for shell: CompletionShell) -> String {
        var script = Firn.completionScript(for: shell)
        for command in Firn.configuration.subcommands {
            let name = command.configuration.commandName ?? ""
            for alias in command.configuration.aliases {
                switch shell {
                case .bash: script = bash(script, alias: alias, of: name)
                case .zsh: script = zsh(script, alias: alias, of: name)
                case .fish: script = fish(script, alias: alias, of: name)
                default: break
                }
            }
        }
        return script
    }

    /// `a|name|b)` case patterns and the `compgen -W 'a name b'` word list
    /// name the alias too; its function calls the command's.
    private static func bash(_ script: String, alias: String, of name: String) -> String {
        var lines = lines(of: script).map { line -> String in
            if isCasePattern(line, containing: name) { return line.replacingFirst("|\(name)|", with: "|\(name)|\(alias)|") }
            if line.contains("compgen -W '") && line.contains(" \(name) ") {
                return line.replacingFirst(" \(name) ", with: " \(name) \(alias) ")
            }
            return line
        }
        let end = lines.lastIndex { $0.hasPrefix("complete ") } ?? lines.count
        lines.insert(contentsOf: ["_firn_\(alias)() {", "    _firn_\(name)", "}", ""], at: end)
        return lines.joined(separator: "\n")
    }

    private static func zsh(_ script: String, alias: String, of name: String) -> String {
        var lines: [String] = []
        for line in Self.lines(of: script) {
            if isCasePattern(line, containing: name) {
                lines.append(line.replacingFirst("|\(name)|", with: "|\(name)|\(alias)|"))
                continue
            }
            lines.append(line)
            // The subcommand list's entry 'name:abstract' again as 'alias:abstract'.
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("'\(name):") {
                lines.append(line.replacingFirst("'\(name):", with: "'\(alias):"))
            }
        }
        let end = lines.lastIndex { $0.hasPrefix("if [[ \"${funcstack[1]}\"") } ?? lines.count
        lines.insert(contentsOf: ["_firn_\(alias)() {", "    _firn_\(name)", "}", ""], at: end)
        return lines.joined(separator: "\n")
    }

    /// Every line about the command ("firn name", case 'name', -fa 'name')
    /// again for the alias.
    private static func fish(_ script: String, alias: String, of name: String) -> String {
        var lines: [String] = []
        for line in Self.lines(of: script) {
            if line.drop(while: { $0 == " " }) == "case '\(name)'" {
                lines.append(line.replacingFirst("case '\(name)'", with: "case '\(name)' '\(alias)'"))
                continue
            }
            lines.append(line)
            if line.hasPrefix("complete ") && line.contains("\"firn \(name)\"") {
                lines.append(line.replacingFirst("\"firn \(name)\"", with: "\"firn \(alias)\""))
            } else if line.hasPrefix("complete ") && line.contains("-fa '\(name)' ") {
                lines.append(line.replacingFirst("-fa '\(name)' ", with: "-fa '\(alias)' "))
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func lines(of script: String) -> [String] {
        script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// A `case` branch's pattern list that names the command: `a|name|b)`.
    private static func isCasePattern(_ line: String, containing name: String) -> Bool {
        let trimmed = line.drop { $0 == " " }
        return trimmed.hasSuffix(")") && !trimmed.contains(" ") && trimmed.contains("|\(name)|")
    }
}

extension String {
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
