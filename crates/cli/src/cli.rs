//! The command line, as clap reads it: every command with its help text
//! and an example.

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{ArgGroup, Args, CommandFactory, Parser, Subcommand, ValueEnum};
use clap_complete::ArgValueCompleter;

use index_js::WireEnum;
use index_negotiation::NegotiationAction;
use index_negotiation_store::{
    AuditStep, CloseReason, EventType, IntentId, ListCursor, OpportunityId, StateFilter, UnixTime,
    UserId,
};

/// The command line's definition, for completions and the man page.
pub fn command() -> clap::Command {
    Cli::command()
}

/// Read and write Index question messages, and run negotiations on a
/// store: the embedded SQLite file by default, or PostgreSQL.
#[derive(Debug, Parser)]
#[command(name = "index", version, about, long_about = None, after_help = EXAMPLES)]
pub(crate) struct Cli {
    /// Print machine-readable JSON instead of text (docs/cli-json.md has
    /// every shape); a failure prints {"error": {"code", "message"}}.
    #[arg(long, global = true)]
    pub(crate) json: bool,

    /// How durable each commit to an SQLite store is: `normal` survives
    /// a crash of the process, `full` also a power loss or an operating
    /// system crash, at a quarter to a half of the commit rate.
    #[arg(long, global = true, value_enum, default_value_t = Durability::Normal)]
    pub(crate) sqlite_sync: Durability,

    #[command(subcommand)]
    pub(crate) command: Command,
}

