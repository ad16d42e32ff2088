//! Workspace automation, run as `cargo xtask <command>`.
//!
//! Every generator has a write mode and a check mode; the check modes also
//! run as `#[test]`s, so a stale generated file fails `cargo test`.
//!
//! | module | holds |
//! |---|---|
//! | `fixtures` | write or check the generated fixture files |
//! | `man` | writes or checks `docs/man` with the pages `index-cli` makes |
//! | `openapi` | docs/openapi.json, from the host's table of routes |
//! | `fuzz` | every target in `fuzz/`, seeded from `fixtures/` |
//! | `check` | the full gate (docs with warnings denied included) |
//! | `metadata` | the dependency rules, from `cargo metadata` and `cargo tree` |
//! | `api` | public API snapshots from rustdoc's JSON |
//! | `release` | versions, changelog, tag, judged by `cargo semver-checks` |
//! | `package` | what each crate publishes |
//! | `wasm` | the browser package, its size budget and its benchmark |
//! | `inbox` | the inbox's copy of the browser package (the bytes `wasm` builds) and the page's size budget |
//! | `tidy` | source-tree guards, as tests |

// A command-line tool: printing is its output.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod api;
mod check;
mod fixtures;
mod fuzz;
mod inbox;
mod man;
mod metadata;
mod openapi;
mod package;
mod release;
mod tidy;
mod wasm;

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  fixtures [--check]   rewrite fixtures/ from the crates' literals (or fail if stale)
  man [--check]        rewrite docs/man/ from the CLI's definition (or fail if stale)
  openapi [--check]    rewrite docs/openapi.json from the host's routes (or fail if stale)
  check [--no-tests]   fixtures, the man page, the dependency rules, fmt, clippy, docs,
                       the public API snapshots, the browser size budget, the tests
  deps                 only the dependency rules (browser safety, arrows)
  api [--bless]        check (or rewrite) the public API snapshots in api/
  release <major|minor|patch|rc> [--dry-run]
                       bump every crate, move the changelog, commit and tag
  package              check and package every publishable crate
  fuzz [--seconds N]   run every fuzz target in fuzz/ for N seconds (default 30)
  wasm [--test]        build the question block package into target/wasm-pkg
                       (and run its Node and Chromium tests)
  wasm --bench         build it and time it against the reference's JavaScript
                       (INDEX_REFERENCE_QUESTION_BLOCK) in Node and Chromium
  inbox [--check]      build the package and copy it into the inbox that
                       `index serve` embeds (or fail if the inbox's copy differs)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["fixtures"] => fixtures::run(fixtures::Mode::Write),
        ["fixtures", "--check"] => fixtures::run(fixtures::Mode::Check),
        ["man"] => man::run(fixtures::Mode::Write),
        ["man", "--check"] => man::run(fixtures::Mode::Check),
        ["openapi"] => openapi::run(fixtures::Mode::Write),
        ["openapi", "--check"] => openapi::run(fixtures::Mode::Check),
        ["check"] => check::run(true),
        ["check", "--no-tests"] => check::run(false),
        ["deps"] => metadata::check_dependency_rules(),
        ["api"] => api::run(false),
        ["api", "--bless"] => api::run(true),
        ["release", rest @ ..] => release::run(rest),
        ["package"] => package::run(),
        ["fuzz", rest @ ..] => fuzz::run(rest),
        ["wasm"] => wasm::run(false),
        ["wasm", "--test"] => wasm::run(true),
        ["wasm", "--bench"] => wasm::bench(),
        ["inbox"] => inbox::run(fixtures::Mode::Write),
        ["inbox", "--check"] => inbox::run(fixtures::Mode::Check),
        _ => Err(USAGE.to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

/// A `cargo` command run from the workspace root, with the same cargo that
/// runs xtask.
fn cargo(args: &[&str]) -> std::process::Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut command = std::process::Command::new(cargo);
    command.args(args).current_dir(workspace_root());
    command
}

/// The workspace root (the directory holding the top-level `Cargo.toml`).
fn workspace_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}
