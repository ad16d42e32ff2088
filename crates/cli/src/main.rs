//! `index`: the command-line tool for the Index protocol's contracts.

// A command-line tool: printing is its output.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod cli;
mod demo;
mod failure;
mod negotiation;
mod output;
mod question_block;
mod sink;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command, NegotiationCommand, QuestionBlockCommand};
use crate::failure::Failure;
use crate::negotiation::Session;
use crate::output::{Out, read_input};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let out = Out { json: cli.json };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            anstream::eprintln!("error: could not start: {err}");
            return ExitCode::from(4);
        }
    };
    match runtime.block_on(run(cli.command, out)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            negotiation::report(&failure);
            failure.exit_code()
        }
    }
}

async fn run(command: Command, out: Out) -> Result<(), Failure> {
    match command {
        Command::QuestionBlock(command) => match command {
            QuestionBlockCommand::Parse { file } => question_block::parse(file.as_deref(), out),
            QuestionBlockCommand::Serialize { prose, block } => {
                question_block::serialize(&prose, &block, out)
            }
            QuestionBlockCommand::Check { files } => question_block::check(&files, out),
        },
        Command::Negotiation(args) => {
            let session = Session::open(negotiation::database_path(args.db), out).await?;
            match args.command {
                NegotiationCommand::Open(open) => {
                    negotiation::open(&session, open).await.map(|_| ())
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
                    negotiation::turn(&session, &id, &user, action.into(), message)
                        .await
                        .map(|_| ())
                }
                NegotiationCommand::Resume { id, user } => {
                    negotiation::resume(&session, &id, &user).await
                }
                NegotiationCommand::List {
                    user,
                    intent_id,
                    state,
                } => negotiation::list(&session, &user, intent_id, state).await,
                NegotiationCommand::Messages { id } => negotiation::messages(&session, &id).await,
            }
        }
        Command::Demo(args) => demo::run(args.db, Out { json: false }).await,
    }
}
