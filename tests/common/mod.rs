//! Helpers shared by the integration tests: where the shared data lives, and
//! how to skip a test with a printed notice when it is absent.

#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared/<relative>` next to the repository, if it exists. When it does
/// not, prints a notice naming the test and returns `None`, so the test is
/// skipped visibly rather than silently passing.
pub fn shared(relative: &str, test: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(relative);
    if path.exists() {
        Some(path)
    } else {
        eprintln!("SKIPPED {test}: {} is absent", path.display());
        None
    }
}

/// The path of the built `supernova` binary, for end-to-end tests.
pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_supernova"))
}

/// Runs the binary with `arguments` and waits for it.
pub fn supernova(arguments: &[&str]) -> std::process::Output {
    std::process::Command::new(binary())
        .args(arguments)
        .output()
        .expect("the binary runs")
}

/// A command's standard output as text.
pub fn text(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}
