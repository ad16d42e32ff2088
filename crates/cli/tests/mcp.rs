//! `index serve` with MCP clients nobody here wrote: the Python MCP SDK's,
//! driven by `mcp_agents.py` (two seats negotiating to agreement over
//! streamable HTTP and over stdio, a stranger and a bad key refused).

// Tests report failure by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

#[test]
#[ignore = "needs Python with the MCP SDK: INDEX_TEST_PYTHON=path/to/python (see .ci/run) cargo test -- --ignored"]
fn python_mcp_clients_negotiate_through_index_serve() {
    let python = std::env::var("INDEX_TEST_PYTHON")
        .expect("INDEX_TEST_PYTHON names a Python that has `mcp` installed (.ci/run makes one)");
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_agents.py");
    let out = Command::new(python)
        .arg(&script)
        .args(["--index", env!("CARGO_BIN_EXE_index"), "--dir"])
        .arg(dir.path())
        .env_remove("INDEX_DB")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for expected in [
        "ok: over HTTP the seats agree",
        "ok: a stranger's submit_negotiation_turn is not_found",
        "ok: an unknown key gets 401 from /mcp",
        "ok: over stdio the seats agree",
        "all agents done",
    ] {
        assert!(
            stdout.contains(expected),
            "{expected} missing from:\n{stdout}"
        );
    }
}
