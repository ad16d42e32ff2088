//! The dependency rules of `docs/ARCHITECTURE.md`, checked from cargo's own
//! view of the workspace: which crate may depend on which, and what a
//! browser-safe crate may pull in.

use std::collections::BTreeSet;

use cargo_metadata::DependencyKind;

/// Crates that must build for `wasm32-unknown-unknown` with no OS underneath.
pub(crate) const BROWSER_SAFE: &[&str] = &[
    "index-js",
    "index-question-block",
    "index-negotiation",
    "index-interaction",
];

/// What a browser-safe crate may depend on directly, besides other
/// browser-safe crates of this workspace: data formats, and pure computation
/// (`wide` for portable SIMD, `memchr` for substring search, `sha2` for the
/// interaction contract's digests, `ryu-js` for JavaScript's number
/// formatting) that needs no operating system, and `schemars` for the wire
/// types' JSON Schemas, behind each crate's off-by-default `schemars`
/// feature.
const BROWSER_SAFE_DIRECT: &[&str] = &[
    "serde",
    "serde_json",
    "uuid",
    "garde",
    "thiserror",
    "wide",
    "memchr",
    "sha2",
    "ryu-js",
    "schemars",
];

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
    ("index-js", &[]),
    ("index-question-block", &["index-js"]),
    ("index-interaction", &["index-js"]),
    ("index-negotiation", &["index-js", "index-question-block"]),
    (
        "index-negotiation-store",
        &["index-js", "index-negotiation", "index-question-block"],
    ),
    (
        "index-negotiation-store-sqlite",
        &["index-js", "index-negotiation-store", "index-negotiation"],
    ),
    (
        "index-negotiation-store-postgres",
        &["index-negotiation-store", "index-negotiation"],
    ),
    (
        "index-question-block-wasm",
        &["index-js", "index-question-block"],
    ),
    (
        "index-stall-gap",
        &[
            "index-js",
            "index-negotiation",
            "index-negotiation-store",
            "index-question-block",
        ],
    ),
    (
        "index-host",
        &[
            "index-js",
            "index-negotiation-store",
            "index-negotiation",
            "index-stall-gap",
            "index-question-block",
            "index-interaction",
        ],
    ),
    (
        "index-protocol",
        &[
            "index-js",
            "index-host",
            "index-question-block",
            "index-interaction",
            "index-negotiation",
            "index-negotiation-store",
            "index-negotiation-store-sqlite",
            "index-negotiation-store-postgres",
            "index-stall-gap",
        ],
    ),
    (
        "index-cli",
        &[
            "index-js",
            "index-host",
            "index-question-block",
            "index-negotiation",
            "index-negotiation-store",
            "index-negotiation-store-sqlite",
            "index-negotiation-store-postgres",
            "index-stall-gap",
        ],
    ),
    // Tests' shared fakes: depended on only as a dev-dependency.
    ("index-test-support", &[]),
    ("xtask", &["*"]),
];

/// The crate that re-exports every library crate behind a feature.
const UMBRELLA: &str = "index-protocol";

