//! The facts behind a verdict in one line each, for `git dibs check`: worktrees with their
//! status and commits, branch tips, remote branches, peers and their files.

use super::{Facts, Finding, Guarded, Verdict, list};

/// What is at risk within reach of a program that runs code git-dibs cannot read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reach {
    /// Live peers with uncommitted files, with those files.
    pub(crate) peers: Vec<String>,
    /// Worktrees whose removal would lose work.
    pub(crate) worktrees: Vec<String>,
    /// Local branches whose tips are on no remote.
    pub(crate) branches: Vec<String>,
}

impl Reach {
    /// Whether nothing is at risk.
    pub(crate) fn is_empty(&self) -> bool {
        self.peers.is_empty() && self.worktrees.is_empty() && self.branches.is_empty()
    }
}

/// A program that runs code which may reach a guarded operation: asked while something is at
/// risk within reach, allowed otherwise.
pub(crate) fn check_reach(g: &Guarded, what: &str, reach: &Reach) -> Verdict {
    if reach.is_empty() {
        return Verdict::Allow;
    }
    let mut parts = Vec::new();
    if !reach.peers.is_empty() {
        parts.push(format!(
            "live sessions' uncommitted files ({})",
            list(&reach.peers)
        ));
    }
    if !reach.worktrees.is_empty() {
        parts.push(format!(
            "worktrees with work at risk ({})",
            list(&reach.worktrees)
        ));
    }
    if !reach.branches.is_empty() {
        parts.push(format!("unpushed branches ({})", list(&reach.branches)));
    }
    Verdict::Ask(Finding::new(
        "runs-code",
        format!(
            "git-dibs cannot see what `{}` does: {what} delete files or run git, and within \
             reach are {}. Run the commands it would run directly, or ask the person.",
            g.display,
            parts.join(", ")
        ),
    ))
}

/// One line per fact the verdict rested on.
pub(crate) fn facts(facts: &Facts) -> Vec<String> {
    let short = |id: &str| id.chars().take(8).collect::<String>();
    let commits =
        |c: &[crate::git::CommitInfo]| c.iter().map(|c| short(&c.id)).collect::<Vec<_>>().join(" ");
    match facts {
        Facts::None => Vec::new(),
        Facts::Worktrees(w) => {
            let mut out: Vec<String> = w
                .targets
                .iter()
                .map(|t| format!("target {}", t.display()))
                .collect();
            for s in &w.worktrees {
                let mut line = format!(
                    "worktree {} branch {} head {}",
                    s.root.display(),
                    s.branch.as_deref().unwrap_or("(detached)"),
                    s.head.as_deref().map(short).unwrap_or_else(|| "-".into())
                );
                if s.husk {
                    line.push_str(" husk");
                }
                if !s.status.is_empty() {
                    line.push_str(&format!(" dirty: {}", super::list(&s.status)));
                }
                if !s.unpushed.is_empty() {
                    line.push_str(&format!(" unpushed: {}", commits(&s.unpushed)));
                }
                if !s.unpushed_branches.is_empty() {
                    line.push_str(&format!(
                        " unpushed branches: {}",
                        super::list(&s.unpushed_branches)
                    ));
                }
                out.push(line);
            }
            out
        }
        Facts::Branches(bs) => bs
            .iter()
            .map(|b| match &b.tip {
                Some(tip) if b.unpushed.is_empty() => {
                    format!("{} tip {} pushed", b.label(), short(tip))
                }
                Some(tip) => format!(
                    "{} tip {} unpushed: {}",
                    b.label(),
                    short(tip),
                    commits(&b.unpushed)
                ),
                None => format!("branch {} does not exist", b.name),
            })
            .collect(),
        Facts::Pushes(us) => us
            .iter()
            .map(|u| {
                let mut line = format!("forced {} onto {}/{}", u.source, u.remote, u.branch);
                if !u.dropped.is_empty() {
                    line.push_str(&format!(" drops only copy of: {}", commits(&u.dropped)));
                }
                if let Some(why) = &u.unknown {
                    line.push_str(&format!(" unknown: {why}"));
                }
                line
            })
            .collect(),
        Facts::RemoteBranches(rs) => rs
            .iter()
            .map(|r| {
                let mut line = format!("remote branch {}/{}", r.remote, r.branch);
                if !r.only_copy.is_empty() {
                    line.push_str(&format!(" only copy of: {}", commits(&r.only_copy)));
                }
                if let Some(pr) = &r.pr {
                    line.push_str(&format!(" open pull request #{}", pr.number));
                }
                for s in &r.remote_sessions {
                    line.push_str(&format!(" worked on by {s}"));
                }
                line
            })
            .collect(),
        Facts::Peers(p) => {
            let mut out = vec![format!(
                "worktree {} branch {} in {}",
                p.root.display(),
                p.branch.as_deref().unwrap_or("(detached)"),
                if p.prefix.is_empty() { "." } else { &p.prefix }
            )];
            for peer in &p.peers {
                let files: Vec<String> = peer.files.iter().map(|f| f.porcelain()).collect();
                out.push(format!("peer {} holds {}", peer.name, super::list(&files)));
            }
            if !p.mine.is_empty() {
                let mine: Vec<&String> = p.mine.iter().collect();
                out.push(format!("this session holds {}", super::list(&mine)));
            }
            out
        }
        Facts::Reach(r) => {
            let mut out: Vec<String> = r.peers.iter().map(|p| format!("peer {p}")).collect();
            out.extend(r.worktrees.iter().map(|w| format!("worktree at risk {w}")));
            out.extend(r.branches.iter().map(|b| format!("unpushed branch {b}")));
            out
        }
        Facts::Autostash { key, peers } => {
            let mut out = vec![format!(
                "{key} is set: it stashes every tracked change first"
            )];
            out.extend(self::facts(&Facts::Peers(peers.clone())));
            out
        }
        Facts::Stash(1) => vec!["1 stash entry".to_owned()],
        Facts::Stash(n) => vec![format!("{n} stash entries")],
        Facts::Gh(f) => {
            let mut out = Vec::new();
            if let Some(b) = &f.branch {
                out.push(format!("pull request branch {b}"));
            }
            if let Some(why) = &f.unknown {
                out.push(format!("branch unknown: {why}"));
            }
            out.extend(self::facts(&Facts::Branches(f.local.clone())));
            out.extend(self::facts(&Facts::RemoteBranches(f.remote.clone())));
            out.extend(self::facts(&Facts::Reach(f.reach.clone())));
            out
        }
        Facts::PullRequests { branch, existing } => {
            let mut out = vec![format!("branch {branch}")];
            out.extend(
                existing
                    .iter()
                    .map(|p| format!("pull request #{} {}", p.number, p.state)),
            );
            out
        }
    }
}
