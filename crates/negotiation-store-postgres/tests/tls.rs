//! The backend over TLS, against the test server `.ci/postgres` starts with
//! `ssl = on` and a certificate from a throwaway authority: trusted when
//! that authority is given, refused under the default roots, and the schema
//! created over TLS too (it once went over a plain connection).

// Tests report failure by panicking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use index_negotiation::{NegotiationAction, NegotiationTurn};
use index_negotiation_store::Actor;
use index_negotiation_store::{Negotiations, OpenNegotiation, Seat, StoreError};
use index_negotiation_store_postgres::{PostgresOptions, PostgresStore};

const NEEDS_TLS: &str = "needs PostgreSQL with TLS: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) INDEX_TEST_DATABASE_CA=$(bash .ci/postgres ca) cargo test -- --ignored";

/// The test database's URL, with TLS required.
fn tls_url() -> String {
    let url = support::database_url();
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}sslmode=require")
}

fn test_roots() -> rustls::RootCertStore {
    let path = std::env::var("INDEX_TEST_DATABASE_CA").unwrap_or_else(|_| panic!("{NEEDS_TLS}"));
    let pem = std::fs::read(&path).unwrap_or_else(|err| panic!("{path}: {err}"));
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_pemfile::certs(&mut pem.as_slice()) {
        roots.add(cert.unwrap()).unwrap();
    }
    roots
}

fn options() -> PostgresOptions {
    PostgresOptions::default()
        .with_schema(support::fresh_schema())
        .with_tls(true)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL with TLS: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) INDEX_TEST_DATABASE_CA=$(bash .ci/postgres ca) cargo test -- --ignored"]
async fn a_trusted_server_is_used_over_tls_schema_and_all() {
    let store = PostgresStore::connect_with_roots(&tls_url(), options(), test_roots())
        .await
        .expect("the server's authority is trusted, and the schema is made over TLS");
    let service = Negotiations::new(&store);
    let seat = |user: &str| Seat {
        user_id: user.parse().unwrap(),
        intent_id: format!("{user}-intent").parse().unwrap(),
    };
    let opening = OpenNegotiation {
        opportunity_id: "6d1f0b7a-2c4e-4a93-8e15-0b7c9d2a4f36".parse().unwrap(),
        initiator: seat("alice"),
        responder: seat("bob"),
        eligible: true,
    };
    assert!(matches!(
        service.open(&opening, &Actor::operator()).await.unwrap(),
        index_negotiation_store::OpenDecision::Opened { .. }
    ));
    let (decision, _) = service
        .execute(
            &opening.opportunity_id,
            &"alice".parse().unwrap(),
            NegotiationTurn::new(NegotiationAction::Propose, "Over TLS."),
            &Actor::operator(),
        )
        .await
        .unwrap();
    assert!(decision.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL with TLS: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) INDEX_TEST_DATABASE_CA=$(bash .ci/postgres ca) cargo test -- --ignored"]
async fn a_certificate_the_client_does_not_trust_is_refused() {
    let refused = PostgresStore::connect_with(&tls_url(), options()).await;
    let message = match refused {
        Err(err @ StoreError::Backend(_)) => index_negotiation_store::ErrorChain(&err).to_string(),
        other => panic!("an unknown authority must be refused: {other:?}"),
    };
    assert!(
        message.contains("certificate") || message.contains("UnknownIssuer"),
        "{message}"
    );
}