pub(crate) fn check_dependency_rules() -> Result<(), String> {
    let mut problems = check_arrows()?;
    for krate in BROWSER_SAFE {
        problems.extend(check_browser_safe(krate)?);
    }
    problems.extend(check_umbrella()?);
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
pub(crate) struct Package {
    pub(crate) name: String,
    /// Each dependency's name and kind.
    pub(crate) deps: Vec<(String, DependencyKind)>,
    /// Whether it has a library target.
    pub(crate) has_lib: bool,
    /// Whether it may be published.
    pub(crate) publish: bool,
    /// The metadata a published crate needs, by field name (absent ones empty).
    pub(crate) fields: Vec<(&'static str, String)>,
    /// Its directory.
    pub(crate) dir: std::path::PathBuf,
}

/// The workspace's packages, as `cargo metadata` describes them, read
/// with the same cargo that runs xtask.
fn metadata_packages() -> Result<Vec<cargo_metadata::Package>, String> {
    let mut command = cargo_metadata::MetadataCommand::new();
    if let Ok(cargo) = std::env::var("CARGO") {
        command.cargo_path(cargo);
    }
    let metadata = command
        .current_dir(crate::workspace_root())
        .no_deps()
        .exec()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    Ok(metadata.packages)
}

pub(crate) fn workspace_packages() -> Result<Vec<Package>, String> {
    Ok(metadata_packages()?
        .into_iter()
        .map(|package| Package {
            has_lib: package
                .targets
                .iter()
                .any(|target| target.kind.contains(&cargo_metadata::TargetKind::Lib)),
            publish: package.publish.as_ref().is_none_or(|to| !to.is_empty()),
            fields: vec![
                (
                    "description",
                    package.description.clone().unwrap_or_default(),
                ),
                ("license", package.license.clone().unwrap_or_default()),
                ("repository", package.repository.clone().unwrap_or_default()),
                (
                    "readme",
                    package
                        .readme
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default(),
                ),
            ],
            dir: package
                .manifest_path
                .parent()
                .map(|dir| dir.as_std_path().to_path_buf())
                .unwrap_or_default(),
            name: package.name.to_string(),
            deps: package
                .dependencies
                .iter()
                .map(|dep| (dep.name.clone(), dep.kind))
                .collect(),
        })
        .collect())
}

/// Publishable library crates, each after the workspace crates it depends on.
pub(crate) fn library_crates() -> Result<Vec<String>, String> {
    Ok(publishable_in_order()?
        .into_iter()
        .filter(|p| p.has_lib)
        .map(|p| p.name)
        .collect())
}

/// Publishable packages, each after the workspace packages it depends on.
pub(crate) fn publishable_in_order() -> Result<Vec<Package>, String> {
    let mut pending: Vec<Package> = workspace_packages()?
        .into_iter()
        .filter(|p| p.publish)
        .collect();
    let members: BTreeSet<String> = pending.iter().map(|p| p.name.clone()).collect();
    let mut ordered: Vec<Package> = Vec::new();
    while !pending.is_empty() {
        let done: BTreeSet<String> = ordered.iter().map(|p| p.name.clone()).collect();
        let ready = pending.iter().position(|p| {
            p.deps.iter().all(|(dep, kind)| {
                *kind == DependencyKind::Development
                    || dep == &p.name
                    || !members.contains(dep)
                    || done.contains(dep)
            })
        });
        let Some(ready) = ready else {
            return Err("the workspace crates depend on each other in a cycle".to_owned());
        };
        ordered.push(pending.remove(ready));
    }
    Ok(ordered)
}

fn check_arrows() -> Result<Vec<String>, String> {
    let packages = workspace_packages()?;
    let members: BTreeSet<&str> = packages.iter().map(|p| p.name.as_str()).collect();
    let mut problems = Vec::new();
    for Package { name, deps, .. } in &packages {
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
            if internal && *kind != DependencyKind::Development && !arrow_allowed {
                problems.push(format!("{name} may not depend on {dep}"));
            }
        }
    }
    Ok(problems)
}

/// Every library crate is reachable from the umbrella through a feature of
/// its own name, and the umbrella's default build is browser-safe. The
/// tool's crate is not a library for users: its lib target only exposes
/// the command-line definition to the man-page generator.
fn check_umbrella() -> Result<Vec<String>, String> {
    let umbrella = metadata_packages()?
        .into_iter()
        .find(|p| p.name.as_str() == UMBRELLA)
        .ok_or(format!("{UMBRELLA} is not in the workspace"))?;
    let features = umbrella.features;
    let mut problems = Vec::new();
    for krate in library_crates()?
        .into_iter()
        .filter(|k| k != UMBRELLA && k != "index-cli")
    {
        let feature = krate.trim_start_matches("index-");
        let enables = features
            .get(feature)
            .is_some_and(|deps| deps.iter().any(|d| *d == format!("dep:{krate}")));
        if !enables {
            problems.push(format!(
                "{UMBRELLA} has no feature `{feature}` enabling {krate}"
            ));
        }
    }
    problems.extend(forbidden_in_tree(UMBRELLA)?);
    Ok(problems)
}

/// Crates in `krate`'s default normal tree for wasm32 that need an OS.
fn forbidden_in_tree(krate: &str) -> Result<Vec<String>, String> {
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
    Ok(tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| BROWSER_FORBIDDEN.contains(name))
        .map(|name| format!("browser-safe {krate} pulls in {name}"))
        .collect())
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
        if *kind == DependencyKind::Normal && !allowed {
            problems.push(format!("browser-safe {krate} depends directly on {dep}"));
        }
    }
    problems.extend(forbidden_in_tree(krate)?);
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependency_rules_hold() {
        check_dependency_rules().unwrap();
    }

    /// The diagram in docs/ARCHITECTURE.md draws exactly the arrows
    /// enforced here, so it cannot drift from them.
    #[test]
    fn the_architecture_diagram_draws_the_enforced_arrows() {
        let doc =
            std::fs::read_to_string(crate::workspace_root().join("docs/ARCHITECTURE.md")).unwrap();
        let block = doc
            .split("## Dependency direction")
            .nth(1)
            .and_then(|rest| rest.split("```").nth(1))
            .expect("a dependency diagram in a code block");
        let mut drawn = BTreeSet::new();
        for line in block.lines().filter(|line| line.contains(" -> ")) {
            let (from, to) = line.split_once(" -> ").unwrap();
            if from == "xtask" {
                continue;
            }
            let to = to.split('(').next().unwrap_or_default();
            for dependency in to.split(',').map(str::trim).filter(|d| !d.is_empty()) {
                drawn.insert((format!("index-{from}"), format!("index-{dependency}")));
            }
            drawn.insert((format!("index-{from}"), String::new()));
        }
        let mut enforced = BTreeSet::new();
        for (from, to) in ARROWS.iter().filter(|(from, _)| *from != "xtask") {
            enforced.insert(((*from).to_owned(), String::new()));
            for dependency in *to {
                enforced.insert(((*from).to_owned(), (*dependency).to_owned()));
            }
        }
        let missing: Vec<_> = enforced.difference(&drawn).collect();
        let extra: Vec<_> = drawn.difference(&enforced).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "docs/ARCHITECTURE.md's diagram differs from ARROWS: not drawn {missing:?}, drawn but not enforced {extra:?}"
        );
    }
}
