//! `cargo xtask release <major|minor|patch|rc> [--dry-run]`: one version for
//! every crate, no smaller than the public API's changes demand, with the
//! changelog moved under it, committed and tagged.
//!
//! What the API's changes demand since the last release tag is
//! `cargo semver-checks`'s judgement (it knows `#[non_exhaustive]`, auto
//! traits, async and the rest of Rust's semver rules): the smallest release
//! type it passes is the one needed.

use std::fmt;
use std::path::Path;
use std::process::Command;

/// A workspace version: `X.Y.Z` or a release candidate `X.Y.Z-rc.N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Version {
    pub(crate) major: u64,
    pub(crate) minor: u64,
    pub(crate) patch: u64,
    pub(crate) rc: Option<u64>,
}

impl Version {
    /// Reads `X.Y.Z` or `X.Y.Z-rc.N` by SemVer's rules (the `semver` crate's),
    /// refusing any other pre-release and build metadata.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let bad = || format!("not a version this workspace uses (X.Y.Z or X.Y.Z-rc.N): {text:?}");
        let version = semver::Version::parse(text).map_err(|e| format!("{}: {e}", bad()))?;
        if !version.build.is_empty() {
            return Err(bad());
        }
        let rc = match version.pre.as_str() {
            "" => None,
            pre => Some(
                pre.strip_prefix("rc.")
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(bad)?,
            ),
        };
        Ok(Version {
            major: version.major,
            minor: version.minor,
            patch: version.patch,
            rc,
        })
    }

    fn semver(self) -> semver::Version {
        let mut version = semver::Version::new(self.major, self.minor, self.patch);
        if let Some(n) = self.rc {
            // "rc." and a number is always a valid pre-release.
            version.pre = semver::Prerelease::new(&format!("rc.{n}")).unwrap_or_default();
        }
        version
    }
}

/// SemVer order (the `semver` crate's): a release ranks above all of its
/// candidates, and candidates by number.
impl Ord for Version {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.semver().cmp(&other.semver())
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if let Some(n) = self.rc {
            write!(f, "-rc.{n}")?;
        }
        Ok(())
    }
}

/// What the caller asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bump {
    Major,
    Minor,
    Patch,
    Rc,
}

impl Bump {
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        match text {
            "major" => Ok(Bump::Major),
            "minor" => Ok(Bump::Minor),
            "patch" => Ok(Bump::Patch),
            "rc" => Ok(Bump::Rc),
            other => Err(format!("unknown bump {other:?}: major, minor, patch or rc")),
        }
    }
}

/// How much a set of API changes needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Needed {
    Patch,
    Minor,
    Major,
}

impl Needed {
    /// The release type as `cargo semver-checks --release-type` spells it.
    fn release_type(self) -> &'static str {
        match self {
            Needed::Patch => "patch",
            Needed::Minor => "minor",
            Needed::Major => "major",
        }
    }
}

