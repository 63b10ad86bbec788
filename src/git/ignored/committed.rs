//! Which ignored paths the project's committed rules hide. Ignore rules are anyone's to write:
//! `*.*` or `*.py` appended to `.git/info/exclude`, a `core.excludesFile`, a `.gitignore` not
//! committed (or changed since, a negation taken out), a `.gitignore` of `*` dropped into one
//! folder. Only HEAD's `.gitignore` files (the project's word on what is build output) decide
//! that a file is nobody's work; a path only other rules hide is taken as untracked. Asked of
//! git itself, so no spelling of a rule matters: `git check-ignore` runs in a mirror of the
//! worktree that holds HEAD's `.gitignore` files of the folders concerned and nothing else (no
//! `info/exclude`, no excludes file). When no rule can come from elsewhere (no `.gitignore`
//! changed or untracked, no rule in `info/exclude`, no excludes file, every ignored folder
//! named by a rule itself), nothing is run.

use std::collections::BTreeSet;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// Of `hidden` (ignored paths of the worktree of `repo`, a folder ending in `/`), those HEAD's
/// `.gitignore` files hide; `dirty` is the worktree's changed and untracked paths. When git
/// cannot tell, none.
pub(crate) fn hidden_by_committed(
    repo: &git2::Repository,
    dirty: &BTreeSet<String>,
    hidden: &[String],
) -> BTreeSet<String> {
    if hidden.is_empty() {
        return BTreeSet::new();
    }
    if !rules_from_elsewhere(repo, dirty, hidden) {
        return hidden.iter().cloned().collect();
    }
    by_head_rules(repo, hidden)
}

/// Of `hidden`, those HEAD's `.gitignore` files hide, as git tells in a [`Mirror`].
fn by_head_rules(repo: &git2::Repository, hidden: &[String]) -> BTreeSet<String> {
    let Some(tree) = repo.head().ok().and_then(|h| h.peel_to_tree().ok()) else {
        return BTreeSet::new();
    };
    let Some(mirror) = Mirror::of(repo, &tree, hidden) else {
        return BTreeSet::new();
    };
    mirror
        .deciding_rules(hidden)
        .into_iter()
        .filter(|(pattern, _)| !pattern.is_empty() && !pattern.starts_with('!'))
        .map(|(_, path)| path)
        .collect()
}

/// Whether `rel` is ignored in the worktree of `repo`, and by HEAD's `.gitignore` files (see
/// the module's note): for one path, where no status was read (git is asked every time).
pub(crate) fn one_hidden_by_committed(repo: &git2::Repository, rel: &str) -> bool {
    if !repo.is_path_ignored(rel).unwrap_or(false) {
        return false;
    }
    let paths = [rel.to_owned()];
    // Only the `.gitignore` files of the folders holding it can hide it: when each is as HEAD
    // has it and no rule comes from outside the worktree, the rules are HEAD's.
    if !rules_outside_worktree(repo) && rule_files_as_at_head(repo, &paths) {
        return true;
    }
    by_head_rules(repo, &paths).contains(rel)
}

/// Whether each `.gitignore` of the folders holding `paths` is in the worktree as in HEAD's
/// tree (both missing counts as the same).
fn rule_files_as_at_head(repo: &git2::Repository, paths: &[String]) -> bool {
    let Some(tree) = repo.head().ok().and_then(|h| h.peel_to_tree().ok()) else {
        return false;
    };
    let Some(root) = repo.workdir() else {
        return false;
    };
    rule_files(paths).iter().all(|rel| {
        let committed = tree
            .get_path(Path::new(rel))
            .ok()
            .and_then(|e| repo.find_blob(e.id()).ok());
        match fs::read(root.join(crate::pathtext::to_path(rel))) {
            Ok(bytes) => committed.is_some_and(|b| b.content() == bytes.as_slice()),
            Err(e) => e.kind() == std::io::ErrorKind::NotFound && committed.is_none(),
        }
    })
}

/// The `.gitignore` files that may hold rules for `paths`: those of every folder holding one
/// (the worktree's top too), and a folder's own (git asks it of the folder too).
fn rule_files(paths: &[String]) -> BTreeSet<String> {
    let mut folders = BTreeSet::new();
    for p in paths {
        let mut at = p.trim_end_matches('/');
        folders.insert(at.to_owned());
        while let Some((up, _)) = at.rsplit_once('/') {
            folders.insert(up.to_owned());
            at = up;
        }
        folders.insert(String::new());
    }
    folders
        .into_iter()
        .map(|f| {
            if f.is_empty() {
                ".gitignore".to_owned()
            } else {
                format!("{f}/.gitignore")
            }
        })
        .collect()
}

