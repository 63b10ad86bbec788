//! Snapshots written and read with git's plumbing, for repositories libgit2 cannot open: the
//! same refs, tree layout and commit messages as [`crate::git::snapshot`] (its layout functions
//! are used here), so `recover` reads both alike. A snapshot costs two processes: one
//! `for-each-ref` for the parent's id and description, one `fast-import` that writes the blobs,
//! the tree and the commit and moves the ref (it refuses to move a ref that moved meanwhile to
//! something the new commit does not contain: then the whole snapshot is tried again).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{CliError, Format, run, run_text};
use crate::git::snapshot::{
    self, Held, IDENTITY, Meta, NewSnapshot, SNAPSHOT_PREFIX, Snapshot, SnapshotError,
};

/// The snapshots of one clone, through git.
pub(crate) struct Cli {
    common_dir: PathBuf,
    format: Format,
}

impl Cli {
    /// The clone whose common git dir is `common_dir`, when its format is why libgit2 could not
    /// open it.
    pub(crate) fn for_format(common_dir: &Path) -> Option<Cli> {
        Some(Cli {
            common_dir: common_dir.to_path_buf(),
            format: Format::of_common_dir(common_dir)?,
        })
    }

    /// Whether its object ids are SHA-256.
    pub(crate) fn sha256(&self) -> bool {
        self.format.sha256()
    }

