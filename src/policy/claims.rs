//! Co-edit: what a session is told when it touches a file another live session holds, when a
//! whole-file write would overwrite another session's change, and what the store records.

use crate::protocol::Response;
use crate::store::{Change, FileKey, Holder, SeenFile, Session};
use crate::text;

/// The facts a co-edit decision needs.
#[derive(Debug, Clone)]
pub(crate) struct EditFacts {
    /// The files the tool writes, resolved to worktrees.
    pub(crate) files: Vec<FileKey>,
    /// For each of `files`, the other live actors (sessions, sub-agents) that hold it.
    pub(crate) holders: Vec<Vec<Holder>>,
    /// Now, seconds since the Unix epoch.
    pub(crate) now: u64,
    /// The session id of the actor editing (its own session's threads are named as such).
    pub(crate) viewer: String,
    /// The (peer id, file) pairs this session was already warned about in full.
    pub(crate) told: Vec<(String, FileKey)>,
}

/// The facts the lost-update check needs, for a whole-file write of an existing file.
#[derive(Debug, Clone)]
pub(crate) struct OverwriteFacts {
    /// The file.
    pub(crate) file: FileKey,
    /// The content as this session last read or wrote it, if it ever did.
    pub(crate) seen: Option<SeenFile>,
    /// The digest of the content on disk now.
    pub(crate) current: String,
    /// The session id of the actor writing.
    pub(crate) viewer: String,
}

/// "just now", "4 min ago", "2 h 5 min ago".
pub(crate) fn ago(now: u64, then: u64) -> String {
    let secs = now.saturating_sub(then);
    match secs {
        0..60 => "just now".to_owned(),
        60..3600 => format!("{} min ago", secs / 60),
        _ => format!("{} h {} min ago", secs / 3600, secs % 3600 / 60),
    }
}

/// Whether a session may stage or commit `path`, which a live peer holds too: only when it
/// holds the file itself. Both changed it, and refusing each of them would leave the file
/// committable by no one; the one who commits is told whose work goes in with it. The guard
/// (`git add`, `git commit -- PATH`) and the pre-commit hook both decide by this.
pub(crate) fn may_commit_co_held(mine: &std::collections::BTreeSet<String>, path: &str) -> bool {
    mine.contains(path)
}

/// The key a co-edit warning remembers a peer by: its session id, and the sub-agent's id for a
/// sub-agent.
pub(crate) fn peer_key(s: &Session) -> String {
    match &s.sub_agent {
        Some(a) => format!("{}#{}", s.id, a.id),
        None => s.id.clone(),
    }
}

/// How a session is named in a brief message: `claude 5f0c2b7e`, `person-sam`.
fn describe_short(s: &Session) -> String {
    let machine = s.machine().map(|m| format!(" on {m}")).unwrap_or_default();
    if s.short_id().starts_with("person-") {
        return format!("{}{machine}", s.short_id());
    }
    format!("{} {}{machine}", s.host.name(), s.short_id())
}

/// How a session is named in a message: host, short id, the machine of a session from
/// another machine, label; a sub-agent's record as that sub-agent of its session.
pub(crate) fn describe(s: &Session) -> String {
    describe_to(s, "")
}

/// How an actor is named to a reader in session `viewer`: a sub-agent by its type, short id
/// and session (`sub-agent general-purpose a1b2c3d4 of this session`, `... of claude session
/// 5f0c2b7e`), the main thread of the reader's own session as `the main thread of this
/// session`, any other session as [`describe`] names it.
pub(crate) fn describe_to(s: &Session, viewer: &str) -> String {
    let own = !viewer.is_empty() && s.id == viewer && s.origin.is_none();
    match (&s.sub_agent, own) {
        (None, true) => "the main thread of this session".to_owned(),
        (None, false) => describe_session(s),
        (Some(a), _) => {
            let kind = a
                .kind
                .as_deref()
                .map(|k| format!("{k} "))
                .unwrap_or_default();
            let whose = if own {
                "this session".to_owned()
            } else {
                describe_session(s)
            };
            format!("sub-agent {kind}{} of {whose}", a.short_id())
        }
    }
}

fn describe_session(s: &Session) -> String {
    let machine = s.machine().map(|m| format!(" on {m}")).unwrap_or_default();
    // A person's id says who it is (`person-sam-pts3`): "person session person-sam" says it twice.
    if s.short_id().starts_with("person-") {
        return match &s.label {
            Some(label) => format!("{}{machine} (\"{label}\")", s.short_id()),
            None => format!("{}{machine}", s.short_id()),
        };
    }
    match &s.label {
        Some(label) => format!(
            "{} session {}{machine} ({})",
            s.host.name(),
            s.short_id(),
            text::quoted(label)
        ),
        None => format!("{} session {}{machine}", s.host.name(), s.short_id()),
    }
}

