//! Co-edit: what a session is told when it touches a file another live session holds, when a
//! whole-file write would overwrite another session's change, and what the store records.

use crate::protocol::Response;
use crate::store::{Change, FileKey, Holder, SeenFile, Session};

/// The facts a co-edit decision needs.
#[derive(Debug, Clone)]
pub struct EditFacts {
    /// The files the tool writes, resolved to worktrees.
    pub files: Vec<FileKey>,
    /// For each of `files`, the other live sessions that hold it.
    pub holders: Vec<Vec<Holder>>,
    /// Now, seconds since the Unix epoch.
    pub now: u64,
}

/// The facts the lost-update check needs, for a whole-file write of an existing file.
#[derive(Debug, Clone)]
pub struct OverwriteFacts {
    /// The file.
    pub file: FileKey,
    /// The content as this session last read or wrote it, if it ever did.
    pub seen: Option<SeenFile>,
    /// The digest of the content on disk now.
    pub current: String,
}

/// "just now", "4 min ago", "2 h 5 min ago".
pub fn ago(now: u64, then: u64) -> String {
    let secs = now.saturating_sub(then);
    match secs {
        0..60 => "just now".to_owned(),
        60..3600 => format!("{} min ago", secs / 60),
        _ => format!("{} h {} min ago", secs / 3600, secs % 3600 / 60),
    }
}

/// How a session is named in a message: host, short id, the machine of a session from
/// another machine, label.
pub fn describe(s: &Session) -> String {
    let machine = s.machine().map(|m| format!(" on {m}")).unwrap_or_default();
    match &s.label {
        Some(label) => format!(
            "{} session {}{machine} (\"{}\")",
            s.host.name(),
            s.short_id(),
            label
        ),
        None => format!("{} session {}{machine}", s.host.name(), s.short_id()),
    }
}

fn holder_line(file: &FileKey, h: &Holder, now: u64) -> String {
    let mut line = format!("{} also holds {}", describe(&h.session), file.path);
    if let Some(t) = &h.touch {
        line.push_str(&format!(": it touched it {}", ago(now, t.last)));
    }
    if let Some(branch) = &h.session.branch {
        line.push_str(&format!(" on branch {branch}"));
    }
    if let Some(intent) = h.claim.as_ref().and_then(|c| c.intent.as_deref()) {
        line.push_str(&format!(" (claimed: {intent})"));
    }
    line.push('.');
    line
}

/// Before an edit: warn (never block) when a live peer holds one of the files, and record the
/// touch either way.
pub fn before_edit(facts: &EditFacts) -> (Response, Vec<Change>) {
    let changes = vec![Change::Touch(facts.files.clone())];
    let lines: Vec<String> = facts
        .files
        .iter()
        .zip(&facts.holders)
        .flat_map(|(file, holders)| holders.iter().map(move |h| holder_line(file, h, facts.now)))
        .collect();
    if lines.is_empty() {
        return (Response::Silent, changes);
    }
    let body = lines.join(" ");
    let remote = facts
        .holders
        .iter()
        .flatten()
        .all(|h| h.session.origin.is_some());
    let place = if remote {
        "on the same branch on another machine: expect a merge conflict;"
    } else {
        "in the same worktree:"
    };
    let response = Response::Warn {
        person: format!("git-dibs: {body}"),
        model: format!(
            "git-dibs: {body} Another session is working on this file {place} keep your change \
             small, do not revert or reformat its edits, and coordinate with the person before \
             restructuring it."
        ),
    };
    (response, changes)
}

/// Before a whole-file write of an existing file: refuse when the file changed since this
/// session last saw it and one of `holders` (live peers holding the file) touched it since.
/// A file this session never saw, or that only it changed, passes. A session on another
/// machine cannot have changed the file here, so it never counts.
pub fn lost_update(facts: &OverwriteFacts, holders: &[Holder]) -> Option<Response> {
    let seen = facts.seen.as_ref()?;
    if seen.digest == facts.current {
        return None;
    }
    let changer = holders.iter().find(|h| {
        h.session.origin.is_none() && h.touch.as_ref().is_some_and(|t| t.last >= seen.at)
    })?;
    let who = describe(&changer.session);
    Some(Response::Deny {
        reason: format!(
            "git-dibs: {} changed since you last read it: {who} edited it after that. Writing \
             the whole file now would erase its change. Read {} again and apply your change \
             to the current content (or use Edit for a targeted change).",
            facts.file.path, facts.file.path
        ),
        person: Some(format!(
            "git-dibs: refused a whole-file Write of {}: {who} changed it since this session \
             read it.",
            facts.file.path
        )),
    })
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
