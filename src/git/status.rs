//! Reads through libgit2: the dirty paths of a worktree and `dibs.*` settings from git config.
//! Where libgit2 cannot open the repository because of its format (SHA-256, reftable), or
//! cannot read its status (a split index), git answers ([`super::cli::CliRepo`]).

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

/// A failure reading a repository (the cause is in the text, once).
#[derive(Debug, thiserror::Error)]
#[error("{what}: {cause}")]
pub(crate) struct GitError {
    what: String,
    cause: String,
}

impl GitError {
    fn new(what: impl Into<String>, cause: git2::Error) -> Self {
        GitError {
            what: what.into(),
            cause: cause.message().to_owned(),
        }
    }
}

/// The answer of git itself about `paths` (all of them when empty) in the worktree at `root`,
/// after libgit2 failed with `first`: when `opened` is false (libgit2 could not open it), only
/// for a repository whose format is the reason, else `first` stands.
fn git_answer(
    root: &Path,
    paths: &[String],
    opened: bool,
    first: GitError,
) -> Result<BTreeSet<String>, GitError> {
    use super::cli::{CliRepo, Format};
    let format = Format::of(root);
    if !opened && format.is_none() {
        return Err(first);
    }
    let cli = CliRepo::open(root, format);
    let asked: Vec<&str> = paths.iter().map(String::as_str).collect();
    match cli.status(&asked) {
        Ok(files) => Ok(files
            .into_iter()
            .map(|f| f.path)
            .filter(|p| paths.is_empty() || paths.contains(p))
            .collect()),
        Err(e) => Err(GitError {
            cause: match cli.format() {
                Some(f) => format!("it has {f}, which git-dibs reads through git, and {e}"),
                None => e.to_string(),
            },
            what: first.what,
        }),
    }
}

/// Paths (relative, `/`-separated) that are modified, staged or untracked in the worktree at
/// `root`. Ignored files do not count.
pub(crate) fn dirty_paths(root: &Path) -> Result<BTreeSet<String>, GitError> {
    let repo = match super::envrepo::open(root) {
        Ok(repo) => repo,
        Err(e) => {
            let first = GitError::new(format!("cannot open {}", root.display()), e);
            return git_answer(root, &[], false, first);
        }
    };
    match super::facts::worktree_status(&repo) {
        Ok(status) => Ok(status.into_iter().map(|f| f.path).collect()),
        Err(e) => {
            let first = GitError::new(format!("cannot read status of {}", root.display()), e);
            git_answer(root, &[], true, first)
        }
    }
}

/// The config files git reads for the worktree whose git dir is `git_dir`, lowest priority
/// first: system (unless `GIT_CONFIG_NOSYSTEM`), global (`GIT_CONFIG_GLOBAL`, else the XDG file
/// and `~/.gitconfig`), the clone's `config`, and the worktree's `config.worktree`.
pub(super) fn config_files(git_dir: &Path) -> Vec<(std::path::PathBuf, git2::ConfigLevel)> {
    use git2::ConfigLevel as L;
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    let mut files = Vec::new();
    if env("GIT_CONFIG_NOSYSTEM").is_none() {
        files.push(("/etc/gitconfig".into(), L::System));
    }
    match env("GIT_CONFIG_GLOBAL") {
        Some(global) => files.push((global.into(), L::Global)),
        None => {
            let home = env("HOME").map(std::path::PathBuf::from);
            let xdg = env("XDG_CONFIG_HOME")
                .map(std::path::PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(".config")));
            if let Some(x) = xdg {
                files.push((x.join("git/config"), L::XDG));
            }
            if let Some(h) = home {
                files.push((h.join(".gitconfig"), L::Global));
            }
        }
    }
    let common = super::common_dir_of(git_dir);
    files.push((common.join("config"), L::Local));
    files.push((git_dir.join("config.worktree"), L::Worktree));
    files
}

