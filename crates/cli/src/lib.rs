//! `index`: the command-line tool for the Index protocol's contracts.
//!
//! The binary is a thin `main` over [`main`]; the library exists so that
//! the clap definition ([`command`]) can generate completions, and the man
//! pages ([`man_pages`]) can be kept in `docs/man` by `cargo xtask man`,
//! without running the tool.
//!
//! | module | holds |
//! |---|---|
//! | `audit` | `index audit`: the audit record as a table or JSON Lines |
//! | `webhooks` | `index webhooks`: endpoints registered, listed, removed, rotated and replayed on the store |
//! | `cli` | the clap definition (help, an example per command), for completions and man pages too |
//! | `complete` | negotiation ids offered while a shell completes a line (`COMPLETE=bash index`) |
//! | `database` | `--db`/`INDEX_DB`, and the store opened for what the command does |
//! | `negotiation` | the negotiation commands, `wait` on the change feed included |
//! | `questions` | park, render and answer: the question loop |
//! | `question_block` | the question block commands |
//! | `serve` | `index-host` on the chosen store |
//! | `demo` | the walk-through, through the same command functions |
//! | `output` | text and JSON output, colour only on a terminal |
//! | `man` | the man pages from the clap definition, each with its command's own exit statuses, and `index man`, which installs them; `cargo xtask man` writes the same pages to `docs/man` |
//! | `failure` | the one error type, its exit codes and its JSON shape |
//! | `logging` | where logs go, at `RUST_LOG`'s level |
//! | `traces` | `index serve`'s spans exported over OTLP, when a collector is named |

// A command-line tool: printing is its output.
#![allow(clippy::print_stdout, clippy::print_stderr)]

/// The README's examples, compiled and run as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeExamples;

mod audit;
mod cli;
mod complete;
mod database;
mod demo;
mod failure;
mod logging;
mod man;
mod negotiation;
mod output;
mod question_block;
mod questions;
mod serve;
mod traces;
mod webhooks;

use std::process::ExitCode;

use clap::Parser;

pub use crate::cli::command;
use crate::cli::{Cli, Command, NegotiationCommand, QuestionBlockCommand};
use crate::database::{Database, Use};
pub use crate::failure::CliCode;
use crate::failure::Failure;
use crate::negotiation::Session;
use crate::output::{Out, read_input};
use index_negotiation_store::ListFilter;

/// Every man page, as `(file name, roff text)`: `index.1`, then one per
/// command and subcommand (`index-negotiation-turn.1`), each with the exit
/// statuses its command can return. `index man` installs exactly these.
pub fn man_pages() -> Result<Vec<(String, String)>, String> {
    man::pages()
}

/// Runs the tool on the process's arguments and returns its exit code.
pub fn main() -> ExitCode {
    // A shell asking for completions (`COMPLETE=bash index …`) is answered
    // here, and the process ends.
    clap_complete::CompleteEnv::with_factory(cli::command).complete();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) if err.use_stderr() && std::env::args_os().any(|arg| arg == "--json") => {
            let failure = Failure::parse(&err);
            if let Some(json) = failure.to_json() {
                anstream::println!("{json}");
            }
            let _ = err.print();
            return ExitCode::from(2);
        }
        Err(err) => err.exit(),
    };
    let out = Out { json: cli.json };
    let result = match run_offline(cli.command, out) {
        Ok(result) => result,
        Err(command) => match tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime.block_on(run(*command, cli.sqlite_sync.into(), out)),
            Err(err) => {
                anstream::eprintln!("error: could not start: {err}");
                return ExitCode::from(4);
            }
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            out.failure(&failure);
            failure.exit_code()
        }
    }
}

/// Runs a command that needs neither a store nor the network, without the
/// async runtime: it starts no threads, and the runtime's failure to
/// start (exit 4) is not among its exit statuses, as its man page says.
/// Any other command comes back to be run by [`run`].
fn run_offline(command: Command, out: Out) -> Result<Result<(), Failure>, Box<Command>> {
    Ok(match command {
        Command::QuestionBlock(command) => match command {
            QuestionBlockCommand::Parse { file } => question_block::parse(file.as_deref(), out),
            QuestionBlockCommand::Serialize {
                prose,
                prose_file,
                block,
                block_file,
            } => {
                let prose = question_block::Source::new(prose, prose_file);
                let block = question_block::Source::new(block, block_file);
                question_block::serialize(&prose, &block, out)
            }
            QuestionBlockCommand::Check { files } => question_block::check(&files, out),
            QuestionBlockCommand::Render { file } => questions::render(file.as_deref(), out),
        },
        Command::Completions { shell } => {
            // Made whole first: clap_complete panics when a write fails,
            // and a reader that stops early (`| head -1`) makes one fail.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cli::command(), "index", &mut script);
            output::write_stdout(&script)
        }
        Command::Man { dir } => man::install(dir, out),
        other => return Err(Box::new(other)),
    })
}

