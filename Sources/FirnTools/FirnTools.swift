/// FirnTools: the maintenance operations of the `firn` toolkit as a library.
/// Each operation returns a Codable report; the CLI only renders them.
import FirnCore
