//! Awareness at the read: the block a session gets at start (who else works in this checkout,
//! and the house rule) and at prompt time (live peers sharing its warm files).

use crate::protocol::Response;
use crate::store::{ListedClaim, Session};

use super::claims::describe_to;

/// The house rule, said once at session start when others are present.
pub(crate) const HOUSE_RULE: &str = "House rule: never revert, stash, reset, clean or commit another \
                              session's changes; stage and commit your own files by explicit path.";

/// A live peer in this checkout, with what the facts layer found about it.
#[derive(Debug, Clone)]
pub(crate) struct Peer {
    /// Its record.
    pub(crate) session: Session,
    /// Its files that are dirty in git's eyes now (relative paths); `None` when git could not
    /// tell (then nothing is claimed about them).
    pub(crate) dirty: Option<Vec<String>>,
}

/// "a, b, c and 4 more", each cleaned of control characters (file names are anyone's).
pub(crate) fn few(items: &[String], shown: usize) -> String {
    let mut text = items
        .iter()
        .take(shown)
        .map(|i| crate::text::clean(i, crate::text::MAX_SHOWN))
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > shown {
        text.push_str(&format!(" and {} more", items.len() - shown));
    }
    text
}

/// The most explicit claims a session start names.
pub(crate) const SHOWN_CLAIMS: usize = 8;

/// At session start: disclose to session `viewer` the live peers of this checkout (`peers`
/// named one by one, and `more` others counted) and every live explicit claim of another
/// session (`claims`, newest first, at most [`SHOWN_CLAIMS`]) with its intent, whoever holds
/// it; or say nothing when alone.
pub(crate) fn session_start(
    peers: &[Peer],
    more: usize,
    claims: &[ListedClaim],
    viewer: &str,
) -> Response {
    if peers.is_empty() && claims.is_empty() {
        return Response::Silent;
    }
    let total = peers.len() + more;
    let mut lines = vec![if total == 0 {
        "git-dibs: no other live session works in this worktree, but sessions elsewhere in this \
         checkout hold claims:"
            .to_owned()
    } else {
        format!(
            "git-dibs: {} other live session{} work{} in this checkout:",
            total,
            if total == 1 { "" } else { "s" },
            if total == 1 { "s" } else { "" },
        )
    }];
    for p in peers {
        let s = &p.session;
        let mut line = format!("- {}", describe_to(s, viewer));
        if let Some(b) = &s.branch {
            line.push_str(&format!(" on branch {b}"));
        }
        if let Some(w) = &s.worktree {
            line.push_str(&format!(" in {}", w.display()));
        }
        match &p.dirty {
            Some(d) if d.is_empty() => line.push_str("; no uncommitted files"),
            Some(d) => line.push_str(&format!("; uncommitted: {}", few(d, 6))),
            None if s.files.len() == 1 => {
                line.push_str("; its file could not be read (treat it as uncommitted)");
            }
            None => line.push_str(&format!(
                "; its {} files could not be read (treat them as uncommitted)",
                s.files.len()
            )),
        }
        lines.push(line);
    }
    if more > 0 {
        lines.push(format!(
            "- and {more} more within their lease (`git dibs status` lists them all)"
        ));
    }
    if !claims.is_empty() {
        lines.push("Claimed (newest first):".to_owned());
        for c in claims {
            let kind = if c.claim.exclusive {
                "exclusively "
            } else {
                ""
            };
            let intent = c
                .claim
                .intent
                .as_deref()
                .map(|i| format!(": {}", crate::text::quoted(i)))
                .unwrap_or_default();
            let who = match c.short_id() {
                person if person.starts_with("person-") => person.to_owned(),
                id => format!("{} {id}", c.host.name()),
            };
            lines.push(format!("- {} {kind}by {who}{intent}", c.claim.target));
        }
    }
    lines.push(HOUSE_RULE.to_owned());
    let text = lines.join("\n");
    Response::Warn {
        person: text.clone(),
        model: text,
    }
}

/// A live actor holding files, for the sub-agent start block.
#[derive(Debug, Clone)]
pub(crate) struct Holding {
    /// Its record.
    pub(crate) session: Session,
    /// The files it holds in this checkout (relative paths).
    pub(crate) files: Vec<String>,
}

/// After `/clear`: the line that tells the new session it holds what the session before it
/// (`old`, a short id) claimed, `claims` as `target (intent)`; nothing when it claimed nothing.
pub(crate) fn cleared(old: &str, claims: &[String]) -> Option<String> {
    (!claims.is_empty()).then(|| {
        format!(
            "git-dibs: after /clear this session holds the claims of the one before it ({old}): \
             {}",
            few(claims, 6)
        )
    })
}

/// When a sub-agent starts: which files its live siblings, its main thread and other live
/// sessions hold (`holdings` named one by one, `more` others counted), for the sub-agent's
/// model; nothing when none holds a file.
pub(crate) fn sub_agent_start(holdings: &[Holding], more: usize, viewer: &str) -> Response {
    let named: Vec<&Holding> = holdings.iter().filter(|h| !h.files.is_empty()).collect();
    if named.is_empty() {
        return Response::Silent;
    }
    let holders = named.len();
    let mut lines = vec!["git-dibs: files held by others working in this checkout:".to_owned()];
    for h in named {
        lines.push(format!(
            "- {}: {}",
            describe_to(&h.session, viewer),
            few(&h.files, 6)
        ));
    }
    if more > 0 {
        lines.push(format!(
            "- and {more} more within their lease (`git dibs status` lists them all)"
        ));
    }
    lines.push(
        "Edit them only in coordination; never revert, stash, reset, clean or commit their \
         changes; stage and commit your own files by explicit path."
            .to_owned(),
    );
    let text = lines.join("\n");
    Response::Warn {
        person: match holders + more {
            1 => "git-dibs: a sub-agent started while 1 other holds files here".to_owned(),
            n => format!("git-dibs: a sub-agent started while {n} others hold files here"),
        },
        model: text,
    }
}

