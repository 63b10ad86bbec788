//! What `claim` and `release` take as a target: a file that exists, `branch:NAME`,
//! `worktree:PATH` or `record:ID`, read from the command line with what to write instead when
//! it is none of them.

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::git;
use crate::store::{self, Target};

/// What a TARGET may be, for messages.
pub(super) const TARGET_KINDS: &str = "a file path, branch:NAME, worktree:PATH or record:ID";

/// Parse a TARGET argument against the current worktree: a known kind with a well-formed
/// name (a branch name git accepts, a worktree's top folder), else a path inside a worktree.
pub(super) fn parse_target(text: &str, cwd: &Path) -> Result<Target> {
    if text.trim().is_empty() {
        bail!("an empty target names nothing; give {TARGET_KINDS}");
    }
    if let Some(name) = text.strip_prefix("branch:") {
        let name = name.strip_prefix("refs/heads/").unwrap_or(name);
        if name.is_empty() {
            bail!("`{text}` names no branch; write branch:NAME");
        }
        if !git::is_valid_branch_name(name) {
            bail!(
                "`{name}` is not a valid branch name (see `git check-ref-format --branch`); \
                 write branch:NAME"
            );
        }
        return Ok(Target::Branch { name: name.into() });
    }
    if let Some(id) = text.strip_prefix("record:") {
        if id.trim().is_empty() {
            bail!("`{text}` names no record; write record:ID (an issue id, say)");
        }
        return Ok(Target::Record { id: id.into() });
    }
    if let Some(path) = text.strip_prefix("worktree:") {
        if path.is_empty() {
            bail!("`{text}` names no worktree; write worktree:PATH (its top folder)");
        }
        let loc = git::locate(cwd, Path::new(path))
            .with_context(|| format!("`{path}` is not inside a git worktree"))?;
        if !loc.relative.is_empty() {
            bail!(
                "`{path}` is not a worktree's top folder ({} is); claim worktree:{}, or the \
                 files themselves",
                loc.worktree.root.display(),
                loc.worktree.root.display()
            );
        }
        return Ok(Target::Worktree {
            path: loc.worktree.root,
        });
    }
    if let Some((kind, _)) = text.split_once(':')
        && !kind.is_empty()
        && kind.bytes().all(|b| b.is_ascii_alphabetic())
        && !cwd.join(text).exists()
    {
        bail!("`{text}`: there is no kind of target called `{kind}:`; claim {TARGET_KINDS}");
    }
    let loc = git::locate(cwd, Path::new(text)).with_context(|| {
        format!("`{text}` is not inside a git worktree; claim {TARGET_KINDS} of a repository")
    })?;
    if loc.relative.is_empty() {
        bail!("`{text}` is a worktree root; name the worktree as worktree:{text}");
    }
    Ok(Target::File(store::FileKey::new(
        loc.worktree.root,
        loc.relative,
    )))
}

/// A file target must name a file that exists (not a folder): a claim on a typo would hold
/// nothing anyone touches.
pub(super) fn check_claimable(target: &Target, text: &str) -> Result<()> {
    if let Target::File(key) = target {
        let path = key.worktree.join(&key.path);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => bail!(
                "`{text}` is a folder; claim the files in it, or the worktree as worktree:PATH"
            ),
            Ok(_) => {}
            Err(_) => bail!(
                "`{text}` does not exist ({}); claim a file that exists, or {TARGET_KINDS}",
                path.display()
            ),
        }
    }
    Ok(())
}
