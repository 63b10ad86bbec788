//! How `doctor` names hook places in its lines, its line for a file wired before some of
//! git-dibs's places existed, and its line for a settings file it cannot read.

use super::Report;
use crate::protocol::settings::{HookSpec, Wiring};

/// A list of places for a message.
pub(super) fn places(specs: &[HookSpec]) -> String {
    specs
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A problem when the file `shown` was wired before some of git-dibs's places existed.
pub(super) fn predates(r: &mut Report, shown: &str, w: &Wiring, fix: &str) {
    let later = w.missing_later();
    if !later.is_empty() {
        let places = places(&later);
        r.problem(format!(
            "{shown} was wired before git-dibs had its hooks for {places}: {fix} to add them"
        ));
    }
}

/// The line for a settings file at `path` that [`crate::cli::install::load`] refused: `fix`
/// follows, unless the file is a FIFO, a socket, a device or a folder (the error says what to
/// do then).
pub(super) fn unreadable(path: &std::path::Path, e: &anyhow::Error, fix: &str) -> String {
    if crate::platform::files::special_kind(path).is_some() {
        format!("{e:#}")
    } else {
        format!("{e:#}: {fix}")
    }
}
