//! Support for the end-to-end tests in the real Claude Code CLI: fetching the CLI ([`cli`]), a
//! stand-in of the Messages API ([`api`]) and the scenario runner ([`scenario`]); the guard's
//! and the lanes' scenarios live here too (`guard`, `lanes`).
#![allow(dead_code)]

pub mod api;
pub mod cli;
mod guard;
mod lanes;
mod peer;
mod plugin;
mod procs;
pub mod scenario;
mod subagents;
