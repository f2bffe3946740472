import ExampleSupport
import Firn
import Foundation

/// docs/SDK.md's maps: scores by player name, in key order, live with their game.
enum SDKMaps {
    final class Game: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var scores = Map<String, Int>()
    }

    static let snippet = Snippet.onThread(name: "sdk-maps") { directory in
        let db = try Database(configuration: Configuration(path: directory + "/app.firn", objectTypes: [Game.self]))
        // snippet: sdk-maps
        let game = Game()
        game.scores["bo"] = 3
        try db.write { try db.add(game) }
        try db.write {
            game.scores["ann"] = 5                          // adds a key
            try game.scores.updateValue(4, forKey: "bo")    // replaces its value
            game.scores["cy"] = nil                         // nil removes (no such key: nothing)
        }
        print(game.scores.keys, game.scores["bo"] ?? 0)     // ["ann", "bo"] 4
        let leaders = try db.objects(Game.self).where { $0.scores.keys.contains("ann") }
        // snippet end
        try check(game.scores.values == [5, 4] && leaders.count == 1, "scores: \(Array(game.scores.keys))")
    }
}