async fn run(
    command: Command,
    synchronous: index_negotiation_store_sqlite::Synchronous,
    out: Out,
) -> Result<(), Failure> {
    let command = match run_offline(command, out) {
        Ok(result) => return result,
        Err(command) => *command,
    };
    match command {
        Command::Negotiation(args) => {
            let database = Database::select(args.db, synchronous)?;
            let purpose = match &args.command {
                NegotiationCommand::Open(_) => Use::Create,
                NegotiationCommand::Turn { .. }
                | NegotiationCommand::Resume { .. }
                | NegotiationCommand::Park(_)
                | NegotiationCommand::Answer { .. }
                | NegotiationCommand::Close { .. }
                | NegotiationCommand::Eligibility { .. } => Use::Write,
                NegotiationCommand::Show { .. }
                | NegotiationCommand::Wait { .. }
                | NegotiationCommand::List { .. }
                | NegotiationCommand::Messages { .. } => Use::Read,
            };
            // Ids and names were checked as the command line was read, so
            // a malformed one never reaches the store.
            let session = Session::open(&database, purpose, out).await?;
            match args.command {
                NegotiationCommand::Open(open) => {
                    negotiation::open(&session, open.into()).await.map(|_| ())
                }
                NegotiationCommand::Show { id, user, guidance } => {
                    negotiation::show(&session, &id, &user, guidance).await
                }
                NegotiationCommand::Turn {
                    id,
                    user,
                    action,
                    message,
                } => {
                    let message = if message == "-" {
                        read_input(std::path::Path::new("-"))?
                    } else {
                        message
                    };
                    negotiation::turn(&session, &id, &user, action, message)
                        .await
                        .map(|_| ())
                }
                NegotiationCommand::Resume { id, user } => {
                    negotiation::resume(&session, &id, &user).await
                }
                NegotiationCommand::Wait { id, user, timeout } => {
                    let timeout = std::time::Duration::from_secs(timeout);
                    negotiation::wait(&session, &id, &user, timeout).await
                }
                NegotiationCommand::List {
                    user,
                    intent_id,
                    state,
                    with,
                    limit,
                    cursor,
                } => {
                    let filter = ListFilter {
                        intent_id,
                        state,
                        other_user_id: with,
                        limit: limit.and_then(|n| usize::try_from(n).ok()),
                        cursor,
                    };
                    negotiation::list(&session, &user, &filter).await
                }
                NegotiationCommand::Messages { id } => negotiation::messages(&session, &id).await,
                NegotiationCommand::Park(args) => {
                    let (id, user) = (args.id.clone(), args.user.clone());
                    questions::park(&session, &id, &user, args)
                        .await
                        .map(|_| ())
                }
                NegotiationCommand::Answer {
                    user,
                    message,
                    answers,
                } => questions::answer(&session, &user, message.as_deref(), &answers)
                    .await
                    .map(|_| ()),
                NegotiationCommand::Close { id, reason } => {
                    negotiation::close(&session, &id, reason).await
                }
                NegotiationCommand::Eligibility {
                    id,
                    user,
                    active,
                    inactive: _,
                } => negotiation::eligibility(&session, &id, &user, active).await,
            }
        }
        Command::Demo(args) => {
            if out.json {
                return Err(Failure::Usage(
                    "the demo is a walk-through for people and has no JSON form; run its commands with --json instead".to_owned(),
                ));
            }
            demo::run(args.db, synchronous, out).await
        }
        Command::Serve(args) => serve::serve(args, synchronous).await,
        Command::Keys(command) => serve::keys(command, synchronous, out).await,
        Command::Audit(args) => audit::audit(args, synchronous, out).await,
        Command::Webhooks(command) => webhooks::webhooks(command, synchronous, out).await,
        Command::Store(cli::StoreCommand::Check { db }) => {
            database::check(Database::select(db, synchronous)?, out).await
        }
        // run_offline ran these above.
        Command::QuestionBlock(_) | Command::Completions { .. } | Command::Man { .. } => Ok(()),
    }
}
