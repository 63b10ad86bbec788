//! Support for the end-to-end tests in the real Claude Code CLI: fetching the CLI ([`cli`]), a
//! stand-in of the Messages API ([`api`]) and the scenario runner ([`scenario`]); the guard's
//! scenarios live here too (`guard`).
#![allow(dead_code)]

pub mod api;
pub mod cli;
mod guard;
pub mod scenario;
