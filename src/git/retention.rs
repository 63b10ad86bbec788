//! Retention refs: while a commit exists on no remote-tracking ref, a local ref
//! `refs/dibs/retention/<branch>/<short sha>` (the full id when another commit has that name;
//! `refs/dibs/retention/refs/tags/<tag>/…` for a tag or a ref outside the branches) keeps it (and its ancestors) reachable, so
//! `git branch -D` plus `git gc --prune=now` cannot drop it. A ref is dropped once its commit is
//! on a remote, or when another retention ref already contains it. With `dibs.retentionPush=true`
//! the work is also pushed: the branch to its upstream, or a tag `retention/<slug>-<short sha>`
//! when the upstream is gone. Pushing is never the default.

use std::path::Path;

use super::lanes::{LaneError, LaneRepo, checked_out_branch, git, short_sha};

mod fingerprint;
mod gone;
mod moved;
mod unheld;
pub(crate) use fingerprint::branch_fingerprint;
pub(crate) use gone::is_kept_ref;
pub(crate) use moved::{RefMove, forward_by_reflog, keep_moved, old_from_reflog};
pub(crate) use unheld::{Unheld, unheld};

/// The prefix of every retention ref.
pub(crate) const RETENTION_PREFIX: &str = "refs/dibs/retention/";

/// What one retention call did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Retained {
    /// Retention refs created.
    pub(crate) created: Vec<String>,
    /// Retention refs dropped because their commit reached a remote.
    pub(crate) dropped: Vec<String>,
    /// Retention refs dropped because another retention ref holds their commit: `(dropped,
    /// the ref that holds it)`.
    pub(crate) covered: Vec<(String, String)>,
    /// What was pushed (`<remote> <refspec>`), with `dibs.retentionPush`.
    pub(crate) pushed: Vec<String>,
    /// Pushes that failed (they never fail the call).
    pub(crate) push_errors: Vec<String>,
}

impl Retained {
    /// Add what another call did to this one's account.
    fn absorb(&mut self, other: Retained) {
        self.created.extend(other.created);
        self.dropped.extend(other.dropped);
        self.covered.extend(other.covered);
        self.pushed.extend(other.pushed);
        self.push_errors.extend(other.push_errors);
    }
}

/// The retention ref name for `commit` kept for `branch`.
pub(crate) fn retention_ref(branch: &str, commit: &str) -> String {
    format!("{RETENTION_PREFIX}{branch}/{}", short_sha(commit))
}

/// Keep local branch `branch`'s unpushed commits: a retention ref on its tip when the tip is on
/// no remote-tracking ref; then sweep. Call after a commit and before deleting the branch.
pub(crate) fn retain_branch(repo_dir: &Path, branch: &str) -> Result<Retained, LaneError> {
    let repo = LaneRepo::open(repo_dir)?;
    let Some(tip) = repo.branch_tip(branch) else {
        return Ok(Retained::default());
    };
    retain_commit(repo_dir, &repo, branch, &tip, None)
}

/// Keep the HEAD of the worktree at `root` (its branch, or `detached/<folder>` when detached).
/// Call after a commit there, and before removing that worktree.
pub(crate) fn retain_head(root: &Path) -> Result<Retained, LaneError> {
    let Some(wt) = super::worktree_at(root) else {
        return Ok(Retained::default());
    };
    let repo = LaneRepo::open(root)?;
    let Some(head) = repo.commit_of("HEAD") else {
        return Ok(Retained::default());
    };
    let label = checked_out_branch(&wt.git_dir).unwrap_or_else(|| {
        let folder = root.file_name().map(|n| n.to_string_lossy().into_owned());
        format!("detached/{}", folder.unwrap_or_else(|| "worktree".into()))
    });
    retain_commit(root, &repo, &label, &head, None)
}

/// Keep the commits of every local branch (for a sweep after many commits, or before a
/// command that may delete several branches).
pub(crate) fn retain_all(repo_dir: &Path) -> Result<Retained, LaneError> {
    let repo = LaneRepo::open(repo_dir)?;
    let mut all = Retained::default();
    for (name, tip) in repo.refs_under("refs/heads/") {
        let branch = name.trim_start_matches("refs/heads/");
        let r = retain_commit(repo_dir, &repo, branch, &tip, None)?;
        all.absorb(r);
    }
    Ok(all)
}

/// Keep what remote branch `<remote>/<branch>` holds before it is deleted on the remote: its
/// tip counts as unpushed when no other remote-tracking ref contains it. Call before
/// `git push <remote> --delete <branch>`.
pub(crate) fn retain_remote_branch(
    repo_dir: &Path,
    remote: &str,
    branch: &str,
) -> Result<Retained, LaneError> {
    let repo = LaneRepo::open(repo_dir)?;
    let tracking = format!("refs/remotes/{remote}/{branch}");
    let Some(tip) = repo.ref_tip(&tracking) else {
        return Ok(Retained::default());
    };
    retain_commit(repo_dir, &repo, branch, &tip, Some(&tracking))
}

