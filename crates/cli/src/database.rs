//! Which store a command uses, read from `--db` or `INDEX_DB`, and how it
//! opens it: only a command that writes may create a store, and it says so
//! when it does, since a store made in the wrong directory otherwise shows
//! up later only as keys or negotiations that seem to be missing.

use std::path::{Path, PathBuf};

use index_negotiation_store::HostStore;
use index_negotiation_store_postgres::PostgresStore;
use index_negotiation_store_sqlite::{Access, SqliteOptions, SqliteStore, Synchronous};

use crate::failure::Failure;
use crate::output::{NOTE, styled};

/// The schemes `--db` understands, for the usage error that lists them.
const SCHEMES: &str = "postgres://, postgresql:// or sqlite://";

/// A store, as named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Database {
    /// An SQLite file, and how durable each commit to it is.
    Sqlite(PathBuf, Synchronous),
    /// A PostgreSQL connection URL.
    Postgres(String),
}

/// What a command does with the store, and so how it opens it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Use {
    /// Writes, and may create the store (`negotiation open`, `keys create`,
    /// `keys login-link`, `serve`, `demo --db`); a new SQLite file is
    /// announced on standard error with its absolute path.
    Create,
    /// Writes to a throwaway store it makes itself (the demo without
    /// `--db`): nothing to announce, since nothing is left behind.
    Scratch,
    /// Writes to a store that must exist (`turn`, `resume`).
    Write,
    /// Only reads (`show`, `list`, `messages`): nothing is created or written.
    Read,
}

impl Database {
    /// The store `flag` names, else `INDEX_DB`, else `index.db` here; an
    /// SQLite file with `synchronous` durability.
    pub(crate) fn select(flag: Option<String>, synchronous: Synchronous) -> Result<Self, Failure> {
        let named = match flag {
            Some(flag) => Some(("--db", flag)),
            None => match std::env::var("INDEX_DB") {
                Ok(value) => Some(("INDEX_DB", value)),
                Err(std::env::VarError::NotPresent) => None,
                Err(std::env::VarError::NotUnicode(_)) => {
                    return Err(Failure::Usage("INDEX_DB is not valid UTF-8".to_owned()));
                }
            },
        };
        match named {
            None => Ok(Database::Sqlite(PathBuf::from("index.db"), synchronous)),
            Some((source, value)) => Self::parse(&value, synchronous)
                .map_err(|why| Failure::Usage(format!("{source}: {why}"))),
        }
    }

    /// Reads one `--db` value; an SQLite file gets `synchronous`.
    fn parse(value: &str, synchronous: Synchronous) -> Result<Self, String> {
        if value.trim().is_empty() {
            return Err("the store is empty; give a file path or a postgres:// URL".to_owned());
        }
        let Some((scheme, rest)) = value
            .split_once("://")
            .filter(|(scheme, _)| is_scheme(scheme))
        else {
            return Ok(Database::Sqlite(PathBuf::from(value), synchronous));
        };
        match scheme.to_ascii_lowercase().as_str() {
            "postgres" | "postgresql" => {
                if value.chars().any(char::is_whitespace) {
                    return Err(
                        "a PostgreSQL URL cannot contain spaces (percent-encode them)".to_owned(),
                    );
                }
                Ok(Database::Postgres(value.to_owned()))
            }
            "sqlite" if !rest.is_empty() => Ok(Database::Sqlite(PathBuf::from(rest), synchronous)),
            "sqlite" => Err("sqlite:// needs a file path after it".to_owned()),
            _ => Err(format!(
                "unknown scheme {scheme}://; use a file path or {SCHEMES}"
            )),
        }
    }

    /// Where the store is, for people: a file's path, or a URL without its
    /// password.
    pub(crate) fn describe(&self) -> String {
        match self {
            Database::Sqlite(path, _) => path.display().to_string(),
            Database::Postgres(url) => match url.split_once("://").and_then(|(scheme, rest)| {
                let (credentials, host) = rest.split_once('@')?;
                let user = credentials.split(':').next().unwrap_or_default();
                Some(format!("{scheme}://{user}@{host}"))
            }) {
                Some(safe) => safe,
                None => url.clone(),
            },
        }
    }