const EXAMPLES: &str = "Examples:
  index demo
  index question-block parse message.txt
  index negotiation open --initiator dana --initiator-intent hire --responder sam --responder-intent join
  index negotiation turn <ID> --as dana --action propose --message 'Intro call next week?'";

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Read, write and check question messages.
    #[command(subcommand, name = "question-block")]
    QuestionBlock(QuestionBlockCommand),
    /// Run negotiations on a store (SQLite by default, or `--db
    /// postgres://…`).
    Negotiation(NegotiationArgs),
    /// Walk through a whole negotiation, step by step, on a fresh store
    /// (text only: `--json` is refused).
    ///
    /// A second negotiation is then left parked on a question for dana:
    /// with `--db`, `index serve` on that store shows it in her inbox.
    #[command(after_help = "Example:\n  index demo\n  index demo --db demo.db")]
    Demo(DemoArgs),
    /// Run the negotiation host: the REST API, MCP (streamable HTTP at
    /// /mcp) and the inbox (a person's web page, at /inbox) on one
    /// listener, or MCP over stdio for one key.
    ///
    /// A browser that opens the host's address is sent to /inbox. A person
    /// signs in there with their key or with the link `index keys
    /// login-link --user NAME` prints.
    #[command(
        after_help = "Examples:\n  index serve --listen 127.0.0.1:8080\n  index serve --mcp-stdio --key-file ~/.config/index/dana.key\n  index serve --db postgres://index@db.internal/index"
    )]
    Serve(ServeArgs),
    /// Create, list and revoke the API keys callers of `index serve` use.
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Show the audit record: each step taken on the store (a negotiation
    /// opened, a turn, a park, an answer, a resume, a close; a key made or
    /// revoked, a sign-in or sign-out, a refused key; an interaction
    /// resolved), for whom, by whom (how they signed in, their key's id,
    /// their request's id) and when; oldest first. `--json` writes JSON
    /// Lines, one entry a line.
    #[command(
        after_help = "Examples:\n  index audit --user dana\n  index audit --negotiation <ID> --json\n  index audit --step answered --since 24h"
    )]
    Audit(AuditArgs),
    /// Register, list and remove webhook endpoints, rotate their secrets
    /// and replay their deliveries. A running `index serve` on the store
    /// delivers: each event signed the Standard Webhooks way, retried
    /// for about a day, then the endpoint disabled with the reason shown
    /// here.
    #[command(subcommand)]
    Webhooks(WebhooksCommand),
    /// Look after a store.
    #[command(subcommand)]
    Store(StoreCommand),
    /// Print a shell completion script. For negotiation ids too (those of
    /// the person `--as` names, read from the store), let the shell ask
    /// `index` as it completes: `source <(COMPLETE=bash index)`.
    #[command(
        after_help = "Example:\n  index completions bash > ~/.local/share/bash-completion/completions/index\n  index completions zsh > ~/.zfunc/_index\n  echo 'source <(COMPLETE=bash index)' >> ~/.bashrc"
    )]
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Install the man pages: write a page for every command (index.1,
    /// index-serve.1, index-negotiation-turn.1, …) into a directory,
    /// creating it, and print where they went.
    #[command(
        after_help = "Example:\n  index man\n  man index-negotiation-turn\n  index man --dir /usr/local/share/man/man1"
    )]
    Man {
        /// Where to write the pages [default: $XDG_DATA_HOME/man/man1, else
        /// ~/.local/share/man/man1: the first that can be written].
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum QuestionBlockCommand {
    /// Print a question message's prose and block as JSON; exit 1, saying
    /// why, when the body is not a question message.
    #[command(
        after_help = "Example:\n  index question-block parse message.txt\n  cat message.txt | index question-block parse -"
    )]
    Parse {
        /// The message body; `-` or nothing reads standard input.
        file: Option<PathBuf>,
    },
    /// Write a question message from prose and a block, exactly (no
    /// newline is added); exit 2, listing every problem, when the block is
    /// invalid.
    #[command(
        after_help = "Example:\n  index question-block serialize --prose-file prose.txt --block-file block.json\n  index question-block serialize --prose 'One thing first:' --block '{\"version\":1,\"questions\":[…]}'",
        group(ArgGroup::new("prose_source").required(true).args(["prose", "prose_file"])),
        group(ArgGroup::new("block_source").required(true).args(["block", "block_file"])),
    )]
    Serialize {
        /// The prose, as text.
        #[arg(long, value_name = "TEXT")]
        prose: Option<String>,
        /// The prose, read from a file (`-` reads standard input).
        #[arg(long, value_name = "PATH")]
        prose_file: Option<PathBuf>,
        /// The block, as JSON text.
        #[arg(long, value_name = "JSON")]
        block: Option<String>,
        /// The block, read from a JSON file (`-` reads standard input).
        #[arg(long, value_name = "PATH")]
        block_file: Option<PathBuf>,
    },
    /// Show a question message as its person sees it: the prose, then the
    /// numbered questions (never their refs). A body that is not a question
    /// message shows as its plain text.
    #[command(after_help = "Example:\n  index question-block render message.txt")]
    Render {
        /// The message body; `-` or nothing reads standard input.
        file: Option<PathBuf>,
    },
    /// Check that each file is a question message: one line per file, exit 1
    /// if any is not.
    #[command(after_help = "Example:\n  index question-block check messages/*.txt")]
    Check {
        /// The message bodies.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub(crate) struct NegotiationArgs {
    /// The store: an SQLite file (`sqlite://` in front is allowed) or a
    /// `postgres://` URL [default: $INDEX_DB, else ./index.db]. Only `open`
    /// creates a missing SQLite file; reads never write to it.
    #[arg(long, global = true, value_name = "PATH|URL")]
    pub(crate) db: Option<String>,

    #[command(subcommand)]
    pub(crate) command: NegotiationCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum NegotiationCommand {
    /// Open a negotiation between two people's intents; the initiator moves first.
    #[command(
        after_help = "Example:\n  index negotiation open --initiator dana --initiator-intent hire --responder sam --responder-intent join"
    )]
    Open(OpenArgs),
    /// Show a negotiation as one seat sees it: the log, whose turn it is and
    /// what that seat may do. Turns are numbered from 1 in text; in JSON,
    /// `turnIndex` counts from 0 as the protocol does.
    #[command(after_help = "Example:\n  index negotiation show <ID> --as dana --guidance")]
    Show {
        /// The negotiation (its opportunity id).
        #[arg(add = ArgValueCompleter::new(crate::complete::negotiation_ids))]
        id: OpportunityId,
        /// The seat to look as.
        #[arg(long = "as", value_name = "USER")]
        user: UserId,
        /// Also print the guidance agents follow (in JSON too).
        #[arg(long)]
        guidance: bool,
    },
    /// Take a turn; a refusal exits 3 with its code and reason. Never retried.
    #[command(
        after_help = "Example:\n  index negotiation turn <ID> --as dana --action propose --message 'Intro call next week?'\n  echo 'Counter: what equity?' | index negotiation turn <ID> --as sam --action counter --message -"
    )]
    Turn {
        /// The negotiation.
        #[arg(add = ArgValueCompleter::new(crate::complete::negotiation_ids))]
        id: OpportunityId,
        /// The seat taking the turn.
        #[arg(long = "as", value_name = "USER")]
        user: UserId,
        /// What to do.
        #[arg(long, value_parser = wire::<NegotiationAction>())]
        action: NegotiationAction,
        /// What to say (`-` reads standard input). Stored trimmed, as the
        /// protocol does; 1 to 4000 UTF-16 code units.
        #[arg(long)]
        message: String,
    },
    /// Resume a negotiation paused between rounds: your seat takes the first
    /// turn of the next round.
    #[command(after_help = "Example:\n  index negotiation resume <ID> --as sam")]
    Resume {
        /// The negotiation.
        #[arg(add = ArgValueCompleter::new(crate::complete::negotiation_ids))]
        id: OpportunityId,
        /// The seat resuming.
        #[arg(long = "as", value_name = "USER")]
        user: UserId,
    },
    /// Wait until it is a seat's move (or a round it may resume has ended),
    /// the negotiation settles, or it parks on a question; the store's
    /// change feed wakes the wait, so it costs nothing while nothing
    /// happens.
    #[command(
        after_help = "Exit status: 0 the seat may act (its turn, or a resume), 6 settled, 7 parked on a question, 8 timed out.\n\nExample:\n  index negotiation wait <ID> --as sam --timeout 300"
    )]
    Wait {
        /// The negotiation.
        #[arg(add = ArgValueCompleter::new(crate::complete::negotiation_ids))]
        id: OpportunityId,
        /// The seat waiting.
        #[arg(long = "as", value_name = "USER")]
        user: UserId,
        /// Give up after this many seconds.
        #[arg(long, value_name = "SECS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(0..=86_400))]
        timeout: u64,
    },
    /// List a person's negotiations, newest change first.
    #[command(after_help = "Example:\n  index negotiation list --as dana --state open")]
    List {
        /// The person.
        #[arg(long = "as", value_name = "USER")]
        user: UserId,
        /// Only those where this person's seat negotiates for this intent.
        #[arg(long)]
        intent_id: Option<IntentId>,
        /// Only open or only settled negotiations.
        #[arg(long, value_parser = wire::<StateFilter>())]
        state: Option<StateFilter>,
        /// Only those with this person in the other seat.
        #[arg(long, value_name = "USER")]
        with: Option<UserId>,
        /// At most this many, newest change first; the rest follow with
        /// `--cursor`.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        limit: Option<u32>,
        /// Start after this cursor (the one a `--limit` listing printed).
        #[arg(long, value_name = "CURSOR", requires = "limit")]
        cursor: Option<ListCursor>,
    },
    /// Park a stalled negotiation on one question for your person: classify
    /// the end, ask the model for the gap, check it with the safety gate,
    /// and print the question message to send them.
    #[command(
        after_help = "Examples:\n  INDEX_MODEL_BASE_URL=http://127.0.0.1:8080/v1 INDEX_MODEL=qwen2.5 index negotiation park <ID> --as dana > question.txt\n  index negotiation park <ID> --as dana --model scripted"
    )]
    Park(ParkArgs),
    /// Deliver a person's answers to a question message: each question's
    /// negotiations (its ref, then alsoUnblocks) get the answer on record
    /// and resume, the person's seat to move, each exactly once.
    #[command(
        after_help = "Example:\n  index negotiation answer --as dana --message question.txt --answer 1='1% to 3%'"
    )]
    Answer {
        /// The person answering.
        #[arg(long = "as", value_name = "USER")]
        user: UserId,
        /// The question message (`-` or nothing reads standard input).
        #[arg(long, value_name = "FILE")]
        message: Option<PathBuf>,
        /// An answer, `N=TEXT` for question N (from 1); repeat for more.
        #[arg(long = "answer", value_name = "N=TEXT", required = true, value_parser = parse_answer)]
        answers: Vec<(usize, String)>,
    },
    /// Close a negotiation from outside the rules: nobody may act or
    /// resume after.
    #[command(after_help = "Example:\n  index negotiation close <ID> --reason passed")]
    Close {
        /// The negotiation.
        #[arg(add = ArgValueCompleter::new(crate::complete::negotiation_ids))]
        id: OpportunityId,
        /// Why: a person passed, or it expired.
        #[arg(long, value_parser = wire::<CloseReason>())]
        reason: CloseReason,
    },
    /// Mark one seat's intent active or inactive (an inactive one blocks
    /// turns and resumes).
    #[command(after_help = "Example:\n  index negotiation eligibility <ID> --user sam --inactive")]
    Eligibility {
        /// The negotiation.
        #[arg(add = ArgValueCompleter::new(crate::complete::negotiation_ids))]
        id: OpportunityId,
        /// The seat.
        #[arg(long, value_name = "USER")]
        user: UserId,
        /// Active again.
        #[arg(
            long,
            conflicts_with = "inactive",
            required_unless_present = "inactive"
        )]
        active: bool,
        /// Paused or removed.
        #[arg(long)]
        inactive: bool,
    },
    /// Print the negotiation's message record, parks included.
    #[command(after_help = "Example:\n  index negotiation messages <ID>")]
    Messages {
        /// The negotiation.
        #[arg(add = ArgValueCompleter::new(crate::complete::negotiation_ids))]
        id: OpportunityId,
    },
}