    fn err(&self) -> impl Fn(CliError) -> SnapshotError + '_ {
        |e| SnapshotError::Cli(e, self.format.clone())
    }

    fn text(&self, args: &[&str]) -> Result<String, SnapshotError> {
        run_text(&self.common_dir, args).map_err(self.err())
    }

    /// The blob id of `path` in the commit checked out in the worktree at `root`, or in commit
    /// `at` (an object id: anything else names nothing).
    pub(crate) fn committed_blob(
        &self,
        root: &Path,
        path: &str,
        at: Option<&str>,
    ) -> Option<String> {
        if at.is_some_and(|id| id.is_empty() || !id.bytes().all(|b| b.is_ascii_hexdigit())) {
            return None;
        }
        let spec = format!("{}:{path}", at.unwrap_or("HEAD"));
        let id = run_text(root, &["rev-parse", "--verify", "-q", &spec]).ok()?;
        let kind = run_text(root, &["cat-file", "-t", &id]).ok()?;
        (kind == "blob").then_some(id)
    }

    /// Write snapshot `new` on the chain of the session whose store key is `key` (see
    /// [`snapshot::write`]); returns the new commit's id.
    pub(crate) fn write(&self, key: &str, new: &NewSnapshot<'_>) -> Result<String, SnapshotError> {
        let name = snapshot::snapshot_ref(key);
        for _ in 0..snapshot::WRITE_ATTEMPTS {
            let parent = self.tip_and_message(&name)?;
            let meta = snapshot::describe(
                new,
                parent
                    .as_ref()
                    .and_then(|(_, m)| snapshot::meta_of_message(m.as_bytes())),
            );
            let stream = import_stream(&name, new, &meta, parent.as_ref().map(|(id, _)| id));
            match run(&self.common_dir, &["fast-import", "--quiet"], Some(&stream)) {
                Ok(out) => {
                    let id = String::from_utf8_lossy(&out).trim().to_owned();
                    if id.is_empty() {
                        break;
                    }
                    return Ok(id);
                }
                // Refused because the ref moved: read it again.
                Err(_)
                    if self.tip_and_message(&name)?.map(|(id, _)| id)
                        != parent.as_ref().map(|(id, _)| id.clone()) => {}
                Err(e) => return Err(self.err()(e)),
            }
        }
        Err(SnapshotError::Raced(name))
    }

    /// [`snapshot::Snapshots::reattach`] through git: ref `name` created on `commit` when it
    /// is gone and the commit is still here (`update-ref` with an empty old value refuses a
    /// ref another call made meanwhile), or put back on it from a commit that does not hold it.
    pub(crate) fn reattach(
        &self,
        name: &str,
        commit: &str,
    ) -> Result<snapshot::Reattach, SnapshotError> {
        use snapshot::Reattach;
        let spec = format!("{commit}^{{tree}}");
        let intact = || run_text(&self.common_dir, &["cat-file", "-e", &spec]).is_ok();
        if let Some((tip, message)) = self.tip_and_message(name)? {
            // On the remembered commit, or on a commit that holds it (a concurrent call of the
            // same session moved it on): as it should be.
            let holds = || {
                run_text(
                    &self.common_dir,
                    &["merge-base", "--is-ancestor", commit, &tip],
                )
                .is_ok()
            };
            if tip == commit || holds() {
                return Ok(Reattach::Present);
            }
            // Behind the remembered snapshot, which was written on it (see
            // [`snapshot::Snapshots::reattach`]): moved on to it.
            let behind = run_text(
                &self.common_dir,
                &["merge-base", "--is-ancestor", &tip, commit],
            )
            .is_ok();
            if behind {
                let _ = run_text(&self.common_dir, &["update-ref", name, commit, &tip]);
                return Ok(Reattach::Present);
            }
            let ours = snapshot::meta_of_message(message.as_bytes()).is_some();
            if !intact() {
                return Ok(if ours {
                    Reattach::Present
                } else {
                    Reattach::Pruned { foreign: tip }
                });
            }
            let key = name.strip_prefix(SNAPSHOT_PREFIX).unwrap_or(name);
            let short = tip.get(..12).unwrap_or(&tip);
            let kept = format!("{}{key}-{short}", snapshot::REWRITTEN_PREFIX);
            run_text(&self.common_dir, &["update-ref", &kept, &tip]).map_err(self.err())?;
            return match run_text(&self.common_dir, &["update-ref", name, commit, &tip]) {
                Ok(_) => Ok(Reattach::Rewritten { foreign: tip, kept }),
                // Moved again meanwhile: looked at next time.
                Err(_) => Ok(Reattach::Present),
            };
        }
        if !intact() {
            return Ok(Reattach::Lost);
        }
        match run_text(&self.common_dir, &["update-ref", name, commit, ""]) {
            Ok(_) => Ok(Reattach::Restored),
            Err(_) if self.tip_and_message(name)?.is_some() => Ok(Reattach::Present),
            Err(e) => Err(self.err()(e)),
        }
    }

    /// [`snapshot::Snapshots::repair`] through git.
    pub(crate) fn repair(&self, name: &str) -> Result<snapshot::Repair, SnapshotError> {
        use snapshot::Repair;
        let Ok(tip) = run_text(&self.common_dir, &["rev-parse", "--verify", "-q", name]) else {
            return Ok(Repair::Intact);
        };
        let intact = |id: &str| {
            let tree = format!("{id}^{{tree}}");
            run_text(&self.common_dir, &["cat-file", "-e", &tree]).is_ok()
        };
        let mut id = tip.clone();
        for _ in 0..snapshot::HISTORY_LIMIT {
            let commit = format!("{id}^{{commit}}");
            if run_text(&self.common_dir, &["cat-file", "-e", &commit]).is_err() {
                break;
            }
            if intact(&id) {
                if id == tip {
                    return Ok(Repair::Intact);
                }
                run_text(&self.common_dir, &["update-ref", name, &id, &tip]).map_err(self.err())?;
                return Ok(Repair::BackTo(id));
            }
            let parent = format!("{id}^1");
            match run_text(&self.common_dir, &["rev-parse", "--verify", "-q", &parent]) {
                Ok(p) => id = p,
                Err(_) => break,
            }
        }
        run_text(&self.common_dir, &["update-ref", "-d", name, &tip]).map_err(self.err())?;
        Ok(Repair::Cut)
    }

    /// The commit ref `name` points at, and its message; `None` when there is no such ref.
    fn tip_and_message(&self, name: &str) -> Result<Option<(String, String)>, SnapshotError> {
        let out = run(
            &self.common_dir,
            &["for-each-ref", "--format=%(objectname)%00%(contents)", name],
            None,
        )
        .map_err(self.err())?;
        let text = String::from_utf8_lossy(&out);
        Ok(text
            .split_once('\0')
            .map(|(id, msg)| (id.to_owned(), msg.to_owned())))
    }

    /// Every snapshot ref: name, tip, and the tip's committer time.
    pub(crate) fn refs(&self) -> Result<Vec<(String, String, u64)>, SnapshotError> {
        let out = self.text(&[
            "for-each-ref",
            "--format=%(refname) %(objectname) %(committerdate:unix)",
            SNAPSHOT_PREFIX,
        ])?;
        let mut refs: Vec<(String, String, u64)> = out
            .lines()
            .filter_map(|l| {
                let mut f = l.split(' ');
                let (name, tip) = (f.next()?, f.next()?);
                let at = f.next().and_then(|t| t.parse().ok()).unwrap_or(0);
                Some((name.to_owned(), tip.to_owned(), at))
            })
            .collect();
        refs.sort();
        Ok(refs)
    }

    /// The chain from `tip` back, newest first (see [`snapshot::Snapshots::history`]).
    pub(crate) fn history(&self, tip: &str) -> Vec<Snapshot> {
        let n = format!("-n{}", snapshot::HISTORY_LIMIT);
        let Ok(out) = run(
            &self.common_dir,
            &[
                "log",
                "-z",
                "--first-parent",
                &n,
                "--format=%H%n%B",
                tip,
                "--",
            ],
            None,
        ) else {
            return Vec::new();
        };
        let mut history = Vec::new();
        for record in out.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            let (id, message) = match record.iter().position(|b| *b == b'\n') {
                Some(i) => (&record[..i], &record[i + 1..]),
                None => (record, &b""[..]),
            };
            let Some(meta) = snapshot::meta_of_message(message) else {
                break;
            };
            history.push(Snapshot {
                id: String::from_utf8_lossy(id).into_owned(),
                meta,
            });
        }
        history
    }

    /// Every file the snapshot `commit` holds.
    pub(crate) fn files(&self, commit: &str) -> Result<Vec<Held>, SnapshotError> {
        let out = run(
            &self.common_dir,
            &["ls-tree", "-r", "-z", "--full-tree", commit],
            None,
        )
        .map_err(self.err())?;
        let mut held = Vec::new();
        for entry in out.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            let entry = String::from_utf8_lossy(entry);
            let Some((info, path)) = entry.split_once('\t') else {
                continue;
            };
            let mut f = info.split(' ');
            let (Some(mode), Some("blob"), Some(blob)) = (f.next(), f.next(), f.next()) else {
                continue;
            };
            let flat = !path.contains('/');
            let Some((worktree, path)) = snapshot::file_at(path) else {
                continue;
            };
            held.push((
                Held {
                    worktree,
                    path,
                    blob: blob.to_owned(),
                    link: mode == "120000",
                    executable: mode == "100755",
                },
                flat,
            ));
        }
        Ok(snapshot::newest_entries(held))
    }

    /// The bytes of blob `id`.
    pub(crate) fn blob(&self, id: &str) -> Result<Vec<u8>, SnapshotError> {
        run(&self.common_dir, &["cat-file", "blob", id], None).map_err(self.err())
    }

    /// The size of blob `id` (an object id: anything else names nothing).
    pub(crate) fn blob_size(&self, id: &str) -> Option<u64> {
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        run_text(&self.common_dir, &["cat-file", "-s", id])
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// Delete the snapshot refs whose newest snapshot is older than `cutoff`.
    pub(crate) fn expire(&self, cutoff: u64) -> Result<Vec<String>, SnapshotError> {
        let mut gone = Vec::new();
        for (name, tip, at) in self.refs()? {
            if at < cutoff {
                self.text(&["update-ref", "-d", &name, &tip])?;
                gone.push(name);
            }
        }
        Ok(gone)
    }

    /// The blob id (hex, this repository's hash) the file at `full` would have now, a symlink's
    /// target hashed; `None` when there is no such file.
    pub(crate) fn current_blob(&self, full: &Path) -> Option<String> {
        let meta = std::fs::symlink_metadata(full).ok()?;
        let bytes = if meta.file_type().is_symlink() {
            std::fs::read_link(full)
                .ok()?
                .into_os_string()
                .into_encoded_bytes()
        } else if meta.is_file() {
            crate::git::read_worktree_file(full)?
        } else {
            return None;
        };
        let out = run(&self.common_dir, &["hash-object", "--stdin"], Some(&bytes)).ok()?;
        Some(String::from_utf8_lossy(&out).trim().to_owned())
    }
}