/// A live peer sharing warm files with this session.
#[derive(Debug, Clone)]
pub(crate) struct Sharing {
    /// The peer.
    pub(crate) session: Session,
    /// The shared warm files (relative paths).
    pub(crate) files: Vec<String>,
    /// Intents of the peer's explicit claims on those files.
    pub(crate) intents: Vec<String>,
}

/// At prompt time: at most two lines naming the peers that share warm files with session
/// `viewer`, or nothing.
pub(crate) fn prompt(sharing: &[Sharing], viewer: &str) -> Response {
    if sharing.is_empty() {
        return Response::Silent;
    }
    let peers: Vec<String> = sharing
        .iter()
        .map(|s| {
            let mut d = describe_to(&s.session, viewer);
            if !s.intents.is_empty() {
                let quoted: Vec<String> =
                    s.intents.iter().map(|i| crate::text::quoted(i)).collect();
                d.push_str(&format!(" [claimed: {}]", quoted.join("; ")));
            }
            d
        })
        .collect();
    let mut files: Vec<String> = sharing.iter().flat_map(|s| s.files.clone()).collect();
    files.sort();
    files.dedup();
    let text = format!(
        "git-dibs: live peer{} {} also work{} on files you have in progress.\nShared: {}. \
         Coordinate before changing them; never revert or commit their changes.",
        if peers.len() == 1 { "" } else { "s" },
        few(&peers, 3),
        if peers.len() == 1 { "s" } else { "" },
        few(&files, 4),
    );
    Response::Warn {
        person: text.clone(),
        model: text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Host;

    fn peer(id: &str, dirty: &[&str]) -> Peer {
        let mut session = Session::new(id, Host::Claude, 100);
        session.branch = Some("main".into());
        Peer {
            session,
            dirty: Some(dirty.iter().map(|d| d.to_string()).collect()),
        }
    }

    fn text(r: &Response) -> String {
        match r {
            Response::Warn { model, .. } => model.clone(),
            other => panic!("expected a warning, got {other:?}"),
        }
    }

    #[test]
    fn alone_says_nothing() {
        assert_eq!(session_start(&[], 0, &[], "me"), Response::Silent);
        assert_eq!(prompt(&[], "me"), Response::Silent);
        assert_eq!(sub_agent_start(&[], 0, "me"), Response::Silent);
    }

    #[test]
    fn a_peer_whose_files_git_could_not_read_is_never_said_to_have_none() {
        let mut unread = peer("cccccccc-3", &[]);
        unread.dirty = None;
        let t = text(&session_start(&[unread], 0, &[], "me"));
        assert!(!t.contains("no uncommitted files"), "{t}");
        assert!(t.contains("could not be read (treat "), "{t}");
    }

    #[test]
    fn session_start_names_a_few_peers_and_counts_the_rest() {
        let peers = [peer("aaaaaaaa-1", &["src/a.rs"]), peer("bbbbbbbb-2", &[])];
        let t = text(&session_start(&peers, 3, &[], "me"));
        assert!(
            t.starts_with("git-dibs: 5 other live sessions work in this checkout:"),
            "{t}"
        );
        assert!(
            t.contains("claude session aaaaaaaa on branch main; uncommitted: src/a.rs"),
            "{t}"
        );
        assert!(
            t.contains("bbbbbbbb on branch main; no uncommitted files"),
            "{t}"
        );
        assert!(t.contains("- and 3 more"), "{t}");
        assert!(t.ends_with(HOUSE_RULE), "{t}");
    }

    #[test]
    fn file_names_are_shown_without_escapes() {
        let names = vec!["a\x1b]0;x\x07b.rs".to_owned(), "c\nd.rs".to_owned()];
        assert_eq!(few(&names, 3), "a]0;xb.rs, c d.rs");
    }

    #[test]
    fn the_prompt_block_is_two_lines_with_few_files() {
        let sharing = [Sharing {
            session: peer("cccccccc-3", &[]).session,
            files: (0..7).map(|i| format!("f{i}.rs")).collect(),
            intents: vec!["renaming the parser".into()],
        }];
        let t = text(&prompt(&sharing, "me"));
        assert_eq!(t.lines().count(), 2, "{t}");
        assert!(t.contains("[claimed: \"renaming the parser\"]"), "{t}");
        assert!(t.contains("f0.rs, f1.rs, f2.rs, f3.rs and 3 more"), "{t}");
    }

    #[test]
    fn the_prompt_block_names_three_peers_and_counts_the_rest() {
        let sharing: Vec<Sharing> = (0..40)
            .map(|i| Sharing {
                session: peer(&format!("peer{i:04}-x"), &[]).session,
                files: vec!["src/lib.rs".into()],
                intents: Vec::new(),
            })
            .collect();
        let t = text(&prompt(&sharing, "me"));
        assert_eq!(t.lines().count(), 2, "{t}");
        assert_eq!(t.matches("claude session").count(), 3, "{t}");
        assert!(t.contains("and 37 more also work"), "{t}");
    }
}
