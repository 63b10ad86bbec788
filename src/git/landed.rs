//! Whether a branch's or commit's work is on the remote base: an ancestor of it; else
//! patch-equivalent, commit by commit (`git cherry`, for rebases and cherry-picks) or as one
//! squashed diff (for squash merges); else a merged pull request for the branch (`gh`, skipped
//! when `gh` is missing, offline or slow).

use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;

use super::lanes::{LaneError, LaneRepo, git, git_command, short_sha};

/// How many base commits the squash test compares against at most.
const SQUASH_WINDOW: &str = "2000";

/// Which test answered, or that none did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    /// The commit is the remote base or one of its ancestors.
    Ancestor,
    /// Every commit not on the base has a patch-equivalent commit there (`git cherry`).
    PatchEquivalent {
        /// How many commits were matched.
        commits: usize,
    },
    /// The whole diff since the merge base equals one commit on the base (a squash merge).
    Squashed {
        /// That commit on the base.
        commit: String,
    },
    /// A merged pull request has this branch as its head.
    MergedPullRequest {
        /// Its number.
        number: u64,
        /// Its web address.
        url: String,
    },
    /// No test said landed.
    NotLanded,
}

/// The full answer: the remote base used, which test answered, and notes on skipped tests.
#[derive(Debug, Clone)]
pub(crate) struct Report {
    /// The commit asked about.
    pub(crate) commit: String,
    /// The remote-tracking ref compared against.
    pub(crate) base: String,
    /// The verdict.
    pub(crate) answer: Answer,
    /// Tests that could not run, and why.
    pub(crate) notes: Vec<String>,
}

/// Ask whether `spec` (a branch or commit) has landed on `base` (a ref; default: the remote
/// base of the lane's recorded base, else `origin/HEAD`, `origin/main`, `origin/master`).
/// `ask_gh` allows the pull request test.
pub(crate) fn landed(
    dir: &Path,
    spec: &str,
    base: Option<&str>,
    ask_gh: bool,
) -> Result<Report, LaneError> {
    let repo = LaneRepo::open(dir)?;
    let not_found = |what: &str| {
        LaneError::Unanswerable(format!(
            "`{}` names no commit here; name a branch, a tag or a commit id",
            crate::text::clean(what, crate::text::MAX_SHOWN)
        ))
    };
    let commit = repo.commit_of(spec).ok_or_else(|| not_found(spec))?;
    let branch = repo
        .branch_tip(spec)
        .map(|_| spec.trim_start_matches("refs/heads/").to_owned());
    let base_ref = match base {
        Some(b) => repo.full_ref_name(b).unwrap_or_else(|| b.to_owned()),
        None => {
            let lane_base = branch.as_deref().and_then(|b| repo.lane_base(b));
            repo.remote_base(lane_base.as_deref()).ok_or_else(|| {
                LaneError::Unanswerable(
                    "no base to compare with: this branch has no upstream and there is no \
                         origin/HEAD, origin/main or origin/master; name the branch to compare with \
                         (--base BRANCH)"
                        .into(),
                )
            })?
        }
    };
    let base_tip = repo
        .commit_of(&base_ref)
        .ok_or_else(|| not_found(&base_ref))?;
    let mut report = Report {
        commit: commit.clone(),
        base: base_ref.clone(),
        answer: Answer::NotLanded,
        notes: Vec::new(),
    };
    if repo.is_ancestor(&commit, &base_tip) {
        report.answer = Answer::Ancestor;
        return Ok(report);
    }
    let cherry = git(dir, &["cherry", &base_tip, &commit])?;
    let lines: Vec<&str> = cherry.lines().filter(|l| !l.trim().is_empty()).collect();
    if !lines.is_empty() && lines.iter().all(|l| l.starts_with('-')) {
        report.answer = Answer::PatchEquivalent {
            commits: lines.len(),
        };
        return Ok(report);
    }
    if let Some(mb) = repo.merge_base(&commit, &base_tip)
        && let Some(found) = squashed_into(dir, &mb, &commit, &base_tip)?
    {
        report.answer = Answer::Squashed { commit: found };
        return Ok(report);
    }
    match (&branch, ask_gh) {
        (Some(b), true) => match merged_pull_request(dir, b) {
            Ok(Some((number, url))) => {
                report.answer = Answer::MergedPullRequest { number, url };
            }
            Ok(None) => {}
            Err(why) => report
                .notes
                .push(format!("pull request test skipped: {why}")),
        },
        (Some(_), false) => report
            .notes
            .push("pull request test skipped (--offline)".into()),
        (None, _) => report
            .notes
            .push("pull request test skipped (a commit, not a branch)".into()),
    }
    Ok(report)
}

/// Patch ids (`git patch-id --stable`) of the text `patch`: `(patch id, commit id)` lines.
fn patch_ids(dir: &Path, patch: &[u8]) -> Result<Vec<(String, String)>, LaneError> {
    let mut child = git_command(dir)
        .args(["patch-id", "--stable"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(LaneError::Spawn)?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let input = patch.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut text = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut text);
    }
    let _ = writer.join();
    let _ = child.wait();
    Ok(text
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            Some((parts.next()?.to_owned(), parts.next()?.to_owned()))
        })
        .collect())
}

/// The commit between `mb` and `base` whose patch equals the whole diff `mb..tip`, if any.
fn squashed_into(dir: &Path, mb: &str, tip: &str, base: &str) -> Result<Option<String>, LaneError> {
    let diff = git_command(dir)
        .args([
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--full-index",
            mb,
            tip,
        ])
        .output()
        .map_err(LaneError::Spawn)?;
    if diff.stdout.is_empty() {
        return Ok(None);
    }
    let mut whole = b"commit 0000000000000000000000000000000000000000\n\n".to_vec();
    whole.extend_from_slice(&diff.stdout);
    let Some((wanted, _)) = patch_ids(dir, &whole)?.into_iter().next() else {
        return Ok(None);
    };
    let range = format!("{mb}..{base}");
    let log = git_command(dir)
        .args([
            "log",
            "-p",
            "--no-color",
            "--no-ext-diff",
            "--full-index",
            "--no-merges",
        ])
        .args(["--max-count", SQUASH_WINDOW, &range])
        .output()
        .map_err(LaneError::Spawn)?;
    Ok(patch_ids(dir, &log.stdout)?
        .into_iter()
        .find(|(id, _)| *id == wanted)
        .map(|(_, c)| c))
}

/// The first merged pull request whose head is `branch`; `Err` says why the test was skipped.
fn merged_pull_request(dir: &Path, branch: &str) -> Result<Option<(u64, String)>, String> {
    let list = super::gh::pr_list(dir, branch, "merged", "number,url")?;
    Ok(list.into_iter().next().map(|p| (p.number, p.url)))
}

impl Answer {
    /// One line saying which test answered.
    pub(crate) fn describe(&self, base: &str) -> String {
        let base = base.trim_start_matches("refs/remotes/");
        match self {
            Answer::Ancestor => format!("landed: ancestor of {base}"),
            Answer::PatchEquivalent { commits } => format!(
                "landed: patch-equivalent to commits on {base} (git cherry, {commits} commit{})",
                if *commits == 1 { "" } else { "s" }
            ),
            Answer::Squashed { commit } => {
                format!("landed: squashed into {} on {base}", short_sha(commit))
            }
            Answer::MergedPullRequest { number, url } => {
                format!("landed: pull request #{number} was merged {url}")
            }
            Answer::NotLanded => format!("not landed on {base}"),
        }
    }
}
