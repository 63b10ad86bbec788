//! Where a branch is pointed: the branch `HEAD` names, the commit a revision names, and the
//! commits a branch loses when it is deleted or pointed at another commit (none when another
//! branch, a tag, a remote-tracking ref or the new commit contains them).

use super::facts::{CommitInfo, ReadError, Repo, walk};

/// What `HEAD` of a repository points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Head {
    /// A local branch (name without `refs/heads/`).
    Branch(String),
    /// A detached commit (full id).
    Detached(String),
}

impl Repo {
    /// The commit `spec` names (a branch, tag, id, `HEAD~2`, ...), full id.
    pub(crate) fn commit_id(&self, spec: &str) -> Option<String> {
        if let Some(cli) = &self.cli {
            return cli.commit_of(spec);
        }
        let obj = self.repo.revparse_single(spec).ok()?;
        Some(obj.peel_to_commit().ok()?.id().to_string())
    }

    /// What `HEAD` points at; `None` on an unborn branch or an unreadable HEAD.
    pub(crate) fn head_target(&self) -> Option<Head> {
        if let Some(cli) = &self.cli {
            return match cli.head_branch() {
                Some(b) => Some(Head::Branch(b)),
                None => cli.commit_of("HEAD").map(Head::Detached),
            };
        }
        let head = self.repo.find_reference("HEAD").ok()?;
        if let Some(target) = head.symbolic_target() {
            return target
                .strip_prefix("refs/heads/")
                .map(|b| Head::Branch(b.to_owned()));
        }
        head.target().map(|oid| Head::Detached(oid.to_string()))
    }

    /// Commits reachable from `tip` that no remote-tracking ref, tag or local branch outside
    /// `going` contains, and that `onto` (a commit id) does not contain either, newest first, at
    /// most `limit`: what deleting a branch at `tip` (`onto` `None`), or pointing it at `onto`,
    /// loses when the branches `going` go or move too (the branch itself among them), and the
    /// remote-tracking refs `gone_remote` (full names) go with the same command line. A
    /// detached HEAD keeps nothing: the next checkout leaves its commits to the reflog.
    pub(crate) fn unpushed_not_in(
        &self,
        tip: &str,
        onto: Option<&str>,
        going: &[String],
        gone_remote: &[String],
        limit: usize,
    ) -> Result<Vec<CommitInfo>, ReadError> {
        let every = going.iter().any(|g| g == "*");
        if let Some(cli) = &self.cli {
            let mut hide: Vec<String> = gone_remote
                .iter()
                .filter_map(|r| r.strip_prefix("refs/remotes/"))
                .map(|r| format!("--exclude={r}"))
                .collect();
            hide.extend(["--remotes".into(), "--tags".into()]);
            if !every {
                hide.extend(going.iter().map(|g| format!("--exclude={g}")));
                hide.push("--branches".into());
            }
            hide.extend(onto.map(str::to_owned));
            let hide: Vec<&str> = hide.iter().map(String::as_str).collect();
            return cli
                .log_not(tip, &hide, limit)
                .map_err(|e| ReadError::new("cannot list unpushed commits", e));
        }
        let mut hide: Vec<git2::Oid> = self
            .ref_targets()
            .into_iter()
            .filter(|(name, _)| {
                (name.starts_with("refs/remotes/") && !gone_remote.iter().any(|g| g == name))
                    || name.starts_with("refs/tags/")
                    || name
                        .strip_prefix("refs/heads/")
                        .is_some_and(|b| !every && !going.iter().any(|g| g == b))
            })
            .map(|(_, oid)| oid)
            .collect();
        if let Some(oid) = onto.and_then(|o| git2::Oid::from_str(o).ok()) {
            hide.push(oid);
        }
        walk(&self.repo, tip, &hide, limit)
    }
}
