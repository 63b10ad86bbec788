//! `git dibs recover` alone: what can be brought back, by session, worktree and file, with
//! when, where each version came from, whether the working copy still matches, what was left
//! out, and the commits retention refs keep that no branch holds.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

use super::nested::Kept;
use super::{Args, Catalog, Skip, Version, session_matches, shown, when};
use crate::git::retention::Unheld;
use crate::git::snapshot::Origin;
use crate::git::stashes::Dropped;
use crate::store::short_id;

/// How the working copy compares with a version.
fn state_of(catalog: &Catalog, root: &Path, path: &str, v: &Version) -> &'static str {
    let full = super::file_in(root, path);
    match catalog.current_blob_among(&full, [v.blob.as_str()]) {
        Some(b) if b == v.blob && super::mode_differs(&full, v) => "mode differs",
        Some(b) if b == v.blob => "matches",
        Some(_) => "differs",
        None => "missing",
    }
}

#[derive(Serialize)]
struct ListedFile<'a> {
    session: &'a str,
    host: &'a str,
    worktree: &'a Path,
    worktree_exists: bool,
    /// A nested repository's worktree (its files come back by path, not `--worktree`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    nested: bool,
    path: &'a str,
    at: String,
    commit: &'a str,
    versions: usize,
    working_copy: &'static str,
    /// Where this version came from: `edit`, `shell`, `sweep` (found changed by stat data:
    /// anyone's), `kept` (what `recover --force` overwrote); absent for older snapshots.
    #[serde(skip_serializing_if = "Option::is_none")]
    origin: Option<&'static str>,
    /// When a later sweep found the file put back to its committed content (passed over: this
    /// version is what `recover PATH` brings back).
    #[serde(skip_serializing_if = "Option::is_none")]
    reverted_at: Option<String>,
    /// The worktree's root when this version was snapshotted, when it moved since (`worktree`
    /// is where it is now).
    #[serde(skip_serializing_if = "Option::is_none")]
    taken_at: Option<&'a Path>,
}

#[derive(Serialize)]
struct ListedSession<'a> {
    session: &'a str,
    host: &'a str,
    #[serde(rename = "ref")]
    reference: &'a str,
    snapshots: usize,
    newest: String,
}

#[derive(Serialize)]
struct Listing<'a> {
    version: u32,
    sessions: Vec<ListedSession<'a>>,
    files: Vec<ListedFile<'a>>,
    skipped: Vec<&'a Skip>,
    /// Commits retention refs keep that no branch holds.
    commits: Vec<Unheld>,
    /// Stash commits kept that are in no stash entry now.
    stashes: Vec<Dropped>,
    /// What is kept here of nested repositories that they no longer have.
    #[serde(flatten)]
    nested: Kept,
}

pub(super) fn list(
    catalog: &Catalog,
    args: &Args,
    (commits, stashes): (Vec<Unheld>, Vec<Dropped>),
    nested: Kept,
) -> Result<ExitCode> {
    let filter = args.session.as_deref();
    let mut files = Vec::new();
    for ((root, path), versions) in &catalog.files {
        let mut sessions: Vec<&str> = Vec::new();
        for v in versions {
            if session_matches(&v.session, filter) && !sessions.contains(&v.session.as_str()) {
                sessions.push(&v.session);
            }
        }
        for id in sessions {
            let own: Vec<&Version> = versions.iter().filter(|v| v.session == id).collect();
            let (Some(v), reverted) = catalog.pick(root, path, own.iter().copied(), Some(id), None)
            else {
                continue;
            };
            files.push(ListedFile {
                session: &v.session,
                host: &v.host,
                worktree: root,
                worktree_exists: crate::git::worktree_at(root).is_some(),
                nested: catalog.nested_home(root).is_some(),
                path,
                at: when(v.at),
                commit: &v.commit,
                versions: own.len(),
                working_copy: state_of(catalog, root, path, v),
                origin: v.origin.map(Origin::name),
                reverted_at: reverted.map(|r| when(r.at)),
                taken_at: v.taken_at.as_deref(),
            });
        }
    }
    files.sort_by(|a, b| (a.session, a.worktree, a.path).cmp(&(b.session, b.worktree, b.path)));
    let sessions: Vec<ListedSession<'_>> = catalog
        .sessions
        .iter()
        .filter(|s| session_matches(&s.0, filter))
        .map(|s| ListedSession {
            session: &s.0,
            host: &s.1,
            reference: &s.2,
            snapshots: s.3,
            newest: when(s.4),
        })
        .collect();
    // A file left out as ignored where it was written but kept all the same (a nested
    // repository's, in the enclosing one's snapshot) is kept: not listed as not kept. Other
    // reasons (a FIFO where a kept file was) stand.
    let kept = |k: &Skip| {
        let at = super::file_in(&k.worktree, &k.path);
        k.reason == crate::cli::hook::snap::IGNORED
            && files
                .iter()
                .any(|f| f.session == k.session && super::file_in(f.worktree, f.path) == at)
    };
    let skipped: Vec<&Skip> = catalog
        .skipped
        .iter()
        .filter(|s| session_matches(&s.session, filter) && !kept(s))
        .collect();
    let found = !files.is_empty()
        || !skipped.is_empty()
        || !commits.is_empty()
        || !stashes.is_empty()
        || !nested.is_empty();
    if args.json {
        let listing = Listing {
            version: 1,
            sessions,
            files,
            skipped,
            commits,
            stashes,
            nested,
        };
        println!("{}", serde_json::to_string_pretty(&listing)?);
    } else if !found {
        println!("nothing to recover: no snapshots here");
    } else {
        if !files.is_empty() || !skipped.is_empty() {
            print_listing(&sessions, &files, &skipped, &catalog.moved);
        }
        print_commits(&commits);
        print_stashes(&stashes);
        nested.print(&catalog.common_dir);
    }
    if !args.json {
        print_submodules(&catalog.common_dir);
    }
    Ok(ExitCode::from(if found { 0 } else { 1 }))
}

