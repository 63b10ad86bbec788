//! The remote side of `git dibs sync`: listing, fetching and compare-and-swap pushing of the
//! refs under `refs/dibs/` with the real `git` (so its transports, credentials and ssh settings
//! apply), every call bounded in time; and writing and reading the small parentless commits
//! those refs point at, with git2 (with git's plumbing in a repository libgit2 cannot open).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::cli::CliRepo;
use super::run::{self, Finished, RunError};

/// How long one `git ls-remote`, `fetch` or `push` may take.
pub(crate) const NETWORK_TIMEOUT: Duration = Duration::from_secs(30);

/// What can go wrong talking to the remote.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SyncError {
    /// No remote is configured and none was named.
    #[error(
        "this repository has no remote to sync with; name one (`git dibs sync REMOTE`) or set \
         `git config dibs.remote NAME`"
    )]
    NoRemote,
    /// The remote could not be reached (offline, wrong URL, refused, timed out).
    #[error(
        "cannot reach remote `{remote}` ({detail}); check it with `git ls-remote {}`",
        crate::text::shell_word(.remote)
    )]
    Unreachable {
        /// The remote's name or URL.
        remote: String,
        /// What git said.
        detail: String,
    },
    /// The remote lists more under `refs/dibs/` than a sync reads.
    #[error(
        "remote `{remote}` lists more refs under refs/dibs/ than git-dibs reads ({detail}); \
         someone pushed far more than sessions and claims make: look with `git ls-remote \
         {} 'refs/dibs/*' | wc -l` and delete what is not yours to keep",
        crate::text::shell_word(.remote)
    )]
    TooLarge {
        /// The remote's name or URL.
        remote: String,
        /// How much.
        detail: String,
    },
    /// A remote name or URL git would read as something else (an option, nothing at all).
    #[error("{0}")]
    BadRemote(BadRemote),
    /// A local git operation failed.
    #[error("git failed while syncing: {0}")]
    Local(String),
}

/// Where a remote name came from, for the message that refuses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RemoteSource {
    /// Named on the command line (`git dibs sync REMOTE`).
    Argument,
    /// The `dibs.remote` setting.
    Setting,
    /// The one remote configured in this repository, picked for want of another.
    Configured,
}

/// A remote name or URL that is refused before git sees it, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BadRemote {
    /// The value, cleaned for showing.
    shown: String,
    /// What is wrong with it.
    why: &'static str,
    /// Where it came from.
    source: RemoteSource,
}

impl std::fmt::Display for BadRemote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown = &self.shown;
        let why = self.why;
        match self.source {
            RemoteSource::Argument => write!(
                f,
                "`{shown}` is not a remote: {why}; name one of the remotes `git remote -v` \
                 lists (`git dibs sync origin`), or a repository's URL or path"
            ),
            RemoteSource::Setting => write!(
                f,
                "the setting dibs.remote (`{shown}`) is not a remote: {why}; set it to one of \
                 the remotes `git remote -v` lists (`git config dibs.remote origin`), or remove \
                 it (`git config --unset dibs.remote`)"
            ),
            RemoteSource::Configured => write!(
                f,
                "the remote configured here as `{shown}` is not one git-dibs uses: {why}; name \
                 the remote to sync with (`git dibs sync NAME`, or `git config dibs.remote \
                 NAME`), or give that remote a plain name in .git/config"
            ),
        }
    }
}

/// Check that `value` (a remote's name, URL or path) is one git reads as a repository and
/// never as an option: not empty, not starting with `-`, no control characters.
pub(crate) fn check_remote(value: &str, source: RemoteSource) -> Result<(), BadRemote> {
    let why = if value.trim().is_empty() {
        "it is empty"
    } else if value.starts_with('-') {
        "it starts with `-`, so git would read it as an option"
    } else if value.chars().any(char::is_control) {
        "it holds a control character (a line break, a tab, an escape)"
    } else {
        return Ok(());
    };
    Err(BadRemote {
        shown: crate::text::clean(value, crate::text::MAX_NOTE),
        why,
        source,
    })
}

