//! `index`: the command-line tool for the Index protocol's contracts.

/// jemalloc rather than the system allocator: after a burst of MCP
/// sessions or connections closes, jemalloc gives what they took back to
/// the system within seconds, where glibc's per-thread arenas keep most of
/// it; it also peaks lower under the same burst (`benches/abuse.rs`
/// measures both).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    index_cli::main()
}