/// The newest commit a retention ref keeps for `branch` (the one the others are ancestors of,
/// else the first by name); `None` when none is kept.
pub(crate) fn retained_tip(repo_dir: &Path, branch: &str) -> Option<String> {
    let repo = LaneRepo::open(repo_dir).ok()?;
    let tips: Vec<String> = repo
        .refs_under(&format!("{RETENTION_PREFIX}{branch}/"))
        .into_iter()
        .map(|(_, tip)| tip)
        .collect();
    tips.iter()
        .find(|t| tips.iter().all(|o| o == *t || repo.is_ancestor(o, t)))
        .or(tips.first())
        .cloned()
}

/// Whether some remote-tracking ref other than `except` contains `commit`.
fn on_remote_except(repo: &LaneRepo, commit: &str, except: Option<&str>) -> bool {
    repo.refs_under("refs/remotes/")
        .iter()
        .filter(|(name, _)| Some(name.as_str()) != except)
        .any(|(_, tip)| repo.is_ancestor(commit, tip))
}

fn retain_commit(
    dir: &Path,
    repo: &LaneRepo,
    label: &str,
    commit: &str,
    except: Option<&str>,
) -> Result<Retained, LaneError> {
    let mut out = Retained::default();
    let (name, unpushed) = create_retention(dir, repo, label, commit, except, &mut out)?;
    if unpushed && repo.config_bool("dibs.retentionPush") && except.is_none() {
        push(dir, repo, label, commit, &mut out);
    }
    let keep = except.map(|_| name.as_str());
    let swept = sweep_with(dir, &LaneRepo::open(dir)?, keep)?;
    out.dropped = swept.dropped;
    out.covered = swept.covered;
    // A ref made here and swept at once (another retention ref already keeps the commit) was
    // never news: say neither.
    if let Some(i) = out.covered.iter().position(|(n, _)| *n == name)
        && out.created.contains(&name)
    {
        out.covered.remove(i);
        out.created.retain(|n| *n != name);
    }
    Ok(out)
}

/// Keep `commit` for `label` by a retention ref unless it is on a remote-tracking ref other
/// than `except`; a new ref goes into `out.created`. Returns the ref's name and whether the
/// commit is on no such remote.
fn create_retention(
    dir: &Path,
    repo: &LaneRepo,
    label: &str,
    commit: &str,
    except: Option<&str>,
    out: &mut Retained,
) -> Result<(String, bool), LaneError> {
    let mut name = retention_ref(label, commit);
    // Another commit whose id starts with the same seven digits is kept there already: this
    // one is named by its full id.
    if repo.ref_tip(&name).is_some_and(|t| t != commit) {
        name = format!("{RETENTION_PREFIX}{label}/{commit}");
    }
    let unpushed = !on_remote_except(repo, commit, except);
    if unpushed && repo.ref_tip(&name).is_none() {
        let msg = "git-dibs: retain unpushed work";
        git(dir, &["update-ref", "-m", msg, &name, commit, ""])?;
        out.created.push(name.clone());
    }
    Ok((name, unpushed))
}

/// Push `commit` of `branch`: the branch to its upstream when that still exists, else a tag.
fn push(dir: &Path, repo: &LaneRepo, branch: &str, commit: &str, out: &mut Retained) {
    let upstream = repo.upstream_ref(branch);
    let remote = upstream.as_ref().map(|(r, _)| r.clone()).or_else(|| {
        let remotes = git(dir, &["remote"]).ok()?;
        let names: Vec<&str> = remotes.lines().collect();
        names
            .iter()
            .find(|n| **n == "origin")
            .or(names.first())
            .map(|s| (*s).to_owned())
    });
    let Some(remote) = remote else {
        out.push_errors
            .push("no remote to push retention to".into());
        return;
    };
    let merge = repo.config(&format!("branch.{branch}.merge"));
    let upstream_alive = upstream
        .as_ref()
        .is_some_and(|(_, r)| repo.ref_tip(r).is_some());
    if let (true, Some(merge)) = (upstream_alive, merge) {
        let spec = format!("refs/heads/{branch}:{merge}");
        match git(
            dir,
            &["push", "--quiet", "--end-of-options", &remote, &spec],
        ) {
            Ok(_) => {
                out.pushed.push(format!("{remote} {spec}"));
                return;
            }
            Err(e) => out.push_errors.push(e.to_string()),
        }
    }
    let slug: String = branch
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let spec = format!("{commit}:refs/tags/retention/{slug}-{}", short_sha(commit));
    match git(
        dir,
        &["push", "--quiet", "--end-of-options", &remote, &spec],
    ) {
        Ok(_) => out.pushed.push(format!("{remote} {spec}")),
        Err(e) => out.push_errors.push(e.to_string()),
    }
}

