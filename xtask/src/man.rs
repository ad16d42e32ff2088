//! `cargo xtask man`: the `index` man page, generated from the same clap
//! definition the tool parses with, so the page cannot drift from `--help`.

use crate::fixtures::{Mode, write_or_check};

/// Where the page lives, relative to the workspace root.
const PAGE: &str = "docs/man/index.1";

/// The page's roff source.
fn page() -> Result<String, String> {
    let mut roff = Vec::new();
    // No version in the page, so a release does not make it stale.
    clap_mangen::Man::new(index_cli::command().version(None::<&str>))
        .render(&mut roff)
        .map_err(|e| format!("could not render the man page: {e}"))?;
    String::from_utf8(roff).map_err(|e| format!("the man page is not UTF-8: {e}"))
}

pub(crate) fn run(mode: Mode) -> Result<(), String> {
    write_or_check(mode, vec![(PAGE, page()?)], "cargo xtask man")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_man_page_is_fresh() {
        run(Mode::Check).unwrap();
    }

    #[test]
    fn the_man_page_covers_every_command() {
        // roff escapes every hyphen.
        let page = page().unwrap().replace("\\-", "-");
        for command in [
            "question-block",
            "negotiation",
            "demo",
            "completions",
            "--json",
        ] {
            assert!(
                page.contains(command),
                "{command} missing from the man page"
            );
        }
    }
}
