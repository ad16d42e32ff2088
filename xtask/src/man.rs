//! `cargo xtask man`: the `index` man pages in `docs/man/`, one per command
//! and subcommand, exactly as `index man` installs them: the pages are
//! made by `index_cli::man_pages`, so the two cannot differ. This module
//! only writes them here, or checks that they are fresh.

use crate::fixtures::{Mode, write_or_check};

/// Where the pages live, relative to the workspace root.
const DIR: &str = "docs/man";

/// Every page, at its path in the workspace.
fn pages() -> Result<Vec<(String, String)>, String> {
    Ok(index_cli::man_pages()?
        .into_iter()
        .map(|(name, text)| (format!("{DIR}/{name}"), text))
        .collect())
}

pub(crate) fn run(mode: Mode) -> Result<(), String> {
    let pages = pages()?;
    // A page of a command that is gone is stale too.
    let dir = crate::workspace_root().join(DIR);
    let mut gone = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(|e| format!("{DIR}: {e}"))? {
        let entry = entry.map_err(|e| format!("{DIR}: {e}"))?;
        let relative = format!("{DIR}/{}", entry.file_name().to_string_lossy());
        if !pages.iter().any(|(path, _)| *path == relative) {
            match mode {
                Mode::Write => std::fs::remove_file(entry.path())
                    .map_err(|e| format!("could not remove {relative}: {e}"))?,
                Mode::Check => gone.push(relative),
            }
        }
    }
    if !gone.is_empty() {
        return Err(format!(
            "man pages of no command (run `cargo xtask man`): {}",
            gone.join(", ")
        ));
    }
    write_or_check(mode, pages, "cargo xtask man")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_man_pages_are_fresh() {
        run(Mode::Check).unwrap();
    }

    #[test]
    fn every_command_has_a_page_with_the_shared_sections() {
        let pages = pages().unwrap();
        let names: Vec<&str> = pages.iter().map(|(path, _)| path.as_str()).collect();
        for page in [
            "docs/man/index.1",
            "docs/man/index-negotiation.1",
            "docs/man/index-negotiation-show.1",
            "docs/man/index-question-block.1",
            "docs/man/index-keys.1",
            "docs/man/index-serve.1",
            "docs/man/index-demo.1",
            "docs/man/index-completions.1",
            "docs/man/index-man.1",
        ] {
            assert!(names.contains(&page), "{page} missing: {names:?}");
        }
        for (path, text) in &pages {
            for heading in ["EXIT STATUS", "ENVIRONMENT", "FILES"] {
                assert!(
                    text.contains(&format!(".SH \"{heading}\""))
                        || text.contains(&format!(".SH {heading}")),
                    "{path} lacks {heading}"
                );
            }
            // roff escapes every hyphen.
            assert!(text.replace("\\-", "-").contains("INDEX_DB"), "{path}");
        }
    }
}