/// When and where `h` worked on the file: `touched it 4 min ago on branch main (claimed:
/// "…")`, or empty.
fn holder_detail(h: &Holder, now: u64) -> String {
    let mut parts = Vec::new();
    if let Some(t) = &h.touch {
        parts.push(format!("touched it {}", ago(now, t.last)));
    }
    if let Some(branch) = &h.session.branch {
        parts.push(format!("on branch {branch}"));
    }
    if let Some(intent) = h.claim.as_ref().and_then(|c| c.intent.as_deref()) {
        parts.push(format!("(claimed: {})", text::quoted(intent)));
    }
    parts.join(" ")
}

/// The full warning about one file: one holder in a sentence of its own (`X also holds F: it
/// touched it …`); several in one sentence that names the file once, each with what it did,
/// the first [`MAX_HOLDER_LINES`] by name and the rest counted.
fn file_line(file: &FileKey, holders: &[&Holder], now: u64, viewer: &str) -> String {
    let path = text::clean(&file.path, text::MAX_SHOWN);
    if let [h] = holders {
        let detail = holder_detail(h, now);
        let detail = if detail.is_empty() {
            String::new()
        } else {
            format!(": it {detail}")
        };
        return format!(
            "{} also holds {path}{detail}.",
            describe_to(&h.session, viewer)
        );
    }
    // Up to MAX_HOLDER_LINES by name; past that, one fewer and the rest counted.
    let shown = if holders.len() > MAX_HOLDER_LINES {
        MAX_HOLDER_LINES - 1
    } else {
        holders.len()
    };
    let mut named: Vec<String> = holders
        .iter()
        .take(shown)
        .map(|h| {
            let detail = holder_detail(h, now);
            let who = describe_to(&h.session, viewer);
            if detail.is_empty() {
                who
            } else {
                format!("{who}, {detail}")
            }
        })
        .collect();
    if shown < holders.len() {
        named.push(format!(
            "and {} more (`git dibs status` lists them)",
            holders.len() - shown
        ));
    }
    format!(
        "{} others also hold {path}: {}.",
        holders.len(),
        named.join("; ")
    )
}

/// The most holders a co-edit warning names one by one.
const MAX_HOLDER_LINES: usize = 4;

