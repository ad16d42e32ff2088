//! The dependency rules of `docs/ARCHITECTURE.md`, checked from cargo's own
//! view of the workspace: which crate may depend on which, and what a
//! browser-safe crate may pull in.

use std::collections::BTreeSet;

use serde_json::Value;

/// Crates that must build for `wasm32-unknown-unknown` with no OS underneath.
pub(crate) const BROWSER_SAFE: &[&str] = &[
    "index-question-block",
    "index-negotiation",
    "index-interaction",
];

/// What a browser-safe crate may depend on directly, besides other
/// browser-safe crates of this workspace.
const BROWSER_SAFE_DIRECT: &[&str] = &["serde", "serde_json", "uuid", "garde", "thiserror"];

/// Crates that must never appear in a browser-safe crate's tree: they need
/// an operating system (threads, sockets, files, entropy).
const BROWSER_FORBIDDEN: &[&str] = &[
    "tokio",
    "mio",
    "getrandom",
    "rand",
    "socket2",
    "libc",
    "libsqlite3-sys",
    "rusqlite",
    "regex",
];

/// Which workspace crates each workspace crate may depend on (normal and
/// build dependencies). A crate missing here fails the check, so adding one
/// forces a decision about where it sits.
const ARROWS: &[(&str, &[&str])] = &[
    ("index-question-block", &[]),
    ("index-interaction", &[]),
    ("index-negotiation", &["index-question-block"]),
    ("index-negotiation-store", &["index-negotiation"]),
    (
        "index-negotiation-store-sqlite",
        &["index-negotiation-store", "index-negotiation"],
    ),
    (
        "index-negotiation-store-postgres",
        &["index-negotiation-store", "index-negotiation"],
    ),
    (
        "index-stall-gap",
        &["index-negotiation", "index-question-block"],
    ),
    (
        "index-cli",
        &[
            "index-question-block",
            "index-negotiation",
            "index-negotiation-store",
            "index-negotiation-store-sqlite",
            "index-negotiation-store-postgres",
            "index-stall-gap",
        ],
    ),
    ("xtask", &["*"]),
];

pub(crate) fn check_dependency_rules() -> Result<(), String> {
    let mut problems = check_arrows()?;
    for krate in BROWSER_SAFE {
        problems.extend(check_browser_safe(krate)?);
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn cargo_output(args: &[&str]) -> Result<String, String> {
    let output = crate::cargo(args)
        .output()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`cargo {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    String::from_utf8(output.stdout).map_err(|e| format!("cargo printed non-UTF-8: {e}"))
}

/// A workspace package as `cargo metadata` describes it.
struct Package {
    name: String,
    /// (name, kind) of each dependency; kind is `normal`, `dev` or `build`.
    deps: Vec<(String, String)>,
}

fn str_field<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}

fn workspace_packages() -> Result<Vec<Package>, String> {
    let metadata: Value = serde_json::from_str(&cargo_output(&[
        "metadata",
        "--format-version",
        "1",
        "--no-deps",
    ])?)
    .map_err(|e| format!("cargo metadata: {e}"))?;
    let packages = metadata
        .get("packages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    Ok(packages
        .iter()
        .map(|package| Package {
            name: str_field(package, "name").unwrap_or_default().to_owned(),
            deps: package
                .get("dependencies")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|dep| {
                    (
                        str_field(dep, "name").unwrap_or_default().to_owned(),
                        str_field(dep, "kind").unwrap_or("normal").to_owned(),
                    )
                })
                .collect(),
        })
        .collect())
}

fn check_arrows() -> Result<Vec<String>, String> {
    let packages = workspace_packages()?;
    let members: BTreeSet<&str> = packages.iter().map(|p| p.name.as_str()).collect();
    let mut problems = Vec::new();
    for Package { name, deps } in &packages {
        let Some((_, allowed)) = ARROWS.iter().find(|(krate, _)| krate == name) else {
            problems.push(format!(
                "{name} has no entry in the dependency rules (xtask/src/metadata.rs ARROWS)"
            ));
            continue;
        };
        for (dep, kind) in deps {
            if dep == "xtask" {
                problems.push(format!("{name} depends on xtask; nothing may"));
            }
            let internal = members.contains(dep.as_str()) && dep != name;
            let arrow_allowed = allowed.contains(&"*") || allowed.contains(&dep.as_str());
            if internal && kind != "dev" && !arrow_allowed {
                problems.push(format!("{name} may not depend on {dep}"));
            }
        }
    }
    Ok(problems)
}

fn check_browser_safe(krate: &str) -> Result<Vec<String>, String> {
    let mut problems = Vec::new();
    let packages = workspace_packages()?;
    let direct = packages
        .into_iter()
        .find(|p| p.name == krate)
        .map(|p| p.deps)
        .ok_or_else(|| format!("{krate} is not in the workspace"))?;
    for (dep, kind) in &direct {
        let allowed =
            BROWSER_SAFE_DIRECT.contains(&dep.as_str()) || BROWSER_SAFE.contains(&dep.as_str());
        if kind == "normal" && !allowed {
            problems.push(format!("browser-safe {krate} depends directly on {dep}"));
        }
    }
    let tree = cargo_output(&[
        "tree",
        "--package",
        krate,
        "--edges",
        "normal,no-proc-macro",
        "--target",
        "wasm32-unknown-unknown",
        "--prefix",
        "none",
        "--format",
        "{p}",
    ])?;
    for line in tree.lines() {
        let name = line.split_whitespace().next().unwrap_or_default();
        if BROWSER_FORBIDDEN.contains(&name) {
            problems.push(format!("browser-safe {krate} pulls in {name}"));
        }
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependency_rules_hold() {
        check_dependency_rules().unwrap();
    }
}