/// Of `paths` (relative, `/`-separated) in the worktree at `root`, those whose content differs
/// from HEAD: changed, deleted, or new and not ignored. Each file is hashed and compared with its
/// blob in HEAD's tree, so the cost follows the number and size of these files, not the size of
/// the repository (no index is read). Content filters (`autocrlf`, clean filters) are not
/// applied, so a filtered file can read as changed; a change staged and then undone in the
/// worktree reads as clean.
pub(crate) fn uncommitted_among(
    root: &Path,
    paths: &[String],
) -> Result<BTreeSet<String>, GitError> {
    if paths.is_empty() {
        return Ok(BTreeSet::new());
    }
    let opened = match super::envrepo::git_env_for(root) {
        Some(_) => super::envrepo::open(root),
        None => git2::Repository::open_ext(
            root,
            git2::RepositoryOpenFlags::NO_SEARCH,
            std::iter::empty::<&std::ffi::OsStr>(),
        ),
    };
    let repo = match opened {
        Ok(repo) => repo,
        Err(e) => {
            let first = GitError::new(format!("cannot open {}", root.display()), e);
            return git_answer(root, paths, false, first);
        }
    };
    let tree = repo.head().and_then(|h| h.peel_to_tree()).ok();
    // One tree object per folder, read once: a large folder's tree is costly to parse.
    let mut folders: std::collections::HashMap<&str, Option<git2::Tree<'_>>> = Default::default();
    let in_head: Vec<Option<git2::Oid>> = paths
        .iter()
        .map(|rel| {
            let (folder, name) = rel.rsplit_once('/').unwrap_or(("", rel.as_str()));
            let subtree = folders.entry(folder).or_insert_with(|| {
                let top = tree.as_ref()?;
                if folder.is_empty() {
                    return Some(top.clone());
                }
                let entry = top.get_path(Path::new(folder)).ok()?;
                entry.to_object(&repo).ok()?.into_tree().ok()
            });
            subtree
                .as_ref()
                .and_then(|t| t.get_name(name).map(|e| e.id()))
        })
        .collect();
    let states: Vec<FileState> = paths
        .iter()
        .zip(&in_head)
        .map(|(rel, head)| match (head, read_worktree(&root.join(rel))) {
            (Some(id), Ok(bytes)) => {
                let same = git2::Oid::hash_object(git2::ObjectType::Blob, &bytes)
                    .is_ok_and(|oid| oid == *id);
                if same {
                    FileState::Clean
                } else {
                    FileState::Changed
                }
            }
            (Some(_), Err(_)) => FileState::Changed,
            (None, Ok(_) | Err(true)) => FileState::New,
            (None, Err(false)) => FileState::Clean,
        })
        .collect();
    Ok(paths
        .iter()
        .zip(states)
        .filter(|(rel, st)| match st {
            FileState::Changed => true,
            FileState::New => !repo.is_path_ignored(rel.as_str()).unwrap_or(false),
            FileState::Clean => false,
        })
        .map(|(rel, _)| rel.clone())
        .collect())
}

/// A file against HEAD, before ignore rules are asked about new files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileState {
    Clean,
    Changed,
    New,
}

/// Read a duration setting such as `dibs.ttl` (`2h`, `90m`, `3600` seconds) from the config that
/// applies to the worktree whose git dir is `git_dir`, raised to its floor
/// ([`super::config::FLOORS`]). `None` when unset or unreadable. No repository is opened: only
/// the config files are read (includes are followed).
pub(crate) fn read_config_duration(git_dir: &Path, key: &str) -> Option<Duration> {
    let mut config = git2::Config::new().ok()?;
    for (file, level) in config_files(git_dir) {
        if file.is_file() {
            let _ = config.add_file(&file, level, false);
        }
    }
    let text = config.get_string(key).ok()?;
    Some(super::config::floored(key, parse_duration(&text)?))
}

/// Parse `90m`, `2h`, `1h 30m` or a bare number of seconds.
pub(crate) fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    if let Ok(secs) = text.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    humantime::parse_duration(text).ok()
}

