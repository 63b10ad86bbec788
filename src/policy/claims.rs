//! Co-edit: what a session is told when it touches a file another live session holds, and what
//! the store records for the touch.

use std::time::Duration;

use crate::protocol::Response;
use crate::store::{Change, FileKey, Holder};

/// The facts a co-edit decision needs.
#[derive(Debug, Clone)]
pub struct EditFacts {
    /// The files the tool writes, resolved to worktrees.
    pub files: Vec<FileKey>,
    /// For each of `files`, the other sessions whose records hold it (live or not).
    pub holders: Vec<Vec<Holder>>,
    /// The lease: holders idle longer than this are not live.
    pub ttl: Duration,
    /// Now, seconds since the Unix epoch.
    pub now: u64,
}

/// "just now", "4 min ago", "2 h ago".
pub fn ago(now: u64, then: u64) -> String {
    let secs = now.saturating_sub(then);
    match secs {
        0..60 => "just now".to_owned(),
        60..3600 => format!("{} min ago", secs / 60),
        _ => format!("{} h {} min ago", secs / 3600, secs % 3600 / 60),
    }
}

/// How a holder is named in a message: host, short id, label.
pub fn describe(holder: &Holder) -> String {
    let s = &holder.session;
    match &s.label {
        Some(label) => format!("{} session {} (\"{}\")", s.host.name(), s.short_id(), label),
        None => format!("{} session {}", s.host.name(), s.short_id()),
    }
}

/// Before an edit: warn (never block) when a live peer holds one of the files, and record the
/// touch either way.
pub fn before_edit(facts: &EditFacts) -> (Response, Vec<Change>) {
    let changes = vec![Change::Touch(facts.files.clone())];
    let mut lines = Vec::new();
    for (file, holders) in facts.files.iter().zip(&facts.holders) {
        for h in holders
            .iter()
            .filter(|h| h.session.is_live(facts.now, facts.ttl))
        {
            lines.push(format!(
                "{} also has {} open: it touched it {}{}.",
                describe(h),
                file.path,
                ago(facts.now, h.touch.last),
                h.session
                    .branch
                    .as_deref()
                    .map(|b| format!(" on branch {b}"))
                    .unwrap_or_default(),
            ));
        }
    }
    if lines.is_empty() {
        return (Response::Silent, changes);
    }
    let body = lines.join(" ");
    let response = Response::Warn {
        person: format!("git-dibs: {body}"),
        model: format!(
            "git-dibs: {body} Another session is editing this file in the same worktree: keep \
             your change small, do not revert or reformat its edits, and coordinate with the \
             person before restructuring it."
        ),
    };
    (response, changes)
}

/// After an edit: renew the touch silently.
pub fn after_edit(files: &[FileKey]) -> Vec<Change> {
    vec![Change::Touch(files.to_vec())]
}

/// A prompt's first line, shortened to a label.
pub fn label_from_prompt(prompt: &str) -> Option<String> {
    let line = prompt.lines().map(str::trim).find(|l| !l.is_empty())?;
    let mut label: String = line.chars().take(60).collect();
    if line.chars().count() > 60 {
        label.push('…');
    }
    Some(label)
}
