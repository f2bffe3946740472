import ArgumentParser
import FirnCore
import FirnTools

/// The one place errors become exit statuses (sysexits, as DESIGN.md's
/// toolkit contract lists them) and one line on stderr.
enum ExitStatus {
    static let ok: Int32 = 0
    static let thresholdCrossed: Int32 = 1
    /// `get`: the key is absent (as `bbolt get`, `grep`).
    static let absent: Int32 = 1
    static let usage: Int32 = 64  // EX_USAGE
    static let dataError: Int32 = 65  // EX_DATAERR
    static let noInput: Int32 = 66  // EX_NOINPUT
    static let software: Int32 = 70  // EX_SOFTWARE
    static let cannotCreate: Int32 = 73  // EX_CANTCREAT
    static let ioError: Int32 = 74  // EX_IOERR
    static let tempFail: Int32 = 75  // EX_TEMPFAIL
    static let interrupted: Int32 = 130

    static func code(for error: any Error) -> Int32 {
        switch error {
        case let error as FirnError:
            switch error {
            case .notFound, .notAFirnFile: return noInput
            case .corrupt: return dataError
            case .busy: return tempFail
            case .noSpace, .cannotCreate: return cannotCreate
            case .io: return error.isNoSpace ? cannotCreate : ioError
            case .invalidArgument: return usage
            case .misuse: return software
            }
        case let error as ToolError:
            switch error {
            case .usage: return usage
            case .thresholdCrossed: return thresholdCrossed
            case .absent: return absent
            case .verificationFailed, .corruptInput: return dataError
            case .badInput: return noInput
            case .outputExists, .cannotCreate, .insufficientSpace: return cannotCreate
            case .io: return ioError
            case .interrupted, .loadInterrupted: return interrupted
            case .outputClosed: return ok
            }
        case let error as ExitCode:
            return error.rawValue
        case is ValidationError:
            return usage
        default:
            let parserCode = Firn.exitCode(for: error).rawValue
            return parserCode == 0 ? software : parserCode
        }
    }

    /// Prints a parse or validation error as one line, `firn: <what is wrong>
    /// (see firn help <command>)`, instead of the parser's message, help and
    /// usage lines, and returns 64.
    static func reportUsage(_ error: any Error, arguments: [String]) -> Int32 {
        var text = Firn.message(for: error).split(separator: "\n")
            .map { $0.drop { $0 == " " } }.filter { !$0.isEmpty }.joined(separator: "; ")
        // The parser's sentences start with a capital; the toolkit's error lines do not.
        if let first = text.first, first.isUppercase, text.dropFirst().first?.isLowercase == true {
            text = first.lowercased() + text.dropFirst()
        }
        let command = arguments.first.flatMap { name in
            Firn.configuration.subcommands.first {
                $0.configuration.commandName == name || $0.configuration.aliases.contains(name)
            }?.configuration.commandName
        }
        Console.error("firn: \(text) (see firn help\(command.map { " " + $0 } ?? ""))")
        return usage
    }

    /// Prints the error's one line (`firn: <file>: …`) and returns its status.
    static func report(_ error: any Error) -> Int32 {
        let status = code(for: error)
        if let exit = error as? ExitCode {
            return exit.rawValue
        }
        // Whoever read stdout stopped (`| head`): they have what they wanted.
        if case .outputClosed? = error as? ToolError { return status }
        Console.error("firn: " + message(error))
        return status
    }

    /// The error's line without "firn: " (one line: newlines inside a
    /// message would break log parsing).
    static func message(_ error: any Error) -> String {
        let text: String
        switch error {
        case let error as FirnError: text = error.description
        case let error as ToolError: text = error.message
        case let error as ValidationError: text = error.message
        default: text = Firn.message(for: error)
        }
        return text.split(separator: "\n").joined(separator: "; ")
    }
}