/// Stash commits in no stash entry now, each with the commands that bring it back.
fn print_stashes(stashes: &[Dropped]) {
    for d in stashes {
        // git stash reads a name of digits alone as `stash@{N}`: such a short id is given whole.
        let short = match crate::git::lanes::short_sha(&d.commit) {
            s if s.bytes().all(|b| b.is_ascii_digit()) => d.commit.as_str(),
            s => s,
        };
        println!(
            "stash commit {short} ({}) is in no stash entry now (kept by {}): git stash apply \
             {short} (or list it again: git stash store {short})",
            shown(&d.subject),
            shown(&d.reference)
        );
    }
}

/// Commits no branch holds, each with the command that makes a branch of it again.
fn print_commits(commits: &[Unheld]) {
    for c in commits {
        let short = crate::git::lanes::short_sha(&c.commit);
        if let Some(full) = c.branch.strip_prefix("refs/") {
            // Kept for a tag or a ref outside the branches: made again under its own name.
            let again = match (full.strip_prefix("tags/"), c.branch_exists) {
                (Some(tag), false) => format!("git tag {} {short}", shown(tag)),
                (Some(tag), true) => format!("git tag {}-recovered {short}", shown(tag)),
                (None, false) => format!("git update-ref {} {short}", shown(&c.branch)),
                (None, true) => format!("git update-ref {}-recovered {short}", shown(&c.branch)),
            };
            println!(
                "commit {short} of {} is in no ref now (kept by {}): {again}",
                shown(&c.branch),
                shown(&c.reference)
            );
            continue;
        }
        let name = if c.branch_exists || c.branch.starts_with("detached/") {
            format!("{}-recovered", c.branch.replace('/', "-"))
        } else {
            c.branch.clone()
        };
        println!(
            "commit {short} of {} is on no branch now (kept by {}): git branch {} {short}",
            shown(&c.branch),
            shown(&c.reference),
            shown(&name)
        );
    }
}

fn print_listing(
    sessions: &[ListedSession<'_>],
    files: &[ListedFile<'_>],
    skipped: &[&Skip],
    moved: &std::collections::BTreeMap<std::path::PathBuf, Vec<std::path::PathBuf>>,
) {
    for s in sessions {
        println!(
            "session {} ({}), {} snapshot{}, newest {}",
            shown(short_id(s.session)),
            s.host,
            s.snapshots,
            if s.snapshots == 1 { "" } else { "s" },
            s.newest
        );
        let mut last_root: Option<&Path> = None;
        for f in files.iter().filter(|f| f.session == s.session) {
            if last_root != Some(f.worktree) {
                last_root = Some(f.worktree);
                let root = shown(&f.worktree.to_string_lossy());
                if f.worktree_exists
                    && let Some(formers) = moved.get(f.worktree)
                {
                    let was: Vec<String> = formers.iter().map(|p| super::shown_path(p)).collect();
                    println!(
                        "  {root} (snapshotted at {} before it moved here)",
                        was.join(", ")
                    );
                } else if f.worktree_exists {
                    println!("  {root}");
                } else if f.nested {
                    let arg = crate::shell::quote_word(&root);
                    println!(
                        "  {root} (gone, a repository of its own: git dibs recover {arg} brings its files back)"
                    );
                } else {
                    let arg = crate::shell::quote_word(&root);
                    println!("  {root} (gone: git dibs recover --worktree {arg})");
                }
            }
            let origin = match f.origin {
                Some(o @ ("sweep" | "kept")) => format!("  [{o}]"),
                _ => String::new(),
            };
            let reverted = f.reverted_at.as_ref().map_or(String::new(), |t| {
                format!("  (put back to the committed content at {t}; recover brings back this)")
            });
            println!(
                "    {}  {}  {}{origin}{reverted}",
                f.at,
                f.working_copy,
                shown(f.path)
            );
        }
        for k in skipped.iter().filter(|k| k.session == s.session) {
            println!(
                "  not kept: {} ({}, {})",
                super::shown_path(&super::file_in(&k.worktree, &k.path)),
                shown(&k.reason),
                when(k.at)
            );
        }
    }
    println!(
        "bring one back: git dibs recover PATH   (a current file kept nowhere else is not \
         overwritten: the snapshot goes beside it; --force keeps a copy, then overwrites)"
    );
}

/// Submodules keep their snapshots in their own repositories: name those that hold some.
fn print_submodules(common_dir: &Path) {
    for (name, git_dir) in crate::git::gitdir::submodule_repos(common_dir) {
        if crate::store::Store::with_snapshots(&git_dir).is_some() {
            println!(
                "submodule {} keeps snapshots of its own: git dibs recover inside it (git -C {} \
                 dibs recover); if it is gone, git submodule update --init {} first",
                shown(&name),
                shown(&name),
                shown(&name)
            );
        }
    }
}