/// Drop retention refs whose commit is on a remote-tracking ref, or is contained in another
/// retention ref. Returns what was dropped, and why.
pub(crate) fn sweep(repo_dir: &Path) -> Result<Retained, LaneError> {
    sweep_with(repo_dir, &LaneRepo::open(repo_dir)?, None)
}

fn sweep_with(dir: &Path, repo: &LaneRepo, keep: Option<&str>) -> Result<Retained, LaneError> {
    let refs = repo.refs_under(RETENTION_PREFIX);
    let mut out = Retained::default();
    let gone = |out: &Retained, name: &String| {
        out.dropped.contains(name) || out.covered.iter().any(|(n, _)| n == name)
    };
    for (i, (name, tip)) in refs.iter().enumerate() {
        if Some(name.as_str()) == keep {
            continue;
        }
        let holder = refs.iter().enumerate().find(|(j, (other, t))| {
            *j != i && !gone(&out, other) && (t != tip || *j < i) && repo.is_ancestor(tip, t)
        });
        if repo.on_remote(tip) {
            git(dir, &["update-ref", "-d", name, tip])?;
            out.dropped.push(name.clone());
        } else if let Some((_, (other, _))) = holder {
            git(dir, &["update-ref", "-d", name, tip])?;
            out.covered.push((name.clone(), other.clone()));
        }
    }
    Ok(out)
}

/// Keep every local branch whose tip moved since `before` (full ref name to commit): a
/// retention ref on each new tip that is on no remote, so a branch made or moved by any means
/// and then deleted keeps its commits. A remote-tracking ref (`refs/remotes/*`) that moved other
/// than forward, or went, gets its old tip kept instead while no other remote-tracking ref
/// holds it (a force push over it, a fetch after someone else's, a prune), as
/// `refs/dibs/retention/remotes/<remote>/<branch>/<short sha>`. Looks at [`MAX_MOVED`] moved
/// refs at most per call. Returns what it did, the tips as now known (a ref not looked at keeps
/// its old entry, or none), and whether every moved ref was looked at. Retention and kept-stash
/// refs are among the tips; those deleted from outside git-dibs, and branches that went, are
/// put back as [`gone`] says (stash commits made before `stash_since` are let go).
pub(crate) fn retain_moved_branches(
    repo_dir: &Path,
    before: &std::collections::BTreeMap<String, String>,
    stash_since: i64,
) -> Result<(Retained, std::collections::BTreeMap<String, String>, bool), LaneError> {
    let repo = LaneRepo::open(repo_dir)?;
    let mut all = Retained::default();
    let mut now = std::collections::BTreeMap::new();
    let mut moved = 0;
    let mut complete = true;
    let remotes = repo.refs_under("refs/remotes/");
    // Tags and other namespaces: the first time they are looked at, only a commit made in the
    // last ten minutes is taken for the command's own; the rest predates it and is only noted.
    let others_seen = before.contains_key(OTHERS_SEEN);
    let recent = |tip: &str| {
        let since = crate::store::now_secs().saturating_sub(super::reflog::FIRST_LOOK_SECS);
        repo.commit_of(tip)
            .and_then(|c| repo.commit_time(&c))
            .is_some_and(|t| u64::try_from(t).unwrap_or(0) >= since)
    };
    now.insert(OTHERS_SEEN.to_owned(), String::new());
    for (name, tip) in repo
        .refs_under("refs/heads/")
        .into_iter()
        .chain(remotes.clone())
        .chain(repo.other_refs())
    {
        let old = before.get(&name);
        let other = !name.starts_with("refs/heads/") && !name.starts_with("refs/remotes/");
        if old == Some(&tip) || (other && !others_seen && !recent(&tip)) {
            now.insert(name, tip);
            continue;
        }
        let tracking = name.strip_prefix("refs/remotes/");
        if tracking.is_some() && old.is_none_or(|o| repo.is_ancestor(o, &tip)) {
            // New, or moved forward: the old tip is still on it.
            now.insert(name, tip);
            continue;
        }
        if moved == MAX_MOVED {
            complete = false;
            if let Some(old) = old {
                now.insert(name, old.clone());
            }
            continue;
        }
        moved += 1;
        let r = match (tracking, old) {
            (Some(label), Some(old)) => keep_tracking_tip(repo_dir, &repo, label, old, &name)?,
            _ if other => match repo.commit_of(&tip) {
                // A tag of a tree or a blob holds no commit.
                Some(commit) => retain_commit(repo_dir, &repo, &name, &commit, None)?,
                None => Retained::default(),
            },
            _ => {
                let branch = name.trim_start_matches("refs/heads/");
                let mut r = retain_commit(repo_dir, &repo, branch, &tip, None)?;
                // Moved other than forward (a reset, `branch -f`): its old tip too, whose
                // retention may have gone while it was on a remote.
                if let Some(old) = old.filter(|o| !repo.is_ancestor(o, &tip))
                    && repo.commit_of(old).is_some()
                {
                    r.absorb(retain_commit(repo_dir, &repo, branch, old, None)?);
                }
                r
            }
        };
        all.absorb(r);
        now.insert(name, tip);
    }
    // Remote-tracking refs that went (`fetch --prune`, `push --delete`, `remote remove`).
    for (name, old) in before.range("refs/remotes/".to_owned()..) {
        let Some(label) = name.strip_prefix("refs/remotes/") else {
            break;
        };
        if remotes.iter().any(|(n, _)| n == name) {
            continue;
        }
        if moved == MAX_MOVED {
            complete = false;
            now.insert(name.clone(), old.clone());
            continue;
        }
        moved += 1;
        all.absorb(keep_tracking_tip(repo_dir, &repo, label, old, name)?);
    }
    now.extend(gone::kept_refs(&repo));
    all.absorb(gone::put_back(
        repo_dir,
        &repo,
        before,
        &mut now,
        stash_since,
    )?);
    Ok((all, now, complete))
}

