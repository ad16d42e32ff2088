//! Shared test helpers.

pub mod openai_server;