    /// Opens the store for `purpose`.
    pub(crate) async fn open(&self, purpose: Use) -> Result<Box<dyn HostStore>, Failure> {
        Ok(match self {
            Database::Postgres(url) => Box::new(PostgresStore::connect(url).await?),
            Database::Sqlite(path, synchronous) => {
                let access = match purpose {
                    Use::Create | Use::Scratch => Access::Create,
                    Use::Write => Access::Existing,
                    Use::Read => Access::ReadOnly,
                };
                let options = SqliteOptions::default()
                    .with_access(access)
                    .with_synchronous(*synchronous);
                let new = purpose == Use::Create && is_missing(path);
                let store = SqliteStore::open_with(path, options).await?;
                if new {
                    // Always, `--json` too: standard error is for people,
                    // and this is the one hint that a relative path or an
                    // unset INDEX_DB pointed somewhere unintended.
                    anstream::eprintln!(
                        "{}",
                        styled(
                            NOTE,
                            format!(
                                "created a new store at {} (choose another with --db or INDEX_DB)",
                                absolute(path).display()
                            )
                        )
                    );
                }
                Box::new(store)
            }
        })
    }
}

/// Whether nothing is at `path` yet, so opening it to write makes a store.
/// A path that cannot be looked at counts as present: opening it then fails
/// with the real reason.
fn is_missing(path: &Path) -> bool {
    matches!(std::fs::metadata(path), Err(err) if err.kind() == std::io::ErrorKind::NotFound)
}

/// `path` as people should read it in the notice: absolute, without `..`
/// or symbolic links, so it names the file whatever directory they are in.
fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// Whether `text` is a URL scheme (RFC 3986: a letter, then letters,
/// digits, `+`, `-` or `.`), so `C://x` or `./a://b` stay file paths only
/// when they could not be one.
fn is_scheme(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// `store check`: SQLite's integrity check and the store's invariants,
/// read-only, and who else has the file open (a live store is checked as
/// it stood for one moment).
pub(crate) async fn check(database: Database, out: crate::output::Out) -> Result<(), Failure> {
    let Database::Sqlite(path, _) = &database else {
        return Err(Failure::Usage(
            "store check reads SQLite files; PostgreSQL checks its own pages (amcheck)".to_owned(),
        ));
    };
    let options = SqliteOptions::default().with_access(Access::ReadOnly);
    let store = SqliteStore::open_with(path, options).await?;
    let problems = store.check().await?;
    let others = store.other_processes();
    out.json(&serde_json::json!({
        "ok": problems.is_empty(),
        "problems": problems,
        "openElsewhere": others,
    }));
    if problems.is_empty() {
        out.line(format!("ok    {}", path.display()));
    }
    for problem in &problems {
        out.line(format!("FAIL  {problem}"));
    }
    match others.as_deref() {
        Some([]) => {}
        Some(pids) => {
            let pids: Vec<String> = pids.iter().map(u32::to_string).collect();
            out.line(format!(
                "note  also open in process {}: this is the store as it stood during the check; their commits since are not covered",
                pids.join(", ")
            ));
        }
        None => out.line(
            "note  this system cannot say whether another process has the store open; if a host is running on it, its commits after the check are not covered",
        ),
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(Failure::Reported(Box::new(Failure::Storage(
        index_negotiation_store::StoreError::Corrupt(format!(
            "{} problem(s) in {}",
            problems.len(),
            path.display()
        )),
    ))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_name_a_file_a_url_or_a_usage_error() {
        assert_eq!(
            Database::parse("index.db", Synchronous::Normal),
            Ok(Database::Sqlite("index.db".into(), Synchronous::Normal))
        );
        assert_eq!(
            Database::parse("sqlite://a/b.db", Synchronous::Normal),
            Ok(Database::Sqlite("a/b.db".into(), Synchronous::Normal))
        );
        assert_eq!(
            Database::parse("sqlite:///tmp/b.db", Synchronous::Normal),
            Ok(Database::Sqlite("/tmp/b.db".into(), Synchronous::Normal))
        );
        assert_eq!(
            Database::parse("postgres://u@localhost/db", Synchronous::Normal),
            Ok(Database::Postgres("postgres://u@localhost/db".into()))
        );
        for bad in ["", "  ", "mysql://x/y", "sqlite://", "postgres://bad url/x"] {
            assert!(
                Database::parse(bad, Synchronous::Normal).is_err(),
                "{bad:?}"
            );
        }
        assert!(
            Database::parse("mysql://x", Synchronous::Normal)
                .unwrap_err()
                .contains("postgres://")
        );
    }
}