/// Keep `old`, the tip remote-tracking ref `name` (`<remote>/<branch>` as `label`) held, when
/// the object is still here and no other remote-tracking ref contains it; never pushed.
fn keep_tracking_tip(
    dir: &Path,
    repo: &LaneRepo,
    label: &str,
    old: &str,
    name: &str,
) -> Result<Retained, LaneError> {
    if repo.commit_of(old).is_none() {
        return Ok(Retained::default());
    }
    retain_commit(dir, repo, &format!("remotes/{label}"), old, Some(name))
}

/// The entry of the known tips that says tags and other namespaces were looked at before.
const OTHERS_SEEN: &str = "refs/dibs/.others-seen";

/// How many moved branches one call of [`retain_moved_branches`] keeps at most.
pub(crate) const MAX_MOVED: usize = 64;

/// How many reflog commits one call of [`retain_reflog_commits`] looks at (the newest).
pub(crate) const MAX_REFLOG_COMMITS: usize = 32;

/// Keep commits the reflogs gained (`label`, full id; see [`super::reflog::gained`]) that no
/// local branch and no retention ref contains and that are on no remote: a command that made a
/// commit and moved away from it (`git commit && git reset --hard HEAD~1`) leaves it only in a
/// reflog, which `git reflog expire` empties.
pub(crate) fn retain_reflog_commits(
    repo_dir: &Path,
    gained: &[(String, String)],
) -> Result<Retained, LaneError> {
    if gained.is_empty() {
        return Ok(Retained::default());
    }
    let repo = LaneRepo::open(repo_dir)?;
    let mut all = Retained::default();
    let mut seen: Vec<&str> = Vec::new();
    for (label, commit) in gained.iter().rev() {
        if seen.contains(&commit.as_str()) || seen.len() == MAX_REFLOG_COMMITS {
            continue;
        }
        seen.push(commit);
        if repo.commit_of(commit).is_none() {
            continue;
        }
        let holders = repo
            .refs_under("refs/heads/")
            .into_iter()
            .chain(repo.refs_under(RETENTION_PREFIX));
        if holders
            .into_iter()
            .any(|(_, tip)| repo.is_ancestor(commit, &tip))
        {
            continue;
        }
        let r = retain_commit(repo_dir, &repo, label, commit, None)?;
        all.absorb(r);
    }
    Ok(all)
}

/// Whether `commit` (in the repository of `root`) was committed while a command that just
/// ended ran (`took`; ten minutes when the host does not say), by its committer time and the
/// system clock: a HEAD moved to an older commit (a checkout, a reset) was not made by it.
pub(crate) fn committed_within(
    root: &Path,
    commit: &str,
    took: Option<std::time::Duration>,
) -> bool {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let window = took.map_or(600, |d| d.as_secs().saturating_add(30));
    let from = now.saturating_sub(i64::try_from(window).unwrap_or(i64::MAX));
    LaneRepo::open(root)
        .ok()
        .and_then(|r| r.commit_time(commit))
        .is_some_and(|t| t >= from && t <= now.saturating_add(5))
}
