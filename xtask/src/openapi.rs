//! `cargo xtask openapi`: docs/openapi.json, the REST API's OpenAPI 3.1
//! document, written from the same table of routes the host serves (and
//! serves at `/openapi.json`), so the committed copy cannot drift.

use crate::fixtures::{Mode, write_or_check};

/// Where the document lives, relative to the workspace root.
const PATH: &str = "docs/openapi.json";

pub(crate) fn run(mode: Mode) -> Result<(), String> {
    let document = serde_json::to_string_pretty(&index_host::openapi())
        .map_err(|e| format!("could not write the OpenAPI document: {e}"))?;
    write_or_check(
        mode,
        vec![(PATH, format!("{document}\n"))],
        "cargo xtask openapi",
    )
}
