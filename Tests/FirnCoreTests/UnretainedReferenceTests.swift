import Testing
@testable import FirnCore
import FirnTestSupport

/// `UnretainedReference`: a reference that neither keeps its object alive
/// nor gives it a side table (as `weak` would), cleared by the object's
/// `deinit`. A lookup racing the object's last release gets it retained or
/// nil, never freed memory.
@Suite struct UnretainedReferenceTests {
    /// An object that clears its references first thing in its deinit, as
    /// `DatabaseCore` does, and counts how often it went.
    final class Tracked: @unchecked Sendable {
        let references = Locked<[UnretainedReference<Tracked>]>([])
        let gone: Box<Int>
        init(gone: Box<Int>) { self.gone = gone }
        func reference() -> UnretainedReference<Tracked> {
            let reference = UnretainedReference(self)
            references.withLock { $0.append(reference) }
            return reference
        }
        deinit {
            for reference in references.withLock({ $0 }) { reference.clear() }
            gone.update { $0 += 1 }
        }
    }

    @Test func itGivesTheObjectWhileItLivesAndNilAfter() {
        let gone = Box(0)
        var object: Tracked? = Tracked(gone: gone)
        let reference = object!.reference()
        #expect(reference.object === object)
        #expect(reference.refers(to: object!))
        #expect(!reference.isCleared)
        object = nil
        // The reference did not keep it alive.
        #expect(gone.value == 1)
        #expect(reference.isCleared)
        #expect(reference.object == nil)
    }

    @Test func aStrongReferenceFromItKeepsTheObject() {
        let gone = Box(0)
        var object: Tracked? = Tracked(gone: gone)
        let reference = object!.reference()
        var held = reference.object
        object = nil
        #expect(gone.value == 0)
        #expect(held != nil)
        held = nil
        #expect(gone.value == 1)
        #expect(reference.object == nil)
    }

    /// Lookups on another thread while objects are released here: each
    /// lookup gets a live object or nil, and every object goes exactly once
    /// (run under ThreadSanitizer and AddressSanitizer too).
    @Test func lookupsRacingTheLastReleaseNeverResurrectTheObject() {
        let gone = Box(0)
        let rounds = 2_000
        let current = Locked<UnretainedReference<Tracked>?>(nil)
        let stop = Box(false)
        let found = Box(0)
        let looker = BackgroundThread<Void> {
            while !stop.value {
                if let reference = current.withLock({ $0 }), let object = reference.object {
                    // Alive while held: its deinit has not run.
                    #expect(!reference.isCleared)
                    _ = object
                    found.update { $0 += 1 }
                }
            }
        }
        for _ in 0..<rounds {
            var object: Tracked? = Tracked(gone: gone)
            current.withLock { $0 = object!.reference() }
            object = nil
        }
        stop.value = true
        looker.join()
        current.withLock { $0 = nil }
        #expect(gone.value == rounds)
    }
}