/// Before an edit: warn (never block) when a live peer holds one of the files, and record the
/// touch either way.
///
/// The full warning is given once per peer and file; after that, a brief line says the peer
/// still holds it.
pub(crate) fn before_edit(facts: &EditFacts) -> (Response, Vec<Change>) {
    let mut changes = vec![Change::Touch(facts.files.clone())];
    let pairs = || {
        facts
            .files
            .iter()
            .zip(&facts.holders)
            .flat_map(|(file, holders)| holders.iter().map(move |h| (file, h)))
    };
    let told = |file: &FileKey, h: &Holder| {
        facts
            .told
            .iter()
            .any(|(peer, f)| *peer == peer_key(&h.session) && f == file)
    };
    let mut lines: Vec<String> = facts
        .files
        .iter()
        .zip(&facts.holders)
        .filter_map(|(file, holders)| {
            let fresh: Vec<&Holder> = holders.iter().filter(|h| !told(file, h)).collect();
            (!fresh.is_empty()).then(|| file_line(file, &fresh, facts.now, &facts.viewer))
        })
        .collect();
    let mut brief: Vec<(String, Vec<String>)> = Vec::new();
    for (file, h) in pairs().filter(|(file, h)| told(file, h)) {
        let who = describe_short(&h.session);
        match brief.iter_mut().find(|(p, _)| *p == file.path) {
            Some((_, names)) => names.push(who),
            None => brief.push((file.path.clone(), vec![who])),
        }
    }
    let brief: Vec<String> = brief
        .into_iter()
        .map(|(path, names)| format!("{path} (held by {})", names.join(", ")))
        .collect();
    let fresh: Vec<(String, FileKey)> = pairs()
        .filter(|(file, h)| !told(file, h))
        .map(|(file, h)| (peer_key(&h.session), file.clone()))
        .collect();
    if !fresh.is_empty() {
        changes.push(Change::Warned(fresh));
    }
    if lines.is_empty() && brief.is_empty() {
        return (Response::Silent, changes);
    }
    if lines.is_empty() {
        let text = format!(
            "git-dibs: still shared, as said before: {}.",
            brief.join(", ")
        );
        return (
            Response::Warn {
                person: text.clone(),
                model: text,
            },
            changes,
        );
    }
    if lines.len() > MAX_HOLDER_LINES {
        let more = lines.len() - (MAX_HOLDER_LINES - 1);
        lines.truncate(MAX_HOLDER_LINES - 1);
        lines.push(format!(
            "And {more} more shared files (`git dibs status` lists them)."
        ));
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
            "git-dibs: {body} Another agent is working on this file {place} keep your change \
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
pub(crate) fn lost_update(facts: &OverwriteFacts, holders: &[Holder]) -> Option<Response> {
    let seen = facts.seen.as_ref()?;
    if seen.digest == facts.current {
        return None;
    }
    let changer = holders.iter().find(|h| {
        h.session.origin.is_none() && h.touch.as_ref().is_some_and(|t| t.last >= seen.at)
    })?;
    let who = describe_to(&changer.session, &facts.viewer);
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

/// The refusal of a host's delete tool deleting `path`, uncommitted work that live `holders`
/// hold (as `viewer` is told).
pub(crate) fn delete_refusal(path: &str, holders: &[Holder], viewer: &str) -> Response {
    let who: Vec<String> = holders
        .iter()
        .map(|h| describe_to(&h.session, viewer))
        .collect();
    Response::Deny {
        reason: format!(
            "git-dibs refused deleting {path}: it is uncommitted work of {}, which exists nowhere \
             else. Leave it to that session, or ask the person. [guard:peer-files]",
            who.join(", ")
        ),
        person: Some(format!(
            "git-dibs: refused deleting {path}, uncommitted work of {}.",
            who.join(", ")
        )),
    }
}

/// A prompt's first line, shortened to a label.
pub(crate) fn label_from_prompt(prompt: &str) -> Option<String> {
    let line = prompt.lines().map(str::trim).find(|l| !l.is_empty())?;
    let mut label: String = line.chars().take(60).collect();
    if line.chars().count() > 60 {
        label.push('…');
    }
    Some(label)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Host;

    fn holder(id: &str) -> Holder {
        let mut session = Session::new(id, Host::Claude, 100);
        session.branch = Some("main".into());
        Holder {
            session,
            touch: None,
            claim: None,
        }
    }

    #[test]
    fn actors_are_named_as_a_person_recognises_them() {
        let mut main = Session::new("5f0c2b7e-3a41", Host::Claude, 1);
        main.label = Some("fix login".into());
        let mut sub = main.clone();
        sub.sub_agent = crate::host::SubAgent::from_fields(Some("a1b2c3d4e5"), Some("Explore"));
        assert_eq!(
            describe_to(&sub, "5f0c2b7e-3a41"),
            "sub-agent Explore a1b2c3d4 of this session"
        );
        assert_eq!(
            describe_to(&sub, "other"),
            "sub-agent Explore a1b2c3d4 of claude session 5f0c2b7e (\"fix login\")"
        );
        assert_eq!(
            describe_to(&main, "5f0c2b7e-3a41"),
            "the main thread of this session"
        );
        assert_eq!(describe_to(&main, "other"), describe(&main));
        sub.sub_agent.as_mut().unwrap().kind = None;
        assert_eq!(
            describe(&sub),
            "sub-agent a1b2c3d4 of claude session 5f0c2b7e (\"fix login\")"
        );
    }

    #[test]
    fn a_warning_names_a_few_holders_then_counts_the_rest() {
        let file = FileKey::new("/r", "src/a.rs");
        let few = EditFacts {
            files: vec![file.clone()],
            holders: vec![vec![holder("aaaaaaaa-1"), holder("bbbbbbbb-2")]],
            now: 200,
            viewer: "me".into(),
            told: Vec::new(),
        };
        let Response::Warn { person, .. } = before_edit(&few).0 else {
            panic!("a warning");
        };
        assert!(
            person.contains("aaaaaaaa") && person.contains("bbbbbbbb"),
            "{person}"
        );
        assert!(!person.contains("more"), "{person}");

        let many = EditFacts {
            files: vec![file],
            holders: vec![(0..40).map(|i| holder(&format!("peer{i:04}-x"))).collect()],
            now: 200,
            viewer: "me".into(),
            told: Vec::new(),
        };
        let Response::Warn { person, model } = before_edit(&many).0 else {
            panic!("a warning");
        };
        assert_eq!(person.matches("also hold").count(), 1, "{person}");
        assert_eq!(
            person.matches("peer").count(),
            MAX_HOLDER_LINES - 1,
            "{person}"
        );
        assert!(person.contains("40 others also hold src/a.rs"), "{person}");
        assert!(person.contains("and 37 more"), "{person}");
        assert!(model.len() < 1000, "{model}");
    }
}
