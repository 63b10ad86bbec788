//! Support for the real-host tests of Gemini CLI and Codex (`tests/e2e_gemini.rs`,
//! `tests/e2e_codex.rs`): the pinned CLIs fetched once per machine ([`fetch`]), a small loopback
//! HTTP server ([`http`]) with each vendor's model API scripted on top ([`gemini_api`],
//! [`codex_api`]), and a scenario with its repository, peer and time limit ([`scenario`]).
#![allow(dead_code)]

pub mod codex_api;
pub mod fetch;
pub mod gemini_api;
pub mod http;
pub mod report;
pub mod scenario;
