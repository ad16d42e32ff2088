//! The PostgreSQL backend for the negotiation store, for hosts where many
//! application servers share one database.
//!
//! A turn commit is one transaction of four round trips, every statement
//! prepared once per connection: the negotiation's row locked and read with
//! `SELECT … FOR UPDATE` (both seats' eligibility in the same read:
//! eligibility changes lock this row first, so none can slip in), its
//! turns read, the rules asked once, and the turn inserted at its index
//! together with the negotiation's update in one statement; then `COMMIT`.
//! The `(negotiation, turn_index)` primary key is the backstop: a unique
//! violation is the `raced` rejection. A resume takes the same lock.
//! Opening is serialised per opportunity by an advisory lock and a unique
//! key, so two hosts opening the same one at once create one negotiation.
//!
//! **Retries and `decide`.** A serialisation failure, a deadlock, or a
//! pooled connection the server closed (connections are recycled without
//! a round trip) that
//! happens before `decide` has run is retried, a bounded number of times
//! with jitter; `decide` has not been called, so nothing is lost. Once
//! `decide` has run, any failure is reported as a [`StoreError`] with
//! nothing applied, and never retried: `decide` runs at most once per call,
//! and exactly once for every applied commit.
//!
//! ```no_run
//! # async fn example() -> Result<(), index_negotiation_store::StoreError> {
//! use index_negotiation_store::Negotiations;
//! use index_negotiation_store_postgres::PostgresStore;
//!
//! let store = PostgresStore::connect("postgres://app@db.internal/index").await?;
//! let negotiations = Negotiations::new(store);
//! # Ok(()) }
//! ```
//!
//! | module | holds |
//! |---|---|
//! | `schema` | migrations under an advisory lock and a version table |
//! | `store` | each operation as one transaction, the row `FOR UPDATE` |
//! | `rows` | PostgreSQL's rows handed to the row kit, and a listing's page in SQL |
//! | `keys` | the API keys |
//! | `audit` | reading the audit record (the commits in `store` append to it) |
//! | `webhooks` | webhook endpoints, and the outbox each commit queues its event in, claimed `FOR UPDATE SKIP LOCKED` |
//! | `listen` | the `LISTEN` feeds of negotiation and key changes |
//! | `host_state` | what hosts share between requests: signing keys, spent tokens, tasks |
//! | `interactions` | the interactions a host provides, each response command decided under the person's advisory lock |
//! | `error` | PostgreSQL's errors as the port's: `ServerError`, and which failures are worth a retry |

mod audit;
mod error;
mod host_state;
mod interactions;
mod keys;
mod listen;
mod rows;
mod schema;
mod store;
mod webhooks;

pub use error::ServerError;

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::NoTls;

use index_negotiation_store::StoreError;

pub use schema::SCHEMA_VERSION as CURRENT_SCHEMA_VERSION;

/// Settings for [`PostgresStore::connect_with`]: the defaults, changed with
/// the `with_*` methods (new settings may come in any minor release).
///
/// ```
/// use std::time::Duration;
/// use index_negotiation_store_postgres::PostgresOptions;
/// let options = PostgresOptions::default()
///     .with_schema("negotiations")
///     .with_max_connections(32)
///     .with_statement_timeout(Duration::from_secs(5));
/// assert_eq!(options.schema.as_deref(), Some("negotiations"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PostgresOptions {
    /// The schema to keep the tables in (created if missing); `None` uses
    /// the connection's default search path.
    pub schema: Option<String>,
    /// The most connections the pool opens.
    pub max_connections: usize,
    /// A per-statement timeout; a statement that runs longer fails (with
    /// nothing applied).
    pub statement_timeout: Option<Duration>,
    /// How many times a commit that hit a serialisation failure or deadlock
    /// before deciding is retried.
    pub max_retries: u32,
    /// Encrypt connections with TLS, verifying the server against the
    /// webpki roots (needs the `tls` feature; pair with `sslmode=require`
    /// in the URL to refuse plain connections).
    pub tls: bool,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        PostgresOptions {
            schema: None,
            max_connections: 16,
            statement_timeout: None,
            max_retries: 5,
            tls: false,
        }
    }
}

impl PostgresOptions {
    /// Keeping the tables in `schema` (created if missing).
    #[must_use]
    pub fn with_schema(mut self, schema: impl Into<String>) -> Self {
        self.schema = Some(schema.into());
        self
    }

    /// Opening at most `max_connections` connections.
    #[must_use]
    pub fn with_max_connections(mut self, max_connections: usize) -> Self {
        self.max_connections = max_connections;
        self
    }

    /// Failing any statement that runs longer than `timeout`.
    #[must_use]
    pub fn with_statement_timeout(mut self, timeout: Duration) -> Self {
        self.statement_timeout = Some(timeout);
        self
    }

    /// Retrying a commit that hit a serialisation failure or a deadlock up
    /// to `max_retries` times.
    #[must_use]
    pub fn with_max_retries(mut self, max_retries: u32) -> Self {
        self.max_retries = max_retries;
        self
    }

    /// Connecting over TLS (needs the `tls` feature).
    #[must_use]
    pub fn with_tls(mut self, tls: bool) -> Self {
        self.tls = tls;
        self
    }
}