/// The `git fast-import` input that writes `new` as one commit on ref `name` over `parent`,
/// and prints the new commit's id.
fn import_stream(
    name: &str,
    new: &NewSnapshot<'_>,
    meta: &Meta,
    parent: Option<&String>,
) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(b"feature done\n");
    for (i, put) in new.puts.iter().enumerate() {
        let bytes = put.content.bytes();
        out.extend_from_slice(format!("blob\nmark :{}\ndata {}\n", i + 1, bytes.len()).as_bytes());
        out.extend_from_slice(bytes);
        out.push(b'\n');
    }
    let commit_mark = new.puts.len() + 1;
    let message = snapshot::message(new, meta);
    let mut head = String::new();
    let who = format!("{} <{}> {} +0000", IDENTITY.0, IDENTITY.1, new.at);
    let _ = write!(
        head,
        "commit {name}\nmark :{commit_mark}\nauthor {who}\ncommitter {who}\ndata {}\n{message}\n",
        message.len()
    );
    if let Some(parent) = parent {
        let _ = writeln!(head, "from {parent}");
    }
    for (i, put) in new.puts.iter().enumerate() {
        let _ = writeln!(
            head,
            "M {} :{} {}",
            put.content.octal_mode(),
            i + 1,
            quoted(&snapshot::tree_path(put))
        );
    }
    let _ = write!(head, "\nget-mark :{commit_mark}\ndone\n");
    out.extend_from_slice(head.as_bytes());
    out
}

/// A path as fast-import reads it: C-style quoted when it starts with `"` or holds a newline,
/// a backslash or a control character.
fn quoted(path: &str) -> String {
    if !path.starts_with('"') && !path.chars().any(|c| c == '\\' || c.is_control()) {
        return path.to_owned();
    }
    let mut q = String::from("\"");
    for c in path.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\t' => q.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(q, "\\{:03o}", c as u32);
            }
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

#[cfg(test)]
mod tests {
    use super::quoted;

    #[test]
    fn paths_fast_import_would_misread_are_quoted() {
        assert_eq!(quoted("ab/c d.txt"), "ab/c d.txt");
        assert_eq!(quoted("\"x"), "\"\\\"x\"");
        assert_eq!(quoted("a\nb\\c"), "\"a\\nb\\\\c\"");
    }
}
