//! Where the tool's logs go.

/// Logs go to standard error (standard output is a command's product, and
/// the MCP transport under `serve --mcp-stdio`), at `RUST_LOG`'s level,
/// `default` when it is unset.
pub(crate) fn init_logging(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}