/// How connections are made: in the clear, or over TLS. Kept so that the
/// pool and the change listener connect the same way.
#[derive(Clone)]
enum Connector {
    Plain,
    #[cfg(feature = "tls")]
    Tls(tokio_postgres_rustls::MakeRustlsConnect),
}

impl Connector {
    #[cfg(feature = "tls")]
    fn tls() -> Result<Self, StoreError> {
        let roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        Self::tls_with_roots(roots)
    }

    #[cfg(feature = "tls")]
    fn tls_with_roots(roots: rustls::RootCertStore) -> Result<Self, StoreError> {
        let tls = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(StoreError::backend)?
        .with_root_certificates(roots)
        .with_no_client_auth();
        Ok(Connector::Tls(
            tokio_postgres_rustls::MakeRustlsConnect::new(tls),
        ))
    }

    #[cfg(not(feature = "tls"))]
    fn tls() -> Result<Self, StoreError> {
        Err(StoreError::InvalidRequest(
            "TLS was requested, but this build lacks the `tls` feature".to_owned(),
        ))
    }

    fn manager(&self, config: tokio_postgres::Config, manager_config: ManagerConfig) -> Manager {
        match self {
            Connector::Plain => Manager::from_config(config, NoTls, manager_config),
            #[cfg(feature = "tls")]
            Connector::Tls(tls) => Manager::from_config(config, tls.clone(), manager_config),
        }
    }
}

/// A negotiation store in PostgreSQL. Cheap to clone; clones share the pool.
#[derive(Clone)]
pub struct PostgresStore {
    pool: Pool,
    max_retries: u32,
    config: tokio_postgres::Config,
    connector: Connector,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("pool", &self.pool.status())
            .finish()
    }
}

impl PostgresStore {
    /// Connects to the database at `url` (a `postgres://` URL or key-value
    /// connection string) with default options, migrating its schema.
    ///
    /// # Errors
    ///
    /// [`StoreError::NewerSchema`] for a database written by a newer
    /// version; [`StoreError::Backend`] when the database cannot be reached.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with(url, PostgresOptions::default()).await
    }

    /// Connects with `options`.
    ///
    /// # Errors
    ///
    /// As [`PostgresStore::connect`], and [`StoreError::InvalidRequest`]
    /// for a malformed URL or schema name.
    pub async fn connect_with(url: &str, options: PostgresOptions) -> Result<Self, StoreError> {
        let config = Self::config(url, &options)?;
        let connector = if options.tls {
            Connector::tls()?
        } else {
            Connector::Plain
        };
        Self::build(config, connector, &options).await
    }

    /// The connection settings for `url` with `options` applied.
    fn config(url: &str, options: &PostgresOptions) -> Result<tokio_postgres::Config, StoreError> {
        let mut config: tokio_postgres::Config = url.parse().map_err(|err| {
            StoreError::InvalidRequest(format!("not a PostgreSQL connection string: {err}"))
        })?;
        let mut settings = Vec::new();
        if let Some(schema) = &options.schema {
            if schema.is_empty()
                || !schema
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            {
                return Err(StoreError::InvalidRequest(format!(
                    "schema names are lowercase letters, digits and _, not {schema:?}"
                )));
            }
            settings.push(format!("-c search_path={schema}"));
        }
        if let Some(timeout) = options.statement_timeout {
            settings.push(format!(
                "-c statement_timeout={}",
                timeout.as_millis().max(1)
            ));
        }
        if !settings.is_empty() {
            config.options(settings.join(" "));
        }
        Ok(config)
    }

    /// Connects over TLS, trusting only the certificates in `roots` (a
    /// private certificate authority, say) instead of the webpki roots.
    ///
    /// # Errors
    ///
    /// As [`PostgresStore::connect_with`]; a server whose certificate
    /// `roots` does not vouch for is refused with [`StoreError::Backend`].
    #[cfg(feature = "tls")]
    pub async fn connect_with_roots(
        url: &str,
        options: PostgresOptions,
        roots: rustls::RootCertStore,
    ) -> Result<Self, StoreError> {
        let config = Self::config(url, &options)?;
        Self::build(config, Connector::tls_with_roots(roots)?, &options).await
    }

    async fn build(
        config: tokio_postgres::Config,
        connector: Connector,
        options: &PostgresOptions,
    ) -> Result<Self, StoreError> {
        // Fast recycling hands a connection back out without a round trip
        // (it checks only that the driver has not seen it close). A pooled
        // connection the server dropped fails on its first statement, before
        // `decide`, which is retried on a fresh connection: what verified
        // recycling bought, without a query per checkout.
        let manager_config = ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        };
        let pool = Pool::builder(connector.manager(config.clone(), manager_config))
            .max_size(options.max_connections.max(1))
            .build()
            .map_err(StoreError::backend)?;
        // The schema is created over the pool, so over TLS when TLS was
        // asked for; its connections already name it on their search path,
        // which PostgreSQL allows before it exists.
        if let Some(schema) = &options.schema {
            schema::create_schema(&pool, schema).await?;
        }
        schema::migrate(&pool).await?;
        Ok(PostgresStore {
            pool,
            max_retries: options.max_retries,
            config,
            connector,
        })
    }
}