/// Whether any rule that hides one of `hidden` may come from anywhere but a committed,
/// unchanged `.gitignore`: cheap checks, no process started.
fn rules_from_elsewhere(
    repo: &git2::Repository,
    dirty: &BTreeSet<String>,
    hidden: &[String],
) -> bool {
    let is_rules = |p: &String| p == ".gitignore" || p.ends_with("/.gitignore");
    if dirty.iter().any(is_rules) || hidden.iter().any(is_rules) || rules_outside_worktree(repo) {
        return true;
    }
    // A folder listed as ignored that no rule names is hidden by rules inside it (a
    // `.gitignore` of `*` in an untracked folder).
    hidden.iter().filter(|h| h.ends_with('/')).any(|h| {
        !repo
            .is_path_ignored(h.trim_end_matches('/'))
            .unwrap_or(false)
    })
}

/// Whether a rule may come from outside the worktree: `info/exclude`, `core.excludesFile`, or
/// git's default excludes file.
fn rules_outside_worktree(repo: &git2::Repository) -> bool {
    if has_rules(&repo.commondir().join("info/exclude"))
        || has_rules(&repo.path().join("info/exclude"))
    {
        return true;
    }
    match repo.config().map(|c| c.get_string("core.excludesFile")) {
        Ok(Ok(_)) => return true,
        Ok(Err(e)) if e.code() == git2::ErrorCode::NotFound => {}
        _ => return true,
    }
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    let global = env("XDG_CONFIG_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".config")))
        .map(|d| d.join("git/ignore"));
    global.is_some_and(|g| has_rules(&g))
}

/// Whether the ignore file at `path` holds a rule (a line neither blank nor a comment).
fn has_rules(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|bytes| {
        bytes
            .split(|b| *b == b'\n')
            .any(|l| !l.trim_ascii().is_empty() && !l.starts_with(b"#"))
    })
}

/// A scratch folder holding a git dir with nothing in it and a worktree with HEAD's
/// `.gitignore` files of the folders that hold the paths asked about; removed when dropped.
struct Mirror {
    dir: PathBuf,
}

impl Mirror {
    /// The mirror of `tree`'s `.gitignore` files for `paths` (of the worktree of `repo`).
    fn of(repo: &git2::Repository, tree: &git2::Tree<'_>, paths: &[String]) -> Option<Mirror> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir =
            std::env::temp_dir().join(format!("git-dibs-rules-{}-{nanos}", std::process::id()));
        let mirror = Mirror { dir };
        let git = mirror.dir.join("git");
        fs::create_dir_all(git.join("objects")).ok()?;
        fs::create_dir_all(git.join("refs")).ok()?;
        fs::write(git.join("HEAD"), "ref: refs/heads/main\n").ok()?;
        for rel in rule_files(paths) {
            let Ok(entry) = tree.get_path(Path::new(&rel)) else {
                continue;
            };
            let Ok(blob) = repo.find_blob(entry.id()) else {
                continue;
            };
            let at = mirror.dir.join("work").join(crate::pathtext::to_path(&rel));
            fs::create_dir_all(at.parent()?).ok()?;
            fs::write(at, blob.content()).ok()?;
        }
        fs::create_dir_all(mirror.dir.join("work")).ok()?;
        Some(mirror)
    }

    /// For each of `paths`: (the rule that decides it in the mirror, the path), as `git
    /// check-ignore -v -n` tells (an empty rule: none matches). Empty when git cannot be run.
    fn deciding_rules(&self, paths: &[String]) -> Vec<(String, String)> {
        let work = self.dir.join("work");
        let mut cmd = super::super::lanes::git_command(&work);
        cmd.arg(format!("--git-dir={}", self.dir.join("git").display()))
            .arg(format!("--work-tree={}", work.display()))
            .args(["-c", "core.excludesFile=/dev/null"])
            .args(["check-ignore", "-v", "-n", "-z", "--stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let Ok(mut child) = cmd.spawn() else {
            return Vec::new();
        };
        let mut input = Vec::new();
        for p in paths {
            input.extend_from_slice(p.as_bytes());
            input.push(0);
        }
        let stdin = child.stdin.take();
        // Written on a thread of its own: git answers while it reads, and a full pipe each
        // way would stop both.
        let writer = std::thread::spawn(move || {
            if let Some(mut s) = stdin {
                let _ = s.write_all(&input);
            }
        });
        let mut out = Vec::new();
        let read = child.stdout.take().map(|mut s| s.read_to_end(&mut out));
        let _ = writer.join();
        if !child.wait().is_ok_and(|s| s.code().is_some_and(|c| c <= 1)) || read.is_none() {
            return Vec::new();
        }
        let fields: Vec<String> = out
            .split(|b| *b == 0)
            .map(|f| String::from_utf8_lossy(f).into_owned())
            .collect();
        fields
            .chunks_exact(4)
            .map(|c| (c[2].clone(), c[3].clone()))
            .collect()
    }
}

impl Drop for Mirror {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}
