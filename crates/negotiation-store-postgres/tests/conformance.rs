//! The shared conformance suite against PostgreSQL, a fresh schema per test.

// Tests report failure by panicking.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stderr
)]

mod support;

index_negotiation_store::negotiation_store_conformance!(
    ignore =
        "needs PostgreSQL: INDEX_TEST_DATABASE_URL=$(bash .ci/postgres) cargo test -- --ignored",
    support::fresh_store()
);
