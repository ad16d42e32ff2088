//! Running the `index` binary from a test: the one place that spawns it.

// Each test binary uses its own part of this.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `index` in `dir`, without colour and with `INDEX_DB` unset: the start of
/// every command a test runs.
pub fn command(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_index"));
    command
        .current_dir(dir)
        .env_remove("INDEX_DB")
        .env("NO_COLOR", "1");
    command
}

/// Runs `index` with `args` in `dir`, without colour, with `stdin` piped in
/// and `INDEX_DB` unset unless `env` sets it.
pub fn index(dir: &Path, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Output {
    let mut command = command(dir);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().unwrap();
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

/// A new key for `user` in `db` (a host key if `host`), printed once by
/// `index keys create`.
pub fn key(dir: &Path, db: &str, user: &str, host: bool) -> String {
    let mut args = vec!["keys", "create", "--user", user, "--db", db];
    if host {
        args.push("--host");
    }
    let out = index(dir, &args, None, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// `index --json ARGS --db DB` in `dir`, which must succeed; its JSON.
pub fn index_json(dir: &Path, db: &str, args: &[&str]) -> serde_json::Value {
    let mut full = vec!["--json"];
    full.extend_from_slice(args);
    full.extend_from_slice(&["--db", db]);
    let out = index(dir, &full, None, &[]);
    assert!(
        out.status.success(),
        "index {full:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}
