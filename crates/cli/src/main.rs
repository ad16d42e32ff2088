//! `index`: the command-line tool for the Index protocol's contracts.

fn main() -> std::process::ExitCode {
    index_cli::main()
}
