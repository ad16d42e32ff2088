//! `cargo xtask fuzz [--seconds N]`: every target in `fuzz/` for N seconds
//! (default 30), seeded from `fixtures/` and steered by
//! `fuzz/dictionary.txt`. Any finding fails the command, with the input
//! libFuzzer saved under `fuzz/artifacts/`.
//!
//! cargo-fuzz needs a nightly compiler's flags; where no nightly is
//! installed, `RUSTC_BOOTSTRAP=1` lets the stable one accept them, and
//! `-s none` builds without a sanitizer runtime.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The targets, each with the fixture directories that seed it.
const TARGETS: &[(&str, &[&str])] = &[
    (
        "question_message",
        &[
            "fixtures/question-block/valid",
            "fixtures/question-block/invalid",
        ],
    ),
    (
        "json_contracts",
        &["fixtures/interaction/valid", "fixtures/interaction/invalid"],
    ),
    ("turns_and_records", &[]),
    ("stall_gap", &["fixtures/stall-gap"]),
];

pub(crate) fn run(args: &[&str]) -> Result<(), String> {
    let seconds = match args {
        [] => 30,
        ["--seconds", n] => n
            .parse()
            .map_err(|_| format!("--seconds takes a number, not {n:?}"))?,
        _ => return Err("usage: cargo xtask fuzz [--seconds N]".to_owned()),
    };
    let root = crate::workspace_root();
    let fuzz = root.join("fuzz");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let has_fuzz = Command::new(&cargo)
        .args(["fuzz", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_fuzz {
        return Err("cargo-fuzz is not installed: cargo install cargo-fuzz --locked".to_owned());
    }
    for (target, seeds) in TARGETS {
        let corpus = fuzz.join("corpus").join(target);
        seed(&root, &corpus, seeds)?;
        println!("== fuzz {target} for {seconds} s");
        let status = Command::new(&cargo)
            .current_dir(&fuzz)
            .env("RUSTC_BOOTSTRAP", "1")
            .args(["fuzz", "run", "-s", "none", target])
            .arg(&corpus)
            .arg("--")
            .arg(format!("-max_total_time={seconds}"))
            .arg(format!("-dict={}", fuzz.join("dictionary.txt").display()))
            .status()
            .map_err(|e| format!("could not run cargo fuzz: {e}"))?;
        if !status.success() {
            return Err(format!(
                "fuzz target {target} found a failure (see fuzz/artifacts/{target}/)"
            ));
        }
    }
    println!("no findings");
    Ok(())
}

/// Copies every file under the seed directories into `corpus`.
fn seed(root: &Path, corpus: &Path, seeds: &[&str]) -> Result<(), String> {
    std::fs::create_dir_all(corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
    for dir in seeds {
        let entries = std::fs::read_dir(root.join(dir)).map_err(|e| format!("{dir}: {e}"))?;
        for entry in entries.flatten() {
            let path: PathBuf = entry.path();
            if let Some(name) = path.file_name() {
                std::fs::copy(&path, corpus.join(name))
                    .map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
    }
    Ok(())
}
