//! The man pages, one per command and subcommand (`index(1)`,
//! `index-negotiation(1)`, `index-negotiation-show(1)`, …), made from the
//! same clap definition the tool parses with, so no page can drift from
//! `--help`. `index man` installs them; `cargo xtask man` keeps the copies
//! in `docs/man/` with the very same text. Each page lists the exit
//! statuses its own command can return, then what every command shares:
//! the environment it reads and the files it uses.

use std::path::{Path, PathBuf};

use clap_mangen::roff::{Roff, bold, roman};
use serde::Serialize;

use crate::failure::Failure;
use crate::output::Out;

/// What each status means on a page that covers several commands (the top
/// page, and a group such as `index keys`), whose statuses are the union of
/// its commands'.
const MEANING: &[(u8, &str)] = &[
    (0, "Success."),
    (
        1,
        "A body or file is not a question message, or (keys whoami) the key does not work.",
    ),
    (
        2,
        "The command line or its input cannot be used (a missing store included).",
    ),
    (
        3,
        "The protocol refused; the message says why. Nothing is retried for you.",
    ),
    (4, "The store failed."),
    (5, "The model a command needed failed."),
    (6, "negotiation wait: the negotiation is settled."),
    (
        7,
        "negotiation wait: the negotiation is parked on a question.",
    ),
    (8, "negotiation wait: the wait timed out."),
];