#[derive(Debug, Args)]
pub(crate) struct OpenArgs {
    /// The person who opens and moves first.
    #[arg(long, value_parser = new_user_id)]
    pub(crate) initiator: UserId,
    /// The initiator's intent.
    #[arg(long, value_parser = new_intent_id)]
    pub(crate) initiator_intent: IntentId,
    /// The other person.
    #[arg(long, value_parser = new_user_id)]
    pub(crate) responder: UserId,
    /// The responder's intent.
    #[arg(long, value_parser = new_intent_id)]
    pub(crate) responder_intent: IntentId,
    /// The opportunity's id, a UUID; a new one is generated when absent.
    #[arg(long)]
    pub(crate) opportunity_id: Option<OpportunityId>,
}

#[derive(Debug, Args)]
pub(crate) struct DemoArgs {
    /// Keep the walk-through in this store (created if needed) instead
    /// of a temporary SQLite file.
    #[arg(long, value_name = "PATH|URL")]
    pub(crate) db: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The store [default: $INDEX_DB, else ./index.db]; created if missing.
    #[arg(long, value_name = "PATH|URL")]
    pub(crate) db: Option<String>,
    /// Where to listen for HTTP (port 0 picks a free one; the address is
    /// printed on standard error).
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "127.0.0.1:8080",
        conflicts_with = "mcp_stdio"
    )]
    pub(crate) listen: std::net::SocketAddr,
    /// A `Host` header MCP requests may carry, beyond the loopback names
    /// (repeat for more); needed when clients reach the host by name.
    #[arg(
        long = "allowed-host",
        value_name = "HOST",
        conflicts_with = "mcp_stdio"
    )]
    pub(crate) allowed_hosts: Vec<String>,
    /// Take access tokens (JWTs) of this OAuth issuer beside API keys: the
    /// host then describes itself as a protected resource of it
    /// (/.well-known/oauth-protected-resource), and a token must name
    /// --public-url's /mcp as its audience and carry the `agent` scope.
    #[arg(long, value_name = "URL", value_parser = issuer_url, conflicts_with = "mcp_stdio")]
    pub(crate) oauth_issuer: Option<String>,
    /// The token claim that names the person a token acts for: one the
    /// issuer assigns and a person cannot change (`email` is taken only
    /// with `email_verified`).
    #[arg(
        long,
        value_name = "CLAIM",
        default_value = "sub",
        requires = "oauth_issuer"
    )]
    pub(crate) oauth_user_claim: String,
    /// The URL clients reach this host at, when it is not http:// and the
    /// --listen address (behind a proxy, by name, over TLS): the issuer of
    /// the host's own authorization server, and (with /mcp) the resource
    /// tokens are for.
    #[arg(long, value_name = "URL", value_parser = http_url, conflicts_with = "mcp_stdio")]
    pub(crate) public_url: Option<String>,
    /// Let the host's own authorization server fetch a client's metadata
    /// document from a loopback or private address, or over plain http:
    /// for development and tests only.
    #[arg(long, conflicts_with_all = ["oauth_issuer", "mcp_stdio"])]
    pub(crate) oauth_allow_local_clients: bool,
    /// How long an access token of the host's own authorization server
    /// works, in seconds, before its client refreshes it.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 3600,
        value_parser = clap::value_parser!(u64).range(1..=86_400),
        conflicts_with_all = ["oauth_issuer", "mcp_stdio"]
    )]
    pub(crate) oauth_access_lifetime: u64,
    /// How long a shutdown (SIGINT, SIGTERM) waits for requests in flight
    /// before it closes the connections left, in seconds.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30,
        conflicts_with = "mcp_stdio"
    )]
    pub(crate) shutdown_grace: u64,
    /// The most connections served at once; more wait to be accepted.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 10_000,
        conflicts_with = "mcp_stdio"
    )]
    pub(crate) max_connections: usize,
    /// The most connections one client address holds at once (an IPv6
    /// address counts by its /64); behind a proxy every client shares the
    /// proxy's address, so raise it to --max-connections there.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 256,
        conflicts_with = "mcp_stdio"
    )]
    pub(crate) max_connections_per_address: usize,
    /// The most MCP sessions open at once; a new one closes the least
    /// recently used.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 2_048,
        conflicts_with = "mcp_stdio"
    )]
    pub(crate) max_mcp_sessions: usize,
    /// The most MCP sessions one key holds open; a new one closes the key's
    /// least recently used.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 32,
        conflicts_with = "mcp_stdio"
    )]
    pub(crate) max_mcp_sessions_per_key: usize,
    /// How long an MCP session may go unused before it is closed, in
    /// seconds.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 300,
        conflicts_with = "mcp_stdio"
    )]
    pub(crate) mcp_session_idle: u64,
    /// Deliver webhooks to loopback, private and link-local addresses too:
    /// for development and tests only (otherwise a person's endpoint could
    /// reach into the host's own network).
    #[arg(long, conflicts_with = "mcp_stdio")]
    pub(crate) webhooks_allow_private: bool,
    /// The waits before each retry of a failed webhook delivery,
    /// comma-separated; a failure after the last gives the delivery up and
    /// disables its endpoint [default: Standard Webhooks' schedule, 5s,
    /// 5m, 30m, 2h, 5h, 10h, 10h].
    #[arg(
        long,
        value_name = "DURATIONS",
        value_delimiter = ',',
        value_parser = humantime::parse_duration,
        conflicts_with = "mcp_stdio"
    )]
    pub(crate) webhook_retries: Vec<std::time::Duration>,
    /// How long one webhook delivery may take, in seconds.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 15,
        value_parser = clap::value_parser!(u64).range(1..=300),
        conflicts_with = "mcp_stdio"
    )]
    pub(crate) webhook_timeout: u64,
    /// Export traces to the OpenTelemetry collector at this base URL, over
    /// OTLP/HTTP (protobuf; the path /v1/traces is added) [default:
    /// $OTEL_EXPORTER_OTLP_ENDPOINT; without either, no traces].
    #[arg(long, value_name = "URL", value_parser = http_url)]
    pub(crate) otlp_endpoint: Option<String>,
    /// Speak MCP over standard input and output instead, as the key in
    /// --key-file.
    #[arg(long, requires = "key_file")]
    pub(crate) mcp_stdio: bool,
    /// A file holding the API key a stdio server acts as.
    #[arg(long, value_name = "PATH", requires = "mcp_stdio")]
    pub(crate) key_file: Option<PathBuf>,
    /// The model that authors park questions [default: the OpenAI-compatible
    /// server INDEX_MODEL_BASE_URL and INDEX_MODEL name, if set; else parks
    /// are refused].
    #[arg(long, value_enum)]
    pub(crate) model: Option<ModelChoice>,
    /// How long a parked question put to a person's MCP client as a form
    /// waits for their answer before it is left to the question message,
    /// in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = index_negotiation::DEFAULT_ASK_USER_WINDOW_MS / 1000)]
    pub(crate) ask_user_window: u64,
    /// How many times one negotiation may park, answered or not; read once
    /// at start [default: NEGOTIATION_ASK_ROUNDS_CAP if it is a positive
    /// integer, else 3].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) ask_rounds_cap: Option<u32>,
    #[command(flatten)]
    pub(crate) judge: JudgeArgs,
}