/// The most ref listing a sync reads from `git ls-remote` (about 100,000 refs).
pub(crate) const MAX_LISTING: usize = 8 << 20;
/// The most commits one `git fetch` is asked for (its command line stays short).
const FETCH_CHUNK: usize = 500;

impl From<git2::Error> for SyncError {
    fn from(e: git2::Error) -> Self {
        SyncError::Local(e.message().to_owned())
    }
}

/// A ref on the remote and the commit it points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RemoteRef {
    /// The full ref name.
    pub(crate) name: String,
    /// The commit id (hex).
    pub(crate) oid: String,
}

/// One compare-and-swap update of a remote ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RefUpdate {
    /// The full ref name.
    pub(crate) name: String,
    /// The new commit id; `None` deletes the ref.
    pub(crate) new: Option<String>,
    /// The value the ref must have now; `None` means it must not exist.
    pub(crate) expect: Option<String>,
}

/// The remote's answer to one update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PushOutcome {
    /// The full ref name.
    pub(crate) name: String,
    /// Whether the update took effect (or there was nothing to do).
    pub(crate) ok: bool,
    /// Git's summary (`[rejected] (stale info)`, `[new reference]`, …).
    pub(crate) summary: String,
}

/// One repository's view of one remote's `refs/dibs/`.
pub(crate) struct DibsRemote {
    /// libgit2's handle, or `None` for a repository read and written through git (`cli`).
    repo: Option<git2::Repository>,
    cli: Option<CliRepo>,
    git_dir: PathBuf,
    remote: String,
}

impl DibsRemote {
    /// Open the repository whose git dir is `git_dir` and pick the remote: `named`, else
    /// `preferred` (the `dibs.remote` setting), else `origin`, else the only remote.
    pub(crate) fn open(
        git_dir: &Path,
        named: Option<&str>,
        preferred: Option<String>,
    ) -> Result<DibsRemote, SyncError> {
        let (repo, cli) = match git2::Repository::open(git_dir) {
            Ok(repo) => (Some(repo), None),
            // SHA-256 or reftable: every local read and write through git.
            Err(e) => (None, Some(CliRepo::for_format(git_dir).ok_or(e)?)),
        };
        let chosen = match (named, preferred) {
            (Some(n), _) => Some((n.to_owned(), RemoteSource::Argument)),
            (None, Some(p)) => Some((p, RemoteSource::Setting)),
            (None, None) => None,
        };
        if let Some((value, source)) = &chosen {
            check_remote(value, *source).map_err(SyncError::BadRemote)?;
        }
        let remote = match chosen {
            Some((r, _)) => r,
            None => {
                let names: Vec<String> = match (&repo, &cli) {
                    (Some(repo), _) => repo
                        .remotes()?
                        .iter()
                        .flatten()
                        .map(str::to_owned)
                        .collect(),
                    (None, Some(cli)) => cli.remotes().into_iter().map(|(n, _)| n).collect(),
                    (None, None) => Vec::new(),
                };
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                let only = match names.as_slice() {
                    _ if names.contains(&"origin") => "origin",
                    [only] => *only,
                    _ => return Err(SyncError::NoRemote),
                };
                // A remote configured as `[remote "-x"]` is no safer than one named.
                check_remote(only, RemoteSource::Configured).map_err(SyncError::BadRemote)?;
                only.to_owned()
            }
        };
        Ok(DibsRemote {
            repo,
            cli,
            git_dir: git_dir.to_path_buf(),
            remote,
        })
    }

    /// The remote's name (or URL).
    pub(crate) fn remote(&self) -> &str {
        &self.remote
    }

    fn git(&self) -> Command {
        let mut cmd = Command::new("git");
        cmd.arg("--git-dir")
            .arg(&self.git_dir)
            .args(["-c", "gc.auto=0", "-c", "maintenance.auto=false"])
            .env("GIT_TERMINAL_PROMPT", "0")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .stdin(Stdio::null());
        cmd
    }

