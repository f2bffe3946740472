/// The parts of the parser's help dump (`firn --experimental-dump-help`,
/// `Firn._dumpHelp()`) the man pages are made from.
struct HelpDump: Decodable {
    var command: Command

    struct Command: Decodable {
        var commandName: String
        var abstract: String?
        var discussion: String?
        var shouldDisplay: Bool
        var aliases: [String]?
        var arguments: [Argument]?
        var subcommands: [Command]?
    }

    struct Argument: Decodable {
        enum Kind: String, Decodable { case positional, option, flag }
        struct Name: Decodable {
            enum Kind: String, Decodable { case long, short, longWithSingleDash }
            var kind: Kind
            var name: String
        }

        var kind: Kind
        var names: [Name]?
        var valueName: String?
        var abstract: String?
        var discussion: String?
        var isOptional: Bool
        var isRepeating: Bool
        var shouldDisplay: Bool
    }
}