#[derive(Debug, Subcommand)]
pub(crate) enum KeysCommand {
    /// Make a key for a user and print it once; only its hash is stored.
    #[command(
        after_help = "Example:\n  index keys create --user dana --name \"dana's agent\" --expires-in 90d --output dana.key\n  index keys create --user host --host --output host.key"
    )]
    Create {
        /// The user the key acts as.
        #[arg(long, value_parser = new_user_id)]
        user: UserId,
        /// A host key, which may also open and close negotiations.
        #[arg(long)]
        host: bool,
        /// What the key is for, shown by `keys list` (at most 64 characters).
        #[arg(long)]
        name: Option<String>,
        /// How long the key works, as `90d`, `12h` or `30min`; after that
        /// requests with it get 401 `key_expired` [default: no expiry].
        #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
        expires_in: Option<std::time::Duration>,
        /// Write the key to this file, readable by its owner alone (mode
        /// 0600), instead of printing it; an existing file is refused.
        #[arg(long, value_name = "FILE")]
        output: Option<std::path::PathBuf>,
        /// With `--output`, replace a file that exists.
        #[arg(long, requires = "output")]
        force: bool,
        /// The store [default: $INDEX_DB, else ./index.db]; created if missing.
        #[arg(long, value_name = "PATH|URL")]
        db: Option<String>,
    },
    /// List the keys: id, name, user, scope, state, when made, expiring and
    /// last used (never the key).
    List {
        /// The store [default: $INDEX_DB, else ./index.db].
        #[arg(long, value_name = "PATH|URL")]
        db: Option<String>,
    },
    /// Say whose a key is, what it may do and whether it still works; exit
    /// 1 when it does not.
    #[command(after_help = "Example:\n  index keys whoami --key-file dana.key")]
    Whoami {
        /// The file holding the key, as `keys create --output` wrote it
        /// (`-` for standard input).
        #[arg(long, value_name = "FILE")]
        key_file: std::path::PathBuf,
        /// The store [default: $INDEX_DB, else ./index.db].
        #[arg(long, value_name = "PATH|URL")]
        db: Option<String>,
    },
    /// Print a link that signs a person into the inbox of `index serve`
    /// once, without pasting a key; it stops working when used or when it
    /// expires.
    #[command(
        name = "login-link",
        after_help = "Example:\n  index keys login-link --user dana --base http://127.0.0.1:8080"
    )]
    LoginLink {
        /// The person it signs in.
        #[arg(long, value_parser = new_user_id)]
        user: UserId,
        /// Where `index serve` is reached, as the person's browser reaches it.
        #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8080")]
        base: String,
        /// How long the link works, as `10min` or `1h` (a day at most).
        #[arg(long, value_name = "DURATION", default_value = "10min", value_parser = humantime::parse_duration)]
        expires_in: std::time::Duration,
        /// The store [default: $INDEX_DB, else ./index.db]; created if missing.
        #[arg(long, value_name = "PATH|URL")]
        db: Option<String>,
    },
    /// Rotate the key the hosts of a store sign their tokens with (an MCP
    /// client's `requestState`): every host signs with the new key within
    /// a minute, and tokens signed with the old one hold for the overlap.
    #[command(
        name = "rotate-signing-key",
        after_help = "Example:\n  index keys rotate-signing-key --overlap 1h --db postgres://index@db/index"
    )]
    RotateSigningKey {
        /// How long tokens signed with the keys it replaces still hold, as
        /// `1h` or `30min` (two minutes at least, so that every host has
        /// read the new key).
        #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = humantime::parse_duration)]
        overlap: std::time::Duration,
        /// The store [default: $INDEX_DB, else ./index.db].
        #[arg(long, value_name = "PATH|URL")]
        db: Option<String>,
    },
    /// Revoke a key by its id; requests with it get 401 from then on.
    #[command(after_help = "Example:\n  index keys revoke 3f9a1c2b7d10")]
    Revoke {
        /// The key's id, as `keys list` shows it.
        id: String,
        /// The store [default: $INDEX_DB, else ./index.db].
        #[arg(long, value_name = "PATH|URL")]
        db: Option<String>,
    },
}