    fn unreachable(&self, detail: &str) -> SyncError {
        let detail = detail
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .find(|l| l.starts_with("fatal:") || l.starts_with("error:"))
            .or_else(|| detail.lines().map(str::trim).find(|l| !l.is_empty()))
            .unwrap_or("no answer")
            .to_owned();
        SyncError::Unreachable {
            remote: self.remote.clone(),
            detail,
        }
    }

    /// The remote's refs matching `patterns` (such as `refs/dibs/*`).
    pub(crate) fn list(&self, patterns: &[&str]) -> Result<Vec<RemoteRef>, SyncError> {
        let mut cmd = self.git();
        cmd.args(["ls-remote", "--refs", "--end-of-options", &self.remote])
            .args(patterns);
        let out = run_bounded(cmd, NETWORK_TIMEOUT);
        if out.truncated {
            return Err(SyncError::TooLarge {
                remote: self.remote.clone(),
                detail: format!("a listing of more than {} MB", MAX_LISTING >> 20),
            });
        }
        if !out.success {
            return Err(self.unreachable(&out.stderr));
        }
        Ok(out
            .stdout
            .lines()
            .filter_map(|l| {
                let (oid, name) = l.split_once('\t')?;
                Some(RemoteRef {
                    name: name.trim().to_owned(),
                    oid: oid.trim().to_owned(),
                })
            })
            .collect())
    }

    /// Fetch the commits `oids` (tips of remote refs) that are not here yet. No ref is written.
    pub(crate) fn fetch(&self, oids: &[String]) -> Result<(), SyncError> {
        let missing: Vec<String> = match (&self.repo, &self.cli) {
            (Some(repo), _) => {
                let odb = repo.odb()?;
                oids.iter()
                    .filter(|o| git2::Oid::from_str(o).is_ok_and(|id| !odb.exists(id)))
                    .cloned()
                    .collect()
            }
            (None, Some(cli)) => cli
                .missing_objects(oids)
                .map_err(|e| SyncError::Local(e.to_string()))?,
            (None, None) => oids.to_vec(),
        };
        for chunk in missing.chunks(FETCH_CHUNK) {
            let mut cmd = self.git();
            cmd.args([
                "fetch",
                "--quiet",
                "--no-tags",
                "--no-write-fetch-head",
                "--no-recurse-submodules",
                "--end-of-options",
                &self.remote,
            ])
            .args(chunk);
            let out = run_bounded(cmd, NETWORK_TIMEOUT);
            if !out.success {
                return Err(self.unreachable(&out.stderr));
            }
        }
        Ok(())
    }

    /// The bytes of `file` in the tree of commit `oid`, when it is here and small enough.
    pub(crate) fn read(&self, oid: &str, file: &str, limit: usize) -> Option<Vec<u8>> {
        let Some(repo) = &self.repo else {
            return self.cli.as_ref()?.file_of(oid, file, limit);
        };
        let commit = repo.find_commit(git2::Oid::from_str(oid).ok()?).ok()?;
        let entry = commit.tree().ok()?.get_name(file)?.to_object(repo).ok()?;
        let blob = entry.as_blob()?;
        (blob.size() <= limit).then(|| blob.content().to_vec())
    }

    /// Write a parentless commit whose tree holds `file` with `bytes`, and return its id.
    /// `message` makes it unique, so two writers never produce the same commit.
    pub(crate) fn record(
        &self,
        file: &str,
        bytes: &[u8],
        machine: &str,
        now: u64,
        message: &str,
    ) -> Result<String, SyncError> {
        let email = format!("git-dibs@{machine}");
        let nonce = format!(
            "{message}\n\nmachine {machine}\nprocess {}\nat {:?}\n",
            std::process::id(),
            std::time::SystemTime::now()
        );
        let repo = match (&self.repo, &self.cli) {
            (Some(repo), _) => repo,
            (None, Some(cli)) => {
                return cli
                    .record(file, bytes, ("git-dibs", &email), now, &nonce)
                    .map_err(|e| SyncError::Local(e.to_string()));
            }
            (None, None) => return Err(SyncError::Local("no repository".into())),
        };
        let blob = repo.blob(bytes)?;
        let mut tree = repo.treebuilder(None)?;
        tree.insert(file, blob, 0o100_644)?;
        let tree = repo.find_tree(tree.write()?)?;
        let when = git2::Time::new(i64::try_from(now).unwrap_or(0), 0);
        let sig = git2::Signature::new("git-dibs", &email, &when)?;
        let oid = repo.commit(None, &sig, &sig, &nonce, &tree, &[])?;
        Ok(oid.to_string())
    }