/// The smallest release the library crates' API changes since `tag` need,
/// as `cargo semver-checks` judges them: it tries patch, then minor, then
/// major. Before 1.0 it treats a minor release as one that may break, as
/// Cargo does, so a break there needs `Minor`.
fn needed_since(root: &Path, tag: &str) -> Result<Needed, String> {
    for needed in [Needed::Patch, Needed::Minor, Needed::Major] {
        let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
            .args([
                "semver-checks",
                "check-release",
                "--workspace",
                "--exclude",
                "xtask",
            ])
            .args([
                "--baseline-rev",
                tag,
                "--release-type",
                needed.release_type(),
            ])
            .current_dir(root)
            .output()
            .map_err(|e| format!("could not run cargo semver-checks: {e}"))?;
        if output.status.success() {
            return Ok(needed);
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        if stderr.contains("no such command") {
            return Err("a release after the first needs cargo-semver-checks: \
                 `cargo install cargo-semver-checks --locked`"
                .to_owned());
        }
        if !stderr.contains("semver requires new") {
            return Err(format!("cargo semver-checks failed:\n{}", stderr.trim()));
        }
    }
    Err(format!(
        "cargo semver-checks refuses even a major release since {tag}"
    ))
}

/// The next version. A release candidate's final release keeps its number
/// when the bump's level allows (1.2.0-rc.3 + minor = 1.2.0); `rc` advances
/// a candidate, or starts one for the smallest release `needed` allows.
pub(crate) fn next(current: Version, bump: Bump, needed: Needed) -> Version {
    let Version {
        major,
        minor,
        patch,
        rc,
    } = current;
    let released = |major, minor, patch| Version {
        major,
        minor,
        patch,
        rc: None,
    };
    match (bump, rc) {
        (Bump::Rc, Some(n)) => Version {
            rc: Some(n + 1),
            ..current
        },
        (Bump::Rc, None) => {
            let level = match needed {
                Needed::Major => Bump::Major,
                Needed::Minor => Bump::Minor,
                Needed::Patch => Bump::Patch,
            };
            Version {
                rc: Some(1),
                ..next(current, level, needed)
            }
        }
        (Bump::Patch, Some(_)) => released(major, minor, patch),
        (Bump::Patch, None) => released(major, minor, patch + 1),
        (Bump::Minor, Some(_)) if patch == 0 => released(major, minor, 0),
        (Bump::Minor, _) => released(major, minor + 1, 0),
        (Bump::Major, Some(_)) if minor == 0 && patch == 0 => released(major, 0, 0),
        (Bump::Major, _) => released(major + 1, 0, 0),
    }
}

/// The size of the step from `current` to `to`. A release candidate has not
/// been released, so the step to its own version (or a later candidate of
/// it) is the step that version takes: patch, minor or major.
fn step(current: Version, to: Version) -> Needed {
    let same_base = (to.major, to.minor, to.patch) == (current.major, current.minor, current.patch);
    if same_base && current.rc.is_some() {
        return if current.patch > 0 {
            Needed::Patch
        } else if current.minor > 0 {
            Needed::Minor
        } else {
            Needed::Major
        };
    }
    if to.major > current.major {
        Needed::Major
    } else if to.minor > current.minor {
        Needed::Minor
    } else {
        Needed::Patch
    }
}

/// Whether going from `current` to `to` is a large enough step for `needed`.
/// Before 1.0 a minor step may break, so it counts as a major one.
pub(crate) fn satisfies(current: Version, to: Version, needed: Needed) -> bool {
    let step = match step(current, to) {
        Needed::Minor if to.major == 0 => Needed::Major,
        other => other,
    };
    step >= needed
}

/// The changelog with `Unreleased` moved under `version` and a fresh,
/// empty `Unreleased` above it.
pub(crate) fn rewrite_changelog(
    text: &str,
    version: Version,
    date: &str,
) -> Result<String, String> {
    let marker = "## Unreleased";
    let at = text
        .find(marker)
        .ok_or("CHANGELOG.md has no `## Unreleased` section")?;
    let body_start = at + marker.len();
    let body_end = text[body_start..]
        .find("\n## ")
        .map_or(text.len(), |i| body_start + i);
    if text[body_start..body_end].trim().is_empty() {
        return Err("the `Unreleased` section is empty: there is nothing to release".to_owned());
    }
    Ok(format!(
        "{}{marker}\n\n## {version} - {date}{}",
        &text[..at],
        &text[body_start..]
    ))
}

/// `Cargo.toml` with the workspace version and every internal dependency's
/// version requirement (a workspace dependency with a `path` under
/// `crates/`) set to `version`, edited as TOML so layout and comments stay.
pub(crate) fn set_versions(manifest: &str, version: Version) -> Result<String, String> {
    let mut doc: toml_edit::DocumentMut = manifest
        .parse()
        .map_err(|e| format!("Cargo.toml is not TOML: {e}"))?;
    let text = version.to_string();
    let package = doc
        .get_mut("workspace")
        .and_then(|w| w.get_mut("package"))
        .and_then(toml_edit::Item::as_table_like_mut)
        .ok_or("Cargo.toml has no [workspace.package]")?;
    package.insert("version", toml_edit::value(text.as_str()));
    if let Some(dependencies) = doc
        .get_mut("workspace")
        .and_then(|w| w.get_mut("dependencies"))
        .and_then(toml_edit::Item::as_table_like_mut)
    {
        for (_, dependency) in dependencies.iter_mut() {
            let Some(dependency) = dependency.as_table_like_mut() else {
                continue;
            };
            let internal = dependency
                .get("path")
                .and_then(toml_edit::Item::as_str)
                .is_some_and(|path| path.starts_with("crates/"));
            if internal && dependency.contains_key("version") {
                dependency.insert("version", toml_edit::value(text.as_str()));
            }
        }
    }
    Ok(doc.to_string())
}

/// Today's date (UTC) as `YYYY-MM-DD`.
pub(crate) fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400);
    civil_date(i64::try_from(days).unwrap_or(0))
}