/// `--sqlite-sync`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Durability {
    Normal,
    Full,
}

impl From<Durability> for index_negotiation_store_sqlite::Synchronous {
    fn from(durability: Durability) -> Self {
        match durability {
            Durability::Normal => index_negotiation_store_sqlite::Synchronous::Normal,
            Durability::Full => index_negotiation_store_sqlite::Synchronous::Full,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct ParkArgs {
    /// The negotiation.
    #[arg(add = ArgValueCompleter::new(crate::complete::negotiation_ids))]
    pub(crate) id: OpportunityId,
    /// The seat whose person is asked.
    #[arg(long = "as", value_name = "USER")]
    pub(crate) user: UserId,
    /// The model: an OpenAI-compatible server named by INDEX_MODEL_BASE_URL,
    /// INDEX_MODEL and INDEX_MODEL_API_KEY, or the scripted stand-in the
    /// demo uses.
    #[arg(long, value_enum, default_value_t = ModelChoice::Openai)]
    pub(crate) model: ModelChoice,
    /// The person's name, as the model addresses them [default: the user id].
    #[arg(long)]
    pub(crate) name: Option<String>,
    /// What the person is looking for, in a few words [default: the intent id].
    #[arg(long, value_name = "TEXT")]
    pub(crate) signal_title: Option<String>,
    /// What the person is looking for [default: the intent id].
    #[arg(long, value_name = "TEXT")]
    pub(crate) signal: Option<String>,
    /// Why the pair was matched; the question may not echo it.
    #[arg(long, value_name = "TEXT")]
    pub(crate) seed_reasoning: Option<String>,
    /// The other seat's name; neither the question nor the message around
    /// it may contain it [default: its user id].
    #[arg(long, value_name = "NAME")]
    pub(crate) counterparty_name: Option<String>,
    /// The network the pair met in, for the park's record.
    #[arg(long, default_value = "local")]
    pub(crate) network: String,
    /// How many times one negotiation may park, answered or not [default:
    /// NEGOTIATION_ASK_ROUNDS_CAP if it is a positive integer, else 3].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) ask_rounds_cap: Option<u32>,
    #[command(flatten)]
    pub(crate) judge: JudgeArgs,
}

/// The question judge: a model's second opinion behind the gate's rules.
#[derive(Debug, Default, Args)]
pub(crate) struct JudgeArgs {
    /// Ask the model for a second opinion on each question the gate's rules
    /// pass, before it parks: one more model call per park (off by
    /// default).
    #[arg(long)]
    pub(crate) gate_judge: bool,
    /// When the judge's model fails, times out or answers out of shape:
    /// refuse the question (closed) or let the rules' verdict stand (open).
    #[arg(long, value_enum, value_name = "POLICY", default_value_t = JudgeFailure::Closed, requires = "gate_judge")]
    pub(crate) gate_judge_on_failure: JudgeFailure,
}

/// `--gate-judge-on-failure`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum JudgeFailure {
    /// Refuse the question: nothing is shown that was not judged.
    #[default]
    Closed,
    /// Let the question through on the rules' word.
    Open,
}

impl From<JudgeFailure> for index_stall_gap::JudgeFailurePolicy {
    fn from(failure: JudgeFailure) -> Self {
        match failure {
            JudgeFailure::Closed => index_stall_gap::JudgeFailurePolicy::Closed,
            JudgeFailure::Open => index_stall_gap::JudgeFailurePolicy::Open,
        }
    }
}

/// `--model`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ModelChoice {
    /// An OpenAI-compatible chat-completions server, from the environment.
    Openai,
    /// A scripted stand-in with one canned question (for demos and tests).
    Scripted,
}

#[derive(Debug, Subcommand)]
pub(crate) enum StoreCommand {
    /// Check an SQLite store, read-only: SQLite's own integrity check, then
    /// every table against each rule its readers rely on: every column
    /// holding what the store writes there, every negotiation's row, turns
    /// and message record, its log replayed through the rules, rows that
    /// belong to no negotiation, and every API key; exit 4 when anything is
    /// wrong, listing it. Names the other processes that have the store
    /// open, whose later commits the check does not cover.
    #[command(after_help = "Example:\n  index store check --db index.db")]
    Check {
        /// The store [default: $INDEX_DB, else ./index.db].
        #[arg(long, value_name = "PATH")]
        db: Option<String>,
    },
}

/// `index webhooks`' subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum WebhooksCommand {
    /// Register an endpoint and print its id and its `whsec_` secret, shown
    /// only this once: a person's (their negotiations' events), or with
    /// `--host` the operator's (every negotiation's).
    #[command(
        after_help = "Examples:\n  index webhooks add --url https://hooks.example/index --user dana\n  index webhooks add --url https://ops.example/index --host --events negotiation.parked,negotiation.settled --json"
    )]
    Add {
        /// Where deliveries are posted (http or https).
        #[arg(long)]
        url: String,
        /// The person whose negotiations it hears of.
        #[arg(long, required_unless_present = "host", conflicts_with = "host")]
        user: Option<UserId>,
        /// An endpoint of the operator's, which hears of every negotiation.
        #[arg(long)]
        host: bool,
        /// Only these event types, comma-separated [default: every type]:
        /// negotiation.opened, negotiation.turn_taken,
        /// negotiation.round_ended, negotiation.settled,
        /// negotiation.parked, negotiation.answered, negotiation.resumed,
        /// negotiation.closed, interaction.requested, interaction.resolved.
        #[arg(long, value_delimiter = ',', value_parser = wire::<EventType>())]
        events: Vec<EventType>,
        /// The store [default: $INDEX_DB, else ./index.db]; created if missing.
        #[arg(long, value_name = "PATH|URL")]
        db: Option<String>,
    },
    /// List the endpoints: id, person, URL, event types, and whether
    /// deliveries were given up (with the reason).
    List {
        /// The store [default: $INDEX_DB, else ./index.db].
        #[arg(long, value_name = "PATH|URL")]
        db: Option<String>,
    },
    /// Remove an endpoint and the deliveries waiting for it.
    Remove {
        /// The endpoint's id (wh_…).
        id: String,
        /// The store [default: $INDEX_DB, else ./index.db].
        #[arg(long, value_name = "PATH|URL")]
        db: Option<String>,
    },
    /// Give an endpoint a new secret and print it once; the old one signs
    /// beside it for a day, so the receiver can move over.
    RotateSecret {
        /// The endpoint's id (wh_…).
        id: String,
        /// The store [default: $INDEX_DB, else ./index.db].
        #[arg(long, value_name = "PATH|URL")]
        db: Option<String>,
    },
    /// Send an endpoint's deliveries of a range of events again, under
    /// their own webhook-ids, enabling the endpoint if it was disabled.
    #[command(after_help = "Example:\n  index webhooks replay wh_3f9a… --since 6h")]
    Replay {
        /// The endpoint's id (wh_…).
        id: String,
        /// Events written at or after this moment: RFC 3339 or a duration
        /// back from now (6h) [default: the first].
        #[arg(long, value_name = "TIME", value_parser = moment)]
        since: Option<UnixTime>,
        /// Events written at or before this moment, as `--since` takes it
        /// [default: the last].
        #[arg(long, value_name = "TIME", value_parser = moment)]
        until: Option<UnixTime>,
        /// The store [default: $INDEX_DB, else ./index.db].
        #[arg(long, value_name = "PATH|URL")]
        db: Option<String>,
    },
}

