//! `cargo xtask fixtures`: the canonical question message published as
//! files for clients in other languages, written from the crate's literals.
//!
//! The literal files must be the exact bytes, so they carry no header; the
//! README beside them says which files are generated.

use std::fs;
use std::path::Path;

use index_question_block::fixture::{
    QUESTION_BLOCK_JSON_FIXTURE, QUESTION_MESSAGE_FIXTURE, QUESTION_PROSE_FIXTURE,
};

/// Whether to write the files or only compare them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Write,
    Check,
}

/// Every generated file, relative to the workspace root, with its contents.
pub(crate) fn generated() -> Vec<(&'static str, String)> {
    vec![
        (
            "fixtures/question-block/canonical.prose.txt",
            QUESTION_PROSE_FIXTURE.to_owned(),
        ),
        (
            "fixtures/question-block/canonical.block.json",
            QUESTION_BLOCK_JSON_FIXTURE.to_owned(),
        ),
        (
            "fixtures/question-block/canonical.message.txt",
            QUESTION_MESSAGE_FIXTURE.to_owned(),
        ),
    ]
}

pub(crate) fn run(mode: Mode) -> Result<(), String> {
    write_or_check(mode, generated(), "cargo xtask fixtures")
}

/// Writes `files` (or, in check mode, fails naming the stale ones and the
/// `command` that rewrites them).
pub(crate) fn write_or_check<P: AsRef<str>>(
    mode: Mode,
    files: Vec<(P, String)>,
    command: &str,
) -> Result<(), String> {
    let root = crate::workspace_root();
    let stale = sync(&root, mode, files)?;
    match (mode, stale.is_empty()) {
        (_, true) => Ok(()),
        (Mode::Write, false) => {
            println!("rewrote {}", stale.join(", "));
            Ok(())
        }
        (Mode::Check, false) => Err(format!(
            "stale generated files (run `{command}`): {}",
            stale.join(", ")
        )),
    }
}

/// Compares (and in write mode rewrites) every generated file; returns the
/// ones that differed. Line endings are compared exactly: these are wire
/// bytes.
fn sync<P: AsRef<str>>(
    root: &Path,
    mode: Mode,
    files: Vec<(P, String)>,
) -> Result<Vec<String>, String> {
    let mut stale = Vec::new();
    for (relative, contents) in files {
        let relative = relative.as_ref();
        let path = root.join(relative);
        let current = fs::read_to_string(&path).unwrap_or_default();
        if current == contents {
            continue;
        }
        stale.push(relative.to_owned());
        if mode == Mode::Write {
            if let Some(dir) = path.parent() {
                fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            }
            fs::write(&path, contents).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(stale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_fixtures_are_fresh() {
        let stale = sync(&crate::workspace_root(), Mode::Check, generated()).unwrap();
        assert!(stale.is_empty(), "run `cargo xtask fixtures`: {stale:?}");
    }
}
