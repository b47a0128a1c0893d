//! Helpers shared by the integration tests: where the shared data lives
//! (a missing folder is a visible skip, or an error under CI), and how to
//! run the binary.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Whether the tests run under CI (`CI=true`, as CI services set it).
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| value == "true")
}

/// `../shared/<relative>` next to the repository, if it exists. When it does
/// not, prints a notice naming the test and returns `None`, so the test is
/// skipped visibly rather than silently passing; under CI ([`under_ci`]) it
/// panics instead, so that a broken CI layout cannot pass while the tests
/// that need the data check nothing.
pub fn shared(relative: &str, test: &str) -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared");
    shared_in(&root, relative, test, under_ci())
}

/// [`shared`] under `root`, with `required` in place of [`under_ci`].
pub fn shared_in(root: &Path, relative: &str, test: &str, required: bool) -> Option<PathBuf> {
    let path = root.join(relative);
    if path.exists() {
        Some(path)
    } else if required {
        panic!(
            "{test}: {} is absent, and CI=true requires it (the test would check nothing)",
            path.display()
        );
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

/// Runs the binary with `arguments`, writes `input` to its standard input
/// (closing it after), and waits for it, collecting both output streams.
pub fn supernova_with_input(arguments: &[&str], input: &[u8]) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(binary())
        .args(arguments)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    child
        .stdin
        .take()
        .expect("its standard input is piped")
        .write_all(input)
        .expect("the binary reads its input");
    child.wait_with_output().expect("the binary runs")
}

/// A command's standard output as text.
pub fn text(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A fresh, empty scratch directory for the test `name` of the suite
/// `suite`, under the system's temporary directory and this process's id,
/// so that test binaries running at once do not share one.
pub fn scratch_directory(suite: &str, name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!(
        "supernova-{suite}-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap();
    directory
}