/// Every command's exit statuses, with what each means for it, keyed by the
/// words after `index`. `Failure::exit_code` (failure.rs) maps failures to
/// statuses; which failures a command can meet follows from its code:
///
/// - every command: 0, and 2 for a command line that does not parse;
/// - a command that opens a store: 2 for a malformed `--db` or `INDEX_DB`,
///   and for a missing store unless it creates one (`store_not_found`);
///   4 when the store, or the runtime it needs, fails (`Storage`); the
///   commands that touch no store (`question-block`, `completions`, `man`)
///   run without that runtime, so never exit 4;
/// - `Failure::Refused` (3): the rules' refusals, and `not_found` for an
///   id the store does not have or a seat the user does not hold;
/// - `Failure::NotAMessage` (1): a body read as a question message;
/// - `Failure::Model` (5): `park` alone asks a model;
/// - `Failure::Ended`: `wait`'s 6, 7 and 8, and `keys whoami`'s 1.
///
/// A command missing here fails page generation, so a new one cannot ship
/// with a page that guesses.
const STATUSES: &[(&str, &[(u8, &str)])] = &[
    (
        "question-block parse",
        &[
            (
                0,
                "The body is a question message; its prose and block are printed.",
            ),
            (
                1,
                "The body is not a question message; the message says why.",
            ),
            (2, "The command line is wrong, or the file cannot be read."),
        ],
    ),
    (
        "question-block serialize",
        &[
            (0, "The message is written."),
            (
                2,
                "The command line is wrong, a file cannot be read, or the block is invalid (every problem is listed).",
            ),
        ],
    ),
    (
        "question-block render",
        &[
            (
                0,
                "The message is shown (a body that is not one, as its text).",
            ),
            (2, "The command line is wrong, or the file cannot be read."),
        ],
    ),
    (
        "question-block check",
        &[
            (0, "Every file is a question message."),
            (1, "A file is not a question message; its line says why."),
            (2, "The command line is wrong, or a file cannot be read."),
        ],
    ),
    (
        "negotiation open",
        &[
            (0, "The negotiation is open."),
            (
                2,
                "The command line is wrong, or --db names no usable store.",
            ),
            (
                3,
                "Refused: the opportunity already has a negotiation (already_exists), or one person or one intent is in both seats (ineligible).",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "negotiation show",
        &[
            (0, "The negotiation is shown."),
            (2, "The command line is wrong, or the store does not exist."),
            (
                3,
                "Refused (not_found): no such negotiation, or the user holds no seat in it.",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "negotiation turn",
        &[
            (0, "The turn is taken."),
            (
                2,
                "The command line is wrong, the message cannot be read, or the store does not exist.",
            ),
            (
                3,
                "The rules refused the turn (not_your_turn, invalid_turn, …); the message names the code. Nothing was written, and nothing is retried for you.",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "negotiation resume",
        &[
            (0, "A new round starts, the user's seat to move."),
            (2, "The command line is wrong, or the store does not exist."),
            (
                3,
                "The rules refused the resume (not_paused, awaiting_answer, …); the message names the code.",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "negotiation wait",
        &[
            (
                0,
                "The seat may act: it is its turn, or a round it may resume has ended.",
            ),
            (2, "The command line is wrong, or the store does not exist."),
            (
                3,
                "Refused (not_found): no such negotiation, or the user holds no seat in it.",
            ),
            (4, "The store failed."),
            (6, "The negotiation is settled."),
            (7, "The negotiation is parked on a question."),
            (8, "The wait timed out."),
        ],
    ),
    (
        "negotiation list",
        &[
            (0, "The negotiations are listed (none is no failure)."),
            (2, "The command line is wrong, or the store does not exist."),
            (4, "The store failed."),
        ],
    ),
    (
        "negotiation park",
        &[
            (
                0,
                "The park is decided: parked, or not (the budget is spent, nothing to ask, the gate said no), as standard error says.",
            ),
            (
                2,
                "The command line is wrong, the model is not configured, the question could not be recorded or written as a message, or the store does not exist.",
            ),
            (
                3,
                "Refused: the rules would not park now (not_parkable, already_parked, ask_cap_reached, already_settled, intent_inactive), or not_found: no such negotiation, or the user holds no seat in it.",
            ),
            (4, "The store failed."),
            (
                5,
                "The model failed (unreachable, an error, not JSON, too slow); nothing was parked.",
            ),
        ],
    ),
    (
        "negotiation answer",
        &[
            (
                0,
                "The answers are delivered; each question's line says what it did.",
            ),
            (
                1,
                "The message is not a question message; the message says why.",
            ),
            (
                2,
                "The command line is wrong, the message cannot be read, or the store does not exist.",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "negotiation close",
        &[
            (0, "The negotiation is closed."),
            (2, "The command line is wrong, or the store does not exist."),
            (3, "Refused (not_found): no such negotiation."),
            (4, "The store failed."),
        ],
    ),
    (
        "negotiation eligibility",
        &[
            (0, "The seat's intent is marked."),
            (2, "The command line is wrong, or the store does not exist."),
            (
                3,
                "Refused (not_found): no such negotiation, or the user holds no seat in it.",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "negotiation messages",
        &[
            (0, "The message record is printed."),
            (2, "The command line is wrong, or the store does not exist."),
            (3, "Refused (not_found): no such negotiation."),
            (4, "The store failed."),
        ],
    ),
    (
        "demo",
        &[
            (0, "The walk-through ran to its agreement."),
            (
                2,
                "The command line is wrong (--json included), or --db names no usable store.",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "serve",
        &[
            (
                0,
                "Stopped by SIGINT or SIGTERM, or the stdio client went away.",
            ),
            (
                2,
                "The command line is wrong: --db names no usable store, the address cannot be listened on, the key file cannot be read or holds no valid key, or the model is not configured.",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "keys create",
        &[
            (0, "The key is made, and printed or written to --output."),
            (
                2,
                "The command line is wrong, --output exists (without --force) or cannot be written, or --db names no usable store.",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "webhooks add",
        &[
            (0, "The endpoint is registered; its secret is printed."),
            (
                2,
                "The command line is wrong (a URL or event type the host does not take), or the store does not exist.",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "webhooks list",
        &[
            (0, "The endpoints are listed (none is no failure)."),
            (2, "The command line is wrong, or the store does not exist."),
            (4, "The store failed."),
        ],
    ),
    (
        "webhooks remove",
        &[
            (0, "The endpoint and its waiting deliveries are removed."),
            (
                2,
                "The command line is wrong, there is no such endpoint, or the store does not exist.",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "webhooks rotate-secret",
        &[
            (
                0,
                "The endpoint has a new secret, printed; the old one signs beside it for a day.",
            ),
            (
                2,
                "The command line is wrong, there is no such endpoint, or the store does not exist.",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "webhooks replay",
        &[
            (
                0,
                "The range's deliveries are queued again (none is no failure).",
            ),
            (
                2,
                "The command line is wrong, there is no such endpoint, or the store does not exist.",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "audit",
        &[
            (0, "The entries are listed (none is no failure)."),
            (2, "The command line is wrong, or the store does not exist."),
            (4, "The store failed."),
        ],
    ),
    (
        "keys list",
        &[
            (0, "The keys are listed (none is no failure)."),
            (2, "The command line is wrong, or the store does not exist."),
            (4, "The store failed."),
        ],
    ),
    (
        "keys whoami",
        &[
            (0, "The key works."),
            (
                1,
                "The key does not work: unknown to this store, expired or revoked.",
            ),
            (
                2,
                "The command line is wrong, the key file cannot be read, or the store does not exist.",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "keys login-link",
        &[
            (0, "The link is printed."),
            (
                2,
                "The command line is wrong, or --db names no usable store.",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "keys rotate-signing-key",
        &[
            (0, "A new signing key is in place."),
            (
                2,
                "The command line is wrong, or --db names no usable store.",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "keys revoke",
        &[
            (0, "The key is revoked."),
            (
                2,
                "The command line is wrong, there is no such key, or the store does not exist.",
            ),
            (4, "The store failed."),
        ],
    ),
    (
        "store check",
        &[
            (0, "Nothing is wrong."),
            (
                2,
                "The command line is wrong, the store does not exist, or it is not SQLite.",
            ),
            (
                4,
                "Something is wrong (each problem is listed), or the store cannot be read.",
            ),
        ],
    ),
    (
        "completions",
        &[
            (
                0,
                "The script is printed (a reader that stops early is no failure).",
            ),
            (
                2,
                "The command line is wrong, or the script cannot be written.",
            ),
        ],
    ),
    (
        "man",
        &[
            (0, "The pages are written."),
            (
                2,
                "The command line is wrong, or no directory could be written.",
            ),
        ],
    ),
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
    (
        "XDG_DATA_HOME, HOME",
        "Where index man writes the pages when --dir is not given: $XDG_DATA_HOME/man/man1, else ~/.local/share/man/man1.",
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
    (
        "~/.local/share/man/man1/index*.1",
        "These pages, as index man installs them by default.",
    ),
];

/// A section of `(term, text)` paragraphs.
fn section<T: AsRef<str>>(roff: &mut Roff, heading: &str, entries: &[(T, &str)]) {
    roff.control("SH", [heading]);
    for (term, text) in entries {
        roff.control("TP", []);
        roff.text([bold(term.as_ref())]);
        roff.text([roman(*text)]);
    }
}

/// The statuses of the command at `path` (the words after `index`), with
/// their meanings: its own, or for a page over several commands the union
/// of theirs.
fn exit_statuses(path: &str, command: &clap::Command) -> Result<Vec<(u8, &'static str)>, String> {
    if visible(command).count() == 0 {
        return STATUSES
            .iter()
            .find(|(name, _)| *name == path)
            .map(|(_, statuses)| statuses.to_vec())
            .ok_or_else(|| {
                format!("`index {path}` has no exit statuses in crates/cli/src/man.rs (STATUSES)")
            });
    }
    let mut union = std::collections::BTreeSet::new();
    for (sub_path, sub) in commands_under(path, command) {
        if visible(sub).count() == 0 {
            union.extend(
                exit_statuses(&sub_path, sub)?
                    .into_iter()
                    .map(|(status, _)| status),
            );
        }
    }
    Ok(MEANING
        .iter()
        .filter(|(status, _)| union.contains(status))
        .copied()
        .collect())
}

/// The subcommands a page lists.
fn visible(command: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    command.get_subcommands().filter(|sub| !sub.is_hide_set())
}

/// Every command under `command` (at `path`), depth first, with its path.
fn commands_under<'a>(path: &str, command: &'a clap::Command) -> Vec<(String, &'a clap::Command)> {
    let mut found = Vec::new();
    for sub in visible(command) {
        let sub_path = if path.is_empty() {
            sub.get_name().to_owned()
        } else {
            format!("{path} {}", sub.get_name())
        };
        found.push((sub_path.clone(), sub));
        found.extend(commands_under(&sub_path, sub));
    }
    found
}

/// One page: clap's sections, the command's exit statuses, then the
/// shared sections.
fn render(path: &str, command: &clap::Command) -> Result<(String, String), String> {
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
    if visible(command).count() > 0 {
        man.render_subcommands_section(&mut out).map_err(failed)?;
    }
    if command.get_after_long_help().is_some() || command.get_after_help().is_some() {
        man.render_extra_section(&mut out).map_err(failed)?;
    }
    let mut shared = Roff::default();
    let statuses: Vec<(String, &str)> = exit_statuses(path, command)?
        .into_iter()
        .map(|(status, text)| (status.to_string(), text))
        .collect();
    section(&mut shared, "EXIT STATUS", &statuses);
    section(&mut shared, "ENVIRONMENT", ENVIRONMENT);
    section(&mut shared, "FILES", FILES);
    shared.to_writer(&mut out).map_err(failed)?;
    let text = String::from_utf8(out).map_err(|e| format!("a man page is not UTF-8: {e}"))?;
    Ok((man.get_filename(), text))
}

/// Every page, as `(file name, roff text)`: the top command's, then each
/// subcommand's, depth first.
pub(crate) fn pages() -> Result<Vec<(String, String)>, String> {
    // No version in the pages, so a release does not make docs/man stale.
    let mut command = crate::cli::command()
        .version(None::<&str>)
        .disable_help_subcommand(true);
    command.build();
    let mut pages = vec![render("", &command)?];
    for (path, sub) in commands_under("", &command) {
        pages.push(render(&path, sub)?);
    }
    Ok(pages)
}

/// Where `index man` writes without `--dir`, in order of preference: the
/// XDG user data directory (ignored when relative, as the specification
/// says), then its usual default under the home directory. `man` finds
/// `~/.local/share/man` by itself when `~/.local/bin` is on `PATH`.
fn default_dirs() -> Vec<PathBuf> {
    let absolute = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|path| path.is_absolute())
    };
    let mut dirs = Vec::new();
    if let Some(data) = absolute("XDG_DATA_HOME") {
        dirs.push(data.join("man").join("man1"));
    }
    if let Some(home) = absolute("HOME") {
        dirs.push(home.join(".local").join("share").join("man").join("man1"));
    }
    dirs
}

/// Writes every page into `dir`, creating it.
fn write_pages(dir: &Path, pages: &[(String, String)]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (name, text) in pages {
        std::fs::write(dir.join(name), text)?;
    }
    Ok(())
}

/// What `index man --json` prints.
#[derive(Serialize)]
struct Installed<'a> {
    dir: &'a Path,
    pages: Vec<&'a str>,
}

/// `index man`: every page into `dir`, or the first default directory that
/// can be written, and where they went.
pub(crate) fn install(dir: Option<PathBuf>, out: Out) -> Result<(), Failure> {
    let pages = pages().map_err(Failure::Input)?;
    let candidates = match dir {
        Some(dir) => vec![dir],
        None => default_dirs(),
    };
    if candidates.is_empty() {
        return Err(Failure::Usage(
            "no directory for the man pages: neither XDG_DATA_HOME nor HOME is set to an absolute path; give --dir".to_owned(),
        ));
    }
    let mut failures = Vec::new();
    for dir in candidates {
        if let Err(err) = write_pages(&dir, &pages) {
            failures.push(format!("{}: {err}", dir.display()));
            continue;
        }
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        out.json(&Installed {
            dir: &dir,
            pages: pages.iter().map(|(name, _)| name.as_str()).collect(),
        });
        out.line(format!(
            "Wrote {} man pages to {} (index.1, index-negotiation-turn.1, …).",
            pages.len(),
            dir.display()
        ));
        // man searches a section directory (man1) under each MANPATH entry;
        // pages anywhere else are read by their path.
        match dir.parent().filter(|_| dir.ends_with("man1")) {
            Some(root) => out.line(format!(
                "Read one with `man index-negotiation-turn`; if man does not find it, add {} to MANPATH.",
                root.display()
            )),
            None => out.line(format!(
                "Read one with `man {}`.",
                dir.join("index-negotiation-turn.1").display()
            )),
        }
        return Ok(());
    }
    Err(Failure::Input(format!(
        "could not write the man pages: {}",
        failures.join("; ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_its_exit_statuses_and_every_entry_a_command() {
        let command = crate::cli::command();
        let leaves: Vec<String> = commands_under("", &command)
            .into_iter()
            .filter(|(_, sub)| visible(sub).count() == 0)
            .map(|(path, _)| path)
            .collect();
        for leaf in &leaves {
            assert!(
                STATUSES.iter().any(|(name, _)| name == leaf),
                "{leaf} has no exit statuses"
            );
        }
        for (name, statuses) in STATUSES {
            assert!(
                leaves.iter().any(|leaf| leaf == name),
                "{name} is no command"
            );
            let numbers: Vec<u8> = statuses.iter().map(|(status, _)| *status).collect();
            let mut sorted = numbers.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(numbers, sorted, "{name}: in order, each once");
            // Success, and a command line that does not parse.
            assert!(numbers.starts_with(&[0]) && numbers.contains(&2), "{name}");
            for status in numbers {
                assert!(
                    MEANING.iter().any(|(known, _)| *known == status),
                    "{name}: {status} has no meaning"
                );
            }
        }
    }

    #[test]
    fn a_group_page_lists_what_its_commands_can_return() {
        let command = crate::cli::command();
        let statuses = |path: &str| -> Vec<u8> {
            let (_, sub) = commands_under("", &command)
                .into_iter()
                .find(|(found, _)| found == path)
                .unwrap();
            exit_statuses(path, sub)
                .unwrap()
                .into_iter()
                .map(|(status, _)| status)
                .collect()
        };
        assert_eq!(statuses("keys"), [0, 1, 2, 4]);
        assert_eq!(statuses("question-block"), [0, 1, 2]);
        assert_eq!(statuses("store"), [0, 2, 4]);
        let all: Vec<u8> = (0..=8).collect();
        assert_eq!(
            exit_statuses("", &command)
                .unwrap()
                .into_iter()
                .map(|(status, _)| status)
                .collect::<Vec<_>>(),
            all
        );
    }

    #[test]
    fn every_variable_the_tool_reads_is_in_the_environment_section() {
        let named: Vec<&str> = ENVIRONMENT
            .iter()
            .flat_map(|(names, _)| names.split(", "))
            .collect();
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
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
                    // A name is not a prefix (this test's own needle is).
                    if !name.ends_with('_') {
                        read.insert(name);
                    }
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
