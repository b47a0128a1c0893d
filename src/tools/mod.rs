//! Command-line tools built on the engine and the protocol.
