//! What the workspace's tests share across crates, in one unpublished
//! crate instead of test files reaching into each other's directories: the
//! fake model server the stall-gap and `index` tests talk to.
//!
//! A setup failure here is a broken test environment, so it panics.
//!
//! | module | holds |
//! |---|---|
//! | `openai_server` | a fake OpenAI-compatible model server on a free local port |
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::missing_panics_doc,
    clippy::indexing_slicing
)]

pub mod openai_server;
