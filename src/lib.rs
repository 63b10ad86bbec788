//! git-dibs: a shared record of who holds what in a git checkout, and a guard against commands
//! that destroy another session's work. See the README for the product and DESIGN for the shape.

pub(crate) mod agent;
pub mod cli;
pub(crate) mod git;
pub(crate) mod host;
pub(crate) mod pathtext;
mod platform;
pub mod policy;
pub(crate) mod protocol;
pub mod shell;
pub mod store;
pub(crate) mod text;