/// `index audit`'s filters: every one given must match.
#[derive(Debug, Args)]
pub(crate) struct AuditArgs {
    /// Only steps taken for this person.
    #[arg(long)]
    pub(crate) user: Option<UserId>,
    /// Only steps taken on this negotiation.
    #[arg(long, value_name = "ID")]
    pub(crate) negotiation: Option<OpportunityId>,
    /// Only this step.
    #[arg(long, value_parser = wire::<AuditStep>())]
    pub(crate) step: Option<AuditStep>,
    /// Only entries written at or after this moment: RFC 3339
    /// (2026-12-01T09:00:00Z) or a duration back from now (24h, 7d).
    #[arg(long, value_name = "TIME", value_parser = moment)]
    pub(crate) since: Option<UnixTime>,
    /// Only entries written before this moment, as `--since` takes it.
    #[arg(long, value_name = "TIME", value_parser = moment)]
    pub(crate) until: Option<UnixTime>,
    /// At most this many entries, the oldest that match [default: all].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) limit: Option<u32>,
    /// The store [default: $INDEX_DB, else ./index.db].
    #[arg(long, value_name = "PATH|URL")]
    pub(crate) db: Option<String>,
}

/// A moment as `--since` and `--until` take it: RFC 3339
/// (`2026-12-01T09:00:00Z`), or a duration back from now (`24h`, `7d`).
fn moment(text: &str) -> Result<UnixTime, String> {
    if let Ok(at) = text.parse::<UnixTime>() {
        return Ok(at);
    }
    let ago = humantime::parse_duration(text).map_err(|_| {
        format!("{text:?} is neither a moment in RFC 3339 (2026-12-01T09:00:00Z) nor a duration back from now (24h)")
    })?;
    Ok(UnixTime(UnixTime::now().0.saturating_sub(ago.as_secs())))
}

