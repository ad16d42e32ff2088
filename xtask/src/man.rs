//! `cargo xtask man`: the `index` man pages, one per command and
//! subcommand (`index(1)`, `index-negotiation(1)`, `index-negotiation-show(1)`,
//! …), generated from the same clap definition the tool parses with, so no
//! page can drift from `--help`. Each page also says what every command
//! shares: its exit statuses, the environment it reads and the files it
//! uses.

use clap_mangen::roff::{Roff, bold, roman};

use crate::fixtures::{Mode, write_or_check};

/// Where the pages live, relative to the workspace root.
const DIR: &str = "docs/man";

/// The exit statuses, as the README and docs/cli-json.md give them.
const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "Success."),
    ("1", "A body or file is not a question message."),
    (
        "2",
        "The command line or its input cannot be used (a missing store included).",
    ),
    (
        "3",
        "The protocol refused; the message says why. Nothing is retried for you.",
    ),
    ("4", "The store failed."),
    ("5", "The model a command needed failed."),
    ("6", "negotiation wait: the negotiation is settled."),
    (
        "7",
        "negotiation wait: the negotiation is parked on a question.",
    ),
    ("8", "negotiation wait: the wait timed out."),
];

/// Every variable the tool reads.
const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "INDEX_DB",
        "The store when --db is not given: an SQLite file or a postgres:// URL.",
    ),
    (
        "INDEX_MODEL_BASE_URL",
        "The OpenAI-compatible server that authors park questions (with INDEX_MODEL).",
    ),
    ("INDEX_MODEL", "The model to ask there."),
    (
        "INDEX_MODEL_API_KEY",
        "The key for that server, if it wants one; never logged.",
    ),
    (
        "NEGOTIATION_ASK_ROUNDS_CAP",
        "How many times one negotiation may stop to ask its people (default 3).",
    ),
    (
        "NEGOTIATOR_TURN_TIMEOUT_MS",
        "How long a model call may take, in milliseconds.",
    ),
    (
        "RUST_LOG",
        "What is logged to standard error, and how much.",
    ),
    ("NO_COLOR", "When set, no colour in the output."),
    (
        "COMPLETE",
        "Set by a shell's completion script (COMPLETE=bash index): the tool answers with completions and exits.",
    ),
];

/// The files the tool uses.
const FILES: &[(&str, &str)] = &[
    (
        "./index.db",
        "The default store, when neither --db nor INDEX_DB names one.",
    ),
    (
        "./index.db-wal, ./index.db-shm",
        "SQLite's write-ahead log and its index, beside the store while it is open.",
    ),
];

/// A section of `(term, text)` paragraphs.
fn section(roff: &mut Roff, heading: &str, entries: &[(&str, &str)]) {
    roff.control("SH", [heading]);
    for (term, text) in entries {
        roff.control("TP", []);
        roff.text([bold(*term)]);
        roff.text([roman(*text)]);
    }
}

/// One page: clap's sections, then the shared ones, then the version and
/// authors clap would end with.
fn render(command: &clap::Command) -> Result<(String, String), String> {
    let man = clap_mangen::Man::new(command.clone());
    let mut out = Vec::new();
    let failed = |e: std::io::Error| format!("could not render a man page: {e}");
    man.render_title(&mut out).map_err(failed)?;
    man.render_name_section(&mut out).map_err(failed)?;
    man.render_synopsis_section(&mut out).map_err(failed)?;
    man.render_description_section(&mut out).map_err(failed)?;
    if command.get_arguments().any(|arg| !arg.is_hide_set()) {
        man.render_options_section(&mut out).map_err(failed)?;
    }
    if command.get_subcommands().any(|sub| !sub.is_hide_set()) {
        man.render_subcommands_section(&mut out).map_err(failed)?;
    }
    if command.get_after_long_help().is_some() || command.get_after_help().is_some() {
        man.render_extra_section(&mut out).map_err(failed)?;
    }
    let mut shared = Roff::default();
    section(&mut shared, "EXIT STATUS", EXIT_STATUS);
    section(&mut shared, "ENVIRONMENT", ENVIRONMENT);
    section(&mut shared, "FILES", FILES);
    shared.to_writer(&mut out).map_err(failed)?;
    let text = String::from_utf8(out).map_err(|e| format!("a man page is not UTF-8: {e}"))?;
    Ok((format!("{DIR}/{}", man.get_filename()), text))
}

/// Every page: the command's, then each subcommand's, depth first.
fn pages() -> Result<Vec<(String, String)>, String> {
    fn walk(command: &clap::Command, pages: &mut Vec<(String, String)>) -> Result<(), String> {
        pages.push(render(command)?);
        for sub in command.get_subcommands().filter(|sub| !sub.is_hide_set()) {
            walk(sub, pages)?;
        }
        Ok(())
    }
    // No version in the pages, so a release does not make them stale.
    let mut command = index_cli::command()
        .version(None::<&str>)
        .disable_help_subcommand(true);
    command.build();
    let mut pages = Vec::new();
    walk(&command, &mut pages)?;
    Ok(pages)
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

    #[test]
    fn every_variable_the_tool_reads_is_in_the_environment_section() {
        let named: Vec<&str> = ENVIRONMENT.iter().map(|(name, _)| *name).collect();
        let root = crate::workspace_root();
        let mut read = std::collections::BTreeSet::new();
        for dir in [
            "crates/cli/src",
            "crates/stall-gap/src",
            "crates/negotiation/src",
        ] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let text = std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default();
                for (at, _) in text.match_indices("\"INDEX_") {
                    let name: String = text[at + 1..]
                        .chars()
                        .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                        .collect();
                    read.insert(name);
                }
            }
        }
        for name in read {
            assert!(
                named.contains(&name.as_str()),
                "{name} is read but not in ENVIRONMENT"
            );
        }
    }
}