    /// Apply `updates` on the remote, each as its own compare-and-swap
    /// (`--force-with-lease=REF:EXPECTED`), and report each one's outcome.
    pub(crate) fn push(&self, updates: &[RefUpdate]) -> Result<Vec<PushOutcome>, SyncError> {
        if updates.is_empty() {
            return Ok(Vec::new());
        }
        // Snapshots hold whatever agents wrote, secrets too: they never leave the machine.
        if let Some(u) = updates
            .iter()
            .find(|u| u.name.starts_with(super::snapshot::SNAPSHOT_PREFIX))
        {
            return Err(SyncError::Local(format!(
                "refusing to push {}: snapshots stay on this machine",
                u.name
            )));
        }
        let mut cmd = self.git();
        cmd.args(["push", "--porcelain", "--no-verify"]);
        for u in updates {
            let expect = u.expect.as_deref().unwrap_or("");
            cmd.arg(format!("--force-with-lease={}:{expect}", u.name));
        }
        cmd.arg("--end-of-options").arg(&self.remote);
        // No `+` on the refspecs: a forced refspec skips the lease check, and the lease is the
        // whole point. A matching lease alone lets one record commit replace another.
        for u in updates {
            match &u.new {
                Some(new) => cmd.arg(format!("{new}:{}", u.name)),
                None => cmd.arg(format!(":{}", u.name)),
            };
        }
        let out = run_bounded(cmd, NETWORK_TIMEOUT);
        let outcomes: Vec<PushOutcome> = out
            .stdout
            .lines()
            .filter_map(|line| {
                let mut parts = line.splitn(3, '\t');
                let flag = parts.next()?;
                let spec = parts.next()?;
                let summary = parts.next().unwrap_or("").to_owned();
                let name = spec.rsplit_once(':').map_or(spec, |(_, to)| to).to_owned();
                (flag.len() == 1).then(|| PushOutcome {
                    name,
                    ok: flag != "!",
                    summary,
                })
            })
            .collect();
        if outcomes.is_empty() && !out.success {
            return Err(self.unreachable(&out.stderr));
        }
        Ok(updates
            .iter()
            .map(|u| {
                outcomes
                    .iter()
                    .find(|o| o.name == u.name)
                    .cloned()
                    .unwrap_or_else(|| PushOutcome {
                        name: u.name.clone(),
                        ok: out.success,
                        summary: "no answer for this ref".to_owned(),
                    })
            })
            .collect())
    }
}

/// Run git's `cmd` to completion within `timeout`, its stdout bounded by [`MAX_LISTING`]; a
/// git that cannot start or does not answer in time is a failure that says so.
fn run_bounded(cmd: Command, timeout: Duration) -> Finished {
    let failed = |why: String| Finished {
        success: false,
        stdout: String::new(),
        stderr: why,
        truncated: false,
    };
    match run::bounded(cmd, timeout, MAX_LISTING) {
        Ok(done) => done,
        Err(RunError::Spawn(e)) => failed(format!("git cannot be run: {e}")),
        Err(RunError::TimedOut) => failed(format!("no answer within {} s", timeout.as_secs())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remotes_git_would_read_as_options_or_nothing_are_refused() {
        for bad in ["", " ", "-x", "--upload-pack=touch x", "orig\nin", "a\x1bb"] {
            assert!(
                check_remote(bad, RemoteSource::Argument).is_err(),
                "{bad:?}"
            );
        }
        for good in [
            "origin",
            "up-stream",
            "/tmp/a b.git",
            "https://h/x.git",
            "git@h:x",
        ] {
            assert_eq!(
                check_remote(good, RemoteSource::Setting),
                Ok(()),
                "{good:?}"
            );
        }
    }
}