/// A value from a closed set of wire names: clap offers exactly the
/// type's own names (in help, errors and completions) and hands back the
/// typed value, so each name is spelled once, by its type. Ids need no
/// such helper: they implement `FromStr`, which clap uses as it is (an id
/// stored for the first time is checked further, by `new_user_id`).
fn wire<T: WireEnum + Clone + Send + Sync>() -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(T::NAMES)
        .try_map(|name| T::from_wire(&name).ok_or("not one of the possible values"))
}

/// A user id that comes in here to be stored (a key's person, a seat):
/// as `UserId` reads it, and without a character that would forge or
/// hide text where it is printed, in the host's log lines and in tables
/// (see `index_host::names`).
fn new_user_id(text: &str) -> Result<UserId, String> {
    index_host::names::check_name("a user id", text).map_err(|err| err.to_string())?;
    text.parse()
        .map_err(|err: index_negotiation::InvalidId| err.to_string())
}

/// An http or https URL with no credentials, query or fragment, written
/// as the URL standard writes it (but for a trailing slash): kept as
/// written, since an issuer is compared with its tokens' `iss` byte for
/// byte, and a character the standard would escape has no place in it.
fn http_url(text: &str) -> Result<String, String> {
    let url = url::Url::parse(text).map_err(|err| format!("not a URL: {err}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err("an http:// or https:// URL with a host".to_owned());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("a URL without credentials".to_owned());
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("a URL without a query or fragment".to_owned());
    }
    let written = url.as_str();
    if written != text && written != format!("{text}/") {
        return Err(format!(
            "a URL written as the standard writes it ({written})"
        ));
    }
    Ok(text.to_owned())
}

/// An issuer's URL: as [`http_url`], and https, since its keys decide who
/// a token is (plain http only on a loopback address, for testing).
fn issuer_url(text: &str) -> Result<String, String> {
    let checked = http_url(text)?;
    if !index_host::loopback::is_secure_or_loopback(&checked) {
        return Err("an https:// URL (plain http only on a loopback address)".to_owned());
    }
    Ok(checked)
}

/// An intent id that comes in here to be stored, as [`new_user_id`].
fn new_intent_id(text: &str) -> Result<IntentId, String> {
    index_host::names::check_name("an intent id", text).map_err(|err| err.to_string())?;
    text.parse()
        .map_err(|err: index_negotiation::InvalidId| err.to_string())
}

/// One `--answer N=TEXT`, N counting questions from 1.
pub(crate) fn parse_answer(text: &str) -> Result<(usize, String), String> {
    let (number, answer) = text
        .split_once('=')
        .ok_or("an answer is N=TEXT, N the question's number")?;
    let number: usize = number
        .trim()
        .parse()
        .map_err(|_| format!("{number:?} is not a question number"))?;
    if number == 0 {
        return Err("questions are numbered from 1".to_owned());
    }
    // The rule every surface applies: trimmed as JavaScript trims, then
    // 1 to 4000 UTF-16 code units.
    let answer = index_negotiation::check_answer(answer).map_err(|rejection| {
        format!(
            "the answer to question {number}: {}",
            rejection.explanation()
        )
    })?;
    Ok((number - 1, answer.to_owned()))
}
