//! `cargo xtask check`: everything a change must pass before it lands.
//! `--no-tests` leaves out the tests, for CI, which runs them on its own.

use crate::{api, fixtures, man, metadata, openapi};

pub(crate) fn run(tests: bool) -> Result<(), String> {
    step("fixtures are fresh", || {
        fixtures::run(fixtures::Mode::Check)
    })?;
    step("the man page is fresh", || man::run(fixtures::Mode::Check))?;
    step("the OpenAPI document is fresh", || {
        openapi::run(fixtures::Mode::Check)
    })?;
    step("dependency rules", metadata::check_dependency_rules)?;
    step("rustfmt", || cargo(&["fmt", "--all", "--check"]))?;
    step("clippy", || {
        cargo(&[
            "clippy",
            "--workspace",
            "--all-targets",
            "--all-features",
            "--",
            "-D",
            "warnings",
        ])
    })?;
    step("docs build without warnings", || {
        doc(&["doc", "--workspace", "--no-deps"])
    })?;
    step("the public API matches api/", || api::run(false))?;
    // The browser build needs Debian's toolchain for wasm32 (see .ci/run).
    // Without it, this check alone is left out here, saying so; under
    // CI=true nothing may be left out.
    let budget = "the browser package is within its size budget, and the inbox serves it as built";
    match crate::wasm::toolchain() {
        Err(missing) if std::env::var("CI").as_deref() != Ok("true") => {
            println!("== {budget}: not run here ({missing})");
        }
        _ => step(budget, || {
            crate::inbox::compare(&crate::wasm::check()?, fixtures::Mode::Check)
        })?,
    }
    step(
        "the inbox page is within its size budget",
        crate::inbox::check_budget,
    )?;
    if tests {
        step("tests", || {
            cargo(&["test", "--workspace", "--all-features"])
        })?;
    }
    println!("all checks passed");
    Ok(())
}

fn step(name: &str, run: impl FnOnce() -> Result<(), String>) -> Result<(), String> {
    println!("== {name}");
    run().map_err(|message| format!("{name} failed: {message}"))
}

fn cargo(args: &[&str]) -> Result<(), String> {
    succeed(crate::cargo(args), args)
}

/// `cargo doc` with every rustdoc warning (a broken link, say) an error.
fn doc(args: &[&str]) -> Result<(), String> {
    let mut command = crate::cargo(args);
    command.env("RUSTDOCFLAGS", "-D warnings");
    succeed(command, args)
}

fn succeed(mut command: std::process::Command, args: &[&str]) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` exited with {status}", args.join(" ")))
    }
}