/// A worktree file's bytes for hashing: `Err(true)` when it is there but is not a regular file
/// one may read (a FIFO, a device, too large: changed as far as anyone can tell), `Err(false)`
/// when it is missing.
fn read_worktree(path: &Path) -> Result<Vec<u8>, bool> {
    super::read_worktree_file(path).ok_or_else(|| std::fs::symlink_metadata(path).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::git::testing::git;

    #[test]
    fn uncommitted_among_many_files_matches_what_changed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        let mut paths = Vec::new();
        for i in 0..40 {
            let rel = if i % 2 == 0 {
                format!("src/f{i}.rs")
            } else {
                format!("src/deep/g{i}.rs")
            };
            std::fs::write(root.join(&rel), format!("{i}\n")).unwrap();
            paths.push(rel);
        }
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        git(root, &["add", "."]);
        git(root, &["commit", "-qm", "init"]);
        std::fs::write(root.join("src/f4.rs"), "changed\n").unwrap();
        std::fs::write(root.join("src/deep/g7.rs"), "changed\n").unwrap();
        std::fs::remove_file(root.join("src/f10.rs")).unwrap();
        std::fs::write(root.join("src/new.rs"), "new\n").unwrap();
        std::fs::write(root.join("src/x.log"), "ignored\n").unwrap();
        paths.extend([
            "src/new.rs".to_owned(),
            "src/x.log".to_owned(),
            "src/gone.rs".to_owned(),
        ]);
        let got = uncommitted_among(root, &paths).unwrap();
        let want: BTreeSet<String> = ["src/f4.rs", "src/deep/g7.rs", "src/f10.rs", "src/new.rs"]
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(got, want);
        let few: Vec<String> = paths[..5].to_vec();
        assert_eq!(
            uncommitted_among(root, &few).unwrap(),
            BTreeSet::from(["src/f4.rs".to_owned()])
        );
    }

    /// The scan (with libgit2 for what it leaves) against libgit2's full status, and whether
    /// the scan answered at all.
    fn both(root: &Path) -> (Vec<String>, Vec<String>, bool) {
        let repo = git2::Repository::open(root).unwrap();
        let lines = |mut v: Vec<super::super::FileState>| {
            v.sort_by(|a, b| a.path.cmp(&b.path));
            v.iter().map(|f| f.porcelain()).collect::<Vec<_>>()
        };
        let fast = lines(super::super::facts::worktree_status(&repo).unwrap());
        let full = lines(super::super::facts::libgit2_status(&repo, &[]).unwrap());
        (fast, full, super::super::scan::scan(&repo).is_some())
    }

    #[test]
    fn scanned_status_is_libgit2_status() {
        use std::os::unix::fs::{PermissionsExt, symlink};
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        let write = |rel: &str, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        // Enough files for the scan to use several threads.
        for i in 0..1100 {
            write(
                &format!("d{}/sub{}/f{i}.rs", i % 10, i % 3),
                &format!("{i}\n"),
            );
        }
        for (rel, text) in [
            ("a.txt", "a\n"),
            ("same.txt", "1234\n"),
            ("touched.txt", "t\n"),
            ("exec.sh", "#!/bin/sh\n"),
            ("build/keep.txt", "kept\n"),
            ("typed", "a file\n"),
            (".gitignore", "*.log\nbuild/\ntarget/\n"),
        ] {
            write(rel, text);
        }
        std::fs::set_permissions(root.join("exec.sh"), PermissionsExt::from_mode(0o755)).unwrap();
        symlink("a.txt", root.join("link")).unwrap();
        git(root, &["add", "-A"]);
        git(root, &["add", "-f", "build/keep.txt"]);
        git(root, &["commit", "-qm", "init"]);
        let (fast, full, scanned) = both(root);
        assert!(
            scanned && fast.is_empty() && full.is_empty(),
            "{fast:?} {full:?}"
        );

        std::thread::sleep(std::time::Duration::from_millis(20));
        write("a.txt", "changed size\n");
        write("same.txt", "5678\n"); // same size: only hashing tells
        write("touched.txt", "t\n"); // new time stamp, same content
        std::fs::set_permissions(root.join("exec.sh"), PermissionsExt::from_mode(0o644)).unwrap();
        std::fs::remove_file(root.join("link")).unwrap();
        write("link", "now a file\n");
        std::fs::remove_file(root.join("typed")).unwrap();
        symlink("a.txt", root.join("typed")).unwrap();
        std::fs::remove_file(root.join("d1/sub1/f1.rs")).unwrap();
        std::fs::remove_dir_all(root.join("d2")).unwrap();
        write("new.txt", "untracked\n");
        write("d3/new.rs", "untracked\n");
        write("x.log", "ignored\n");
        write("d4/y.log", "ignored\n");
        write("target/out.bin", "ignored folder\n");
        write("build/junk.o", "in an ignored, tracked folder\n");
        write("newdir/deep/n.rs", "untracked folder\n");
        write("newdir/z.log", "ignored in an untracked folder\n");
        write("onlyignored/w.log", "nothing to list\n");
        std::fs::create_dir_all(root.join("empty")).unwrap();
        std::fs::create_dir_all(root.join("nested")).unwrap();
        git(&root.join("nested"), &["init", "-q"]);
        write("nested/inner.txt", "another repository\n");
        let (fast, full, scanned) = both(root);
        assert!(scanned, "the scan answers when nothing is staged");
        assert_eq!(fast, full);
        for line in [
            " M a.txt",
            " M same.txt",
            " M exec.sh",
            " T link",
            " T typed",
        ] {
            assert!(fast.contains(&line.to_owned()), "{line} in {fast:?}");
        }
        for line in [
            " D d1/sub1/f1.rs",
            "?? new.txt",
            "?? d3/new.rs",
            "?? newdir/deep/n.rs",
        ] {
            assert!(fast.contains(&line.to_owned()), "{line} in {fast:?}");
        }
        assert!(
            !fast
                .iter()
                .any(|l| l.contains("touched") || l.contains(".log"))
        );
        assert_eq!(fast.iter().filter(|l| l.starts_with(" D d2/")).count(), 110);

        // Something staged: libgit2 reads all of it, and says the same.
        git(root, &["add", "a.txt"]);
        let (fast, full, scanned) = both(root);
        assert!(!scanned);
        assert_eq!(fast, full);
        assert!(fast.contains(&"M  a.txt".to_owned()), "{fast:?}");
        // An index in version 4 (paths prefix-compressed) reads the same. (`git reset` would
        // leave the cached tree invalid, so commit instead.)
        git(root, &["commit", "-qm", "staged"]);
        git(root, &["update-index", "--index-version", "4"]);
        let (fast, full, scanned) = both(root);
        assert!(scanned);
        assert_eq!(fast, full);
        // An intent-to-add entry is left to libgit2.
        git(root, &["add", "-N", "new.txt"]);
        let (fast, full, scanned) = both(root);
        assert!(!scanned);
        assert_eq!(fast, full);
    }

    #[test]
    fn a_walk_done_before_the_repository_opened_is_used_only_for_its_own_worktree() {
        use crate::git::{Repo, Walked};
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main");
        std::fs::create_dir_all(main.join("src")).unwrap();
        git(&main, &["init", "-q", "-b", "main"]);
        for i in 0..20 {
            std::fs::write(main.join(format!("src/f{i}.rs")), format!("{i}\n")).unwrap();
        }
        git(&main, &["add", "-A"]);
        git(&main, &["commit", "-qm", "init"]);
        let linked = dir.path().join("linked");
        git(&main, &["worktree", "add", "-q", linked.to_str().unwrap()]);
        std::fs::write(linked.join("src/f3.rs"), "changed in the linked worktree\n").unwrap();
        std::fs::write(linked.join("new.txt"), "untracked\n").unwrap();
        let linked_git_dir = main.join(".git/worktrees/linked");
        let lines =
            |v: Vec<crate::git::FileState>| v.iter().map(|f| f.porcelain()).collect::<Vec<_>>();
        let want = vec!["?? new.txt".to_owned(), " M src/f3.rs".to_owned()];

        // Its own worktree: the walk's findings are the status.
        let repo = git2::Repository::open(&linked).unwrap();
        let walked = Walked::run(&linked, &linked_git_dir).expect("walked");
        assert!(
            super::super::scan::settle(&repo, walked).is_some(),
            "the walk is taken"
        );
        let walked = Walked::run(&linked, &linked_git_dir);
        assert_eq!(
            lines(Repo::open(&linked).unwrap().status_after(walked).unwrap()),
            want
        );
        // Another worktree's walk is not taken for this one's status.
        let walked = Walked::run(&linked, &linked_git_dir);
        assert!(lines(Repo::open(&main).unwrap().status_after(walked).unwrap()).is_empty());
        // A configuration that stat data cannot follow (file modes not tracked), set after the
        // walk saw a mode change: the repository reads the status itself, where a mode change
        // is no change.
        std::fs::set_permissions(
            linked.join("src/f4.rs"),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let walked = Walked::run(&linked, &linked_git_dir);
        assert!(
            format!("{walked:?}").contains("src/f4.rs"),
            "the walk saw the mode change"
        );
        git(&main, &["config", "core.filemode", "false"]);
        assert_eq!(
            lines(Repo::open(&linked).unwrap().status_after(walked).unwrap()),
            want
        );
        // No walk at all: the same.
        assert_eq!(
            lines(Repo::open(&linked).unwrap().status_after(None).unwrap()),
            want
        );
    }
}
