import ArgumentParser
import FirnTools

@main
struct Firn: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "firn",
        abstract: "Inspect and maintain Firn database files."
    )
}
