//! `supernova bench`: the signature of the search, pinned (like Stockfish's
//! `tests/signature.sh`), and its errors.
//!
//! The bench runs a fixed node-limited search with one thread on every
//! built-in position, so its node count and the hash of the chosen turns
//! depend only on the search's behaviour. A refactor keeps them. A change
//! to the search that changes them on purpose updates `EXPECTED` below in a
//! commit whose message says why and gives the new signature (and, for a
//! change of strength, the match that measured it).

mod common;

use common::{supernova, text};

/// The node count and signature of `supernova bench` (20,000 iterations on
/// each of the 27 built-in positions; the first is won at once, unsearched).
const EXPECTED: (&str, &str) = ("520000", "bb2eb7228962400e");

/// The value after `name` on the line that starts with it.
fn field(output: &str, name: &str) -> String {
    output
        .lines()
        .find_map(|line| line.strip_prefix(name))
        .unwrap_or_else(|| panic!("no {name} in {output}"))
        .trim()
        .to_string()
}

#[test]
fn the_bench_signature_is_pinned() {
    let output = supernova(&["bench"]);
    let out = text(&output);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let found = (field(&out, "Nodes:"), field(&out, "Signature:"));
    assert_eq!(
        (found.0.as_str(), found.1.as_str()),
        EXPECTED,
        "the search's behaviour changed: if on purpose, update EXPECTED in a \
         commit that says why\n{out}"
    );
}

#[test]
fn the_bench_is_reproducible_at_any_node_count() {
    let run = || {
        let output = supernova(&["bench", "--nodes", "300"]);
        let out = text(&output);
        assert!(output.status.success(), "{out}");
        (field(&out, "Nodes:"), field(&out, "Signature:"))
    };
    let first = run();
    // Every position but the one won at once is searched in full.
    assert_eq!(first.0, (26 * 300).to_string());
    assert_eq!(first, run());
}

#[test]
fn bench_command_reports_a_bad_positions_file() {
    let directory = std::env::temp_dir().join(format!("supernova-bench-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let file = directory.join("bad.txt");
    std::fs::write(&file, "r1b2:g3:/y1b3::g3 0 # fine\nnonsense here\n").unwrap();
    let output = std::process::Command::new(common::binary())
        .args(["bench", "--nodes", "10", "--file"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(message.contains("line 2"), "{message}");
    std::fs::remove_dir_all(&directory).ok();
}
