//! The inbox `index serve` embeds (`crates/host/inbox`): the page's own
//! files within their size budget, and the browser package it serves, the
//! very bytes `cargo xtask wasm` builds (the build is reproducible, so a
//! copy that differs is stale).

use std::path::Path;

use crate::fixtures::Mode;

/// Where the inbox's files are, from the workspace root.
const DIR: &str = "crates/host/inbox";

/// The page's own files, which its budget counts.
const PAGE: [&str; 4] = ["index.html", "inbox.js", "inbox.css", "icon.svg"];

/// The page's budget, bytes gzipped.
const BUDGET_FILE: &str = "crates/host/inbox/size-budget";

/// Builds the package and copies it into the inbox (`Write`), or fails
/// when the inbox's copy differs from it (`Check`).
pub(crate) fn run(mode: Mode) -> Result<(), String> {
    let pkg = crate::wasm::build(&crate::wasm::toolchain()?)?;
    compare(&pkg, mode)
}

/// [`run`] with the package already built in `pkg`.
pub(crate) fn compare(pkg: &Path, mode: Mode) -> Result<(), String> {
    let served = crate::workspace_root().join(DIR).join("pkg");
    for built in crate::wasm::loaded_files(pkg) {
        let name = built
            .file_name()
            .ok_or_else(|| format!("{} has no file name", built.display()))?;
        let copy = served.join(name);
        let bytes = std::fs::read(&built).map_err(|e| format!("{}: {e}", built.display()))?;
        match mode {
            Mode::Write => {
                std::fs::write(&copy, &bytes).map_err(|e| format!("{}: {e}", copy.display()))?;
                println!("wrote {}", copy.display());
            }
            Mode::Check => {
                if std::fs::read(&copy).ok().as_deref() != Some(bytes.as_slice()) {
                    return Err(format!(
                        "{} is not the package as built; run `cargo xtask inbox`",
                        copy.display()
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Fails when the page's own files, each gzipped, are past the budget.
pub(crate) fn check_budget() -> Result<(), String> {
    let dir = crate::workspace_root().join(DIR);
    let mut gzipped = 0;
    for file in PAGE {
        gzipped += crate::wasm::gzipped_len(&dir.join(file))?;
    }
    let budget = crate::wasm::budget_in(BUDGET_FILE)?;
    println!("{gzipped} bytes gzipped (budget {budget})");
    if gzipped > budget {
        return Err(format!(
            "the inbox page is {gzipped} bytes gzipped, past its budget of {budget} ({BUDGET_FILE})"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_inbox_page_is_within_its_budget() {
        super::check_budget().unwrap_or_else(|message| panic!("{message}"));
    }
}