/// The calendar date `days` after 1970-01-01 (Howard Hinnant's algorithm).
pub(crate) fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .map_err(|e| format!("git: {e}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout)
            .trim_end()
            .to_owned())
    } else {
        Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// Plans (and unless `dry_run`, makes) a release of the repository at `root`.
/// Returns what was, or would be, done.
pub(crate) fn release(
    root: &Path,
    bump: Bump,
    dry_run: bool,
    date: &str,
) -> Result<Vec<String>, String> {
    let manifest_path = root.join("Cargo.toml");
    let manifest = std::fs::read_to_string(&manifest_path)
        .map_err(|e| format!("{}: {e}", manifest_path.display()))?;
    let current = manifest
        .split("[workspace.package]")
        .nth(1)
        .and_then(|section| section.lines().find_map(|l| l.strip_prefix("version = \"")))
        .and_then(|rest| rest.split('"').next())
        .ok_or("Cargo.toml has no [workspace.package] version")
        .and_then(|v| Version::parse(v).map_err(|_| "unreadable [workspace.package] version"))?;
    let last_tag = git(root, &["describe", "--tags", "--abbrev=0", "--match", "v*"]).ok();
    let needed = match &last_tag {
        Some(tag) => needed_since(root, tag)?,
        None => Needed::Patch,
    };
    let to = next(current, bump, needed);
    if !satisfies(current, to, needed) {
        return Err(format!(
            "{current} -> {to} is too small a step: cargo semver-checks finds API changes since {} that need a {needed:?} release",
            last_tag.as_deref().unwrap_or("the start"),
        ));
    }
    let changelog_path = root.join("CHANGELOG.md");
    let changelog = std::fs::read_to_string(&changelog_path)
        .map_err(|e| format!("{}: {e}", changelog_path.display()))?;
    let new_changelog = rewrite_changelog(&changelog, to, date)?;
    let tag = format!("v{to}");
    let plan = vec![
        format!(
            "version {current} -> {to} (the API since {} needs at least {needed:?})",
            last_tag.as_deref().unwrap_or("the start")
        ),
        "Cargo.toml: workspace version and internal requirements".to_owned(),
        format!("CHANGELOG.md: Unreleased -> {to} - {date}"),
        format!("commit \"release {tag}\" and tag {tag}"),
    ];
    if dry_run {
        return Ok(plan);
    }
    std::fs::write(&manifest_path, set_versions(&manifest, to)?).map_err(|e| e.to_string())?;
    std::fs::write(&changelog_path, new_changelog).map_err(|e| e.to_string())?;
    // Cargo.lock follows the new versions; staging a file git ignores fails.
    let _ = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
        .args(["update", "--workspace", "--offline"])
        .current_dir(root)
        .status();
    git(root, &["add", "Cargo.toml", "CHANGELOG.md"])?;
    let _ = git(root, &["add", "Cargo.lock"]);
    git(root, &["commit", "-q", "-m", &format!("release {tag}")])?;
    git(root, &["tag", &tag])?;
    Ok(plan)
}

pub(crate) fn run(args: &[&str]) -> Result<(), String> {
    let (bump, dry_run) = match args {
        [bump] => (Bump::parse(bump)?, false),
        [bump, "--dry-run"] | ["--dry-run", bump] => (Bump::parse(bump)?, true),
        _ => {
            return Err("usage: cargo xtask release <major|minor|patch|rc> [--dry-run]".to_owned());
        }
    };
    crate::api::run(false)?;
    for line in release(&crate::workspace_root(), bump, dry_run, &today())? {
        println!("{line}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Version {
        Version::parse(text).unwrap()
    }

    #[test]
    fn version_arithmetic() {
        let cases = [
            ("0.1.0", Bump::Patch, Needed::Patch, "0.1.1"),
            ("0.1.0", Bump::Minor, Needed::Patch, "0.2.0"),
            ("0.1.3", Bump::Major, Needed::Patch, "1.0.0"),
            ("1.4.2", Bump::Minor, Needed::Patch, "1.5.0"),
            ("1.4.2", Bump::Rc, Needed::Patch, "1.4.3-rc.1"),
            ("1.4.2", Bump::Rc, Needed::Minor, "1.5.0-rc.1"),
            ("1.4.2", Bump::Rc, Needed::Major, "2.0.0-rc.1"),
            ("1.5.0-rc.1", Bump::Rc, Needed::Major, "1.5.0-rc.2"),
            ("1.5.0-rc.2", Bump::Minor, Needed::Minor, "1.5.0"),
            ("1.4.3-rc.1", Bump::Patch, Needed::Patch, "1.4.3"),
            ("2.0.0-rc.4", Bump::Major, Needed::Major, "2.0.0"),
            ("1.4.3-rc.1", Bump::Minor, Needed::Patch, "1.5.0"),
        ];
        for (from, bump, needed, to) in cases {
            assert_eq!(
                next(v(from), bump, needed).to_string(),
                to,
                "{from} {bump:?}"
            );
        }
        assert!(Version::parse("1.2").is_err());
        assert!(Version::parse("1.2.3-beta.1").is_err());
        assert!(v("1.2.3-rc.1") < v("1.2.3"));
        assert!(v("1.2.3-rc.9") < v("1.2.3-rc.10"), "candidates by number");
        assert!(
            Version::parse("1.2.3+build.5").is_err(),
            "no build metadata"
        );
        assert!(Version::parse("01.2.3").is_err(), "no leading zeros");
    }

    #[test]
    fn bumps_too_small_for_the_api_are_refused() {
        assert!(satisfies(v("1.4.2"), v("1.4.3"), Needed::Patch));
        assert!(!satisfies(v("1.4.2"), v("1.4.3"), Needed::Minor));
        assert!(satisfies(v("1.4.2"), v("1.5.0"), Needed::Minor));
        assert!(!satisfies(v("1.4.2"), v("1.5.0"), Needed::Major));
        assert!(satisfies(v("1.4.2"), v("2.0.0"), Needed::Major));
        assert!(
            satisfies(v("0.1.0"), v("0.2.0"), Needed::Minor),
            "before 1.0 a minor bump may break"
        );
        assert!(!satisfies(v("0.1.0"), v("0.1.1"), Needed::Minor));
    }

    #[test]
    fn the_changelog_moves_under_the_release() {
        let text = "# Changelog\n\nIntro.\n\n## Unreleased\n\n### Added\n\n- a: thing\n\n## 0.1.0 - 2026-01-01\n\n- old\n";
        let rewritten = rewrite_changelog(text, v("0.2.0"), "2026-11-29").unwrap();
        assert_eq!(
            rewritten,
            "# Changelog\n\nIntro.\n\n## Unreleased\n\n## 0.2.0 - 2026-11-29\n\n### Added\n\n- a: thing\n\n## 0.1.0 - 2026-01-01\n\n- old\n"
        );
        assert!(
            rewrite_changelog("## Unreleased\n\n## 0.1.0\n- x\n", v("0.2.0"), "d").is_err(),
            "nothing to release"
        );
        assert!(rewrite_changelog("# Changelog\n", v("0.2.0"), "d").is_err());
    }

    #[test]
    fn versions_are_set_everywhere() {
        let manifest = "[workspace.package]\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[workspace.dependencies]\n# kept\nindex-a = { path = \"crates/a\", version = \"0.1.0\" }\nserde = { version = \"1.0\" }\nlocal = { path = \"vendor/x\", version = \"0.3\" }\n";
        let updated = set_versions(manifest, v("0.2.0-rc.1")).unwrap();
        assert!(updated.contains("# kept"), "comments survive");
        assert!(updated.contains("local = { path = \"vendor/x\", version = \"0.3\" }"));
        assert!(set_versions("[workspace", v("1.0.0")).is_err());
        assert!(updated.contains("version = \"0.2.0-rc.1\"\nedition"));
        assert!(updated.contains("index-a = { path = \"crates/a\", version = \"0.2.0-rc.1\" }"));
        assert!(updated.contains("serde = { version = \"1.0\" }"));
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(20_421), "2025-11-29");
        assert_eq!(civil_date(11_016), "2000-02-29");
    }

    /// A clone of this repository's committed state, with a local identity
    /// for commits.
    fn scratch_clone() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = crate::workspace_root();
        let status = Command::new("git")
            .args(["clone", "-q"])
            .arg(&root)
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(status.success());
        for (key, value) in [
            ("user.name", "Release Test"),
            ("user.email", "release@example.invalid"),
        ] {
            git(dir.path(), &["config", key, value]).unwrap();
        }
        dir
    }

    #[test]
    fn a_dry_run_on_a_copy_plans_and_changes_nothing() {
        let copy = scratch_clone();
        let plan = release(copy.path(), Bump::Minor, true, "2026-11-29").unwrap();
        assert!(plan[0].starts_with("version "), "{plan:?}");
        assert!(
            plan.iter()
                .any(|l| l.starts_with("CHANGELOG.md: Unreleased -> "))
        );
        assert_eq!(
            git(copy.path(), &["status", "--porcelain"]).unwrap(),
            "",
            "a dry run writes nothing"
        );
        assert_eq!(git(copy.path(), &["tag"]).unwrap(), "");
    }

    #[test]
    fn a_release_on_a_copy_bumps_moves_commits_and_tags() {
        let copy = scratch_clone();
        let manifest = std::fs::read_to_string(copy.path().join("Cargo.toml")).unwrap();
        let current = manifest
            .split("[workspace.package]")
            .nth(1)
            .and_then(|s| s.lines().find_map(|l| l.strip_prefix("version = \"")))
            .and_then(|r| r.split('"').next())
            .map(|v| v.to_owned())
            .unwrap();
        let expected = next(
            Version::parse(&current).unwrap(),
            Bump::Minor,
            Needed::Patch,
        )
        .to_string();
        release(copy.path(), Bump::Minor, false, "2026-11-29").unwrap();
        assert_eq!(git(copy.path(), &["tag"]).unwrap(), format!("v{expected}"));
        let manifest = std::fs::read_to_string(copy.path().join("Cargo.toml")).unwrap();
        assert!(manifest.contains(&format!("version = \"{expected}\"")));
        assert!(!manifest.contains(&format!(
            "index-question-block = {{ path = \"crates/question-block\", version = \"{current}\""
        )));
        let changelog = std::fs::read_to_string(copy.path().join("CHANGELOG.md")).unwrap();
        assert!(
            changelog.contains(&format!("## Unreleased\n\n## {expected} - 2026-11-29\n")),
            "{}",
            &changelog[..400.min(changelog.len())]
        );
        assert_eq!(
            git(copy.path(), &["log", "-1", "--format=%s"]).unwrap(),
            format!("release v{expected}")
        );
    }

    /// A one-crate workspace at 1.0.0, released and tagged, with `lib` as
    /// its library's source.
    fn released_workspace(lib: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("crates/a/src")).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[workspace]\nresolver = \"3\"\nmembers = [\"crates/a\"]\n\n[workspace.package]\nversion = \"1.0.0\"\nedition = \"2024\"\n",
        )
        .unwrap();
        std::fs::write(
            root.join("crates/a/Cargo.toml"),
            "[package]\nname = \"a\"\nversion.workspace = true\nedition.workspace = true\ndescription = \"a\"\nlicense = \"MIT\"\n",
        )
        .unwrap();
        std::fs::write(root.join("crates/a/src/lib.rs"), lib).unwrap();
        std::fs::write(
            root.join("CHANGELOG.md"),
            "# Changelog\n\n## Unreleased\n\n## 1.0.0\n",
        )
        .unwrap();
        std::fs::write(root.join(".gitignore"), "target\nCargo.lock\n").unwrap();
        git(root, &["init", "-q"]).unwrap();
        for (key, value) in [
            ("user.name", "Release Test"),
            ("user.email", "release@example.invalid"),
        ] {
            git(root, &["config", key, value]).unwrap();
        }
        git(root, &["add", "."]).unwrap();
        git(root, &["commit", "-qm", "1.0.0"]).unwrap();
        git(root, &["tag", "v1.0.0"]).unwrap();
        dir
    }

    /// Commits `lib` as the library's new source, with a changelog line.
    fn change(root: &Path, lib: &str) {
        std::fs::write(root.join("crates/a/src/lib.rs"), lib).unwrap();
        let changelog = std::fs::read_to_string(root.join("CHANGELOG.md")).unwrap();
        std::fs::write(
            root.join("CHANGELOG.md"),
            changelog.replacen("## Unreleased\n", "## Unreleased\n\n- a: changed\n", 1),
        )
        .unwrap();
        git(root, &["commit", "-qam", "change"]).unwrap();
    }

    #[test]
    #[ignore = "needs cargo-semver-checks (`cargo install cargo-semver-checks --locked`)"]
    fn cargo_semver_checks_decides_how_big_a_release_must_be() {
        let both = "//! a\n/// f\npub fn f() {}\n/// g\npub fn g() {}\n";
        let copy = released_workspace(both);
        change(copy.path(), "//! a\n/// f\npub fn f() {}\n");
        let refused = release(copy.path(), Bump::Minor, true, "2026-12-02").unwrap_err();
        assert!(
            refused.contains("too small a step") && refused.contains("Major"),
            "a removed function needs a major release: {refused}"
        );
        let plan = release(copy.path(), Bump::Major, true, "2026-12-02").unwrap();
        assert!(plan[0].starts_with("version 1.0.0 -> 2.0.0"), "{plan:?}");

        let copy = released_workspace(both);
        change(
            copy.path(),
            "//! a\n/// f\npub fn f() {}\n/// g\npub fn g() {}\n/// h\npub fn h() {}\n",
        );
        let plan = release(copy.path(), Bump::Patch, true, "2026-12-02").unwrap();
        assert!(
            plan[0].starts_with("version 1.0.0 -> 1.0.1"),
            "an addition breaks nothing: {plan:?}"
        );
    }
}
