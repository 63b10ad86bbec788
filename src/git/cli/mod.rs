//! The `git` command in place of libgit2, for repositories libgit2 cannot open: SHA-256 object
//! ids (`extensions.objectFormat`), reftable refs (`extensions.refStorage`, git's default from
//! Git 3.0), or any other repository extension it does not know. Nothing here runs for an
//! ordinary repository: the format is read only after libgit2 has failed to open one (or when
//! a file already read says so, such as reftable's stub `HEAD`), so the fast path pays nothing.
//! The same reads (status, refs, ancestry, config) and the snapshot writer answer here through
//! git's plumbing, one process per question, so the product's promises hold in these formats
//! too, only slower.

pub(crate) mod oldgit;
mod repo;
pub(crate) mod snapshots;
mod status;

use std::fmt;
use std::path::{Path, PathBuf};

pub(crate) use repo::CliRepo;
pub(crate) use repo::commits_of;
pub(crate) use status::parse_status;

/// A repository format libgit2 cannot open, as its config declares it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Format {
    /// `extensions.objectFormat`, when it is not `sha1` (`sha256`).
    pub(crate) objects: Option<String>,
    /// `extensions.refStorage`, when it is not `files` (`reftable`).
    pub(crate) refs: Option<String>,
    /// Other extensions set that libgit2 does not know, by name.
    pub(crate) other: Vec<String>,
}

/// Extensions libgit2 1.9 opens a repository with.
const LIBGIT2_KNOWS: [&str; 5] = [
    "noop",
    "objectformat",
    "worktreeconfig",
    "partialclone",
    "preciousobjects",
];

impl Format {
    /// The format declared by the config of the clone whose common git dir is `common_dir`;
    /// `None` when it declares nothing libgit2 lacks (or the config cannot be read).
    pub(crate) fn of_common_dir(common_dir: &Path) -> Option<Format> {
        let text = std::fs::read_to_string(common_dir.join("config")).ok()?;
        Format::parse(&text)
    }

    /// The format of the repository at `path`: a worktree root, a path inside one, or a git dir.
    pub(crate) fn of(path: &Path) -> Option<Format> {
        Format::of_common_dir(&repository_common_dir(path)?)
    }

    /// The format a config file's text declares.
    fn parse(config: &str) -> Option<Format> {
        let mut format = Format::default();
        let mut in_extensions = false;
        for line in config.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                in_extensions = line
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .trim()
                    .eq_ignore_ascii_case("extensions");
                continue;
            }
            if !in_extensions || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            let (key, value) = line.split_once('=').unwrap_or((line, "true"));
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim().trim_matches('"').to_ascii_lowercase();
            match key.as_str() {
                "objectformat" if value != "sha1" => format.objects = Some(value),
                "refstorage" if value != "files" => format.refs = Some(value),
                k if LIBGIT2_KNOWS.contains(&k) || k == "refstorage" => {}
                k => format.other.push(k.to_owned()),
            }
        }
        (format != Format::default()).then_some(format)
    }

    /// Whether object ids are SHA-256 (64 hex digits).
    pub(crate) fn sha256(&self) -> bool {
        self.objects.as_deref() == Some("sha256")
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        match self.objects.as_deref() {
            Some("sha256") => parts.push("SHA-256 object ids".to_owned()),
            Some(o) => parts.push(format!("{o} object ids")),
            None => {}
        }
        if let Some(r) = &self.refs {
            parts.push(format!("{r} refs"));
        }
        for o in &self.other {
            parts.push(format!("extensions.{o}"));
        }
        f.write_str(&parts.join(" and "))
    }
}

/// The common git dir of the repository at `path` (a worktree root, a path in one, or a git
/// dir), by git's administrative files alone.
pub(crate) fn repository_common_dir(path: &Path) -> Option<PathBuf> {
    if path.join("HEAD").is_file()
        && (path.join("objects").exists() || path.join("commondir").is_file())
    {
        return std::fs::canonicalize(super::common_dir_of(path)).ok();
    }
    super::locate(path, Path::new(".")).map(|l| l.worktree.common_dir)
}

/// The branch named in reftable's stub `HEAD` (`ref: refs/heads/.invalid`), which keeps older
/// git from taking the folder for something else: the real HEAD is in the reftable.
pub(crate) const REFTABLE_STUB_BRANCH: &str = ".invalid";

/// The branch checked out in the worktree whose git dir is `git_dir`, asked of git (for a
/// reftable repository, whose `HEAD` file is a stub).
pub(crate) fn head_branch(git_dir: &Path) -> Option<String> {
    CliRepo::open(git_dir, None).head_branch()
}

/// The commit checked out in the worktree whose git dir is `git_dir`, asked of git.
pub(crate) fn head_commit(git_dir: &Path) -> Option<String> {
    CliRepo::open(git_dir, None).commit_of("HEAD")
}

/// A stand-in libgit2 handle beside a [`CliRepo`], for a type that holds one: an empty
/// in-memory repository (no file opened) that nothing reads, since every read of a repository
/// sent to git goes to git first.
pub(crate) fn placeholder() -> Result<git2::Repository, git2::Error> {
    git2::Repository::from_odb(git2::Odb::new()?)
}

/// `git` failing to answer in a repository of a format libgit2 cannot open.
#[derive(Debug, thiserror::Error)]
#[error("`git {args}` failed: {message}")]
pub(crate) struct CliError {
    args: String,
    message: String,
}

/// Run `git args` in `dir` (stdin `input`, or closed) and return its stdout; a failure carries
/// the first line of its stderr.
pub(crate) fn run(dir: &Path, args: &[&str], input: Option<&[u8]>) -> Result<Vec<u8>, CliError> {
    run_with(dir, args, input, &[])
}

/// [`run`] with stdin closed and `env` set for git (such as `GIT_INDEX_FILE`).
pub(crate) fn run_in(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<Vec<u8>, CliError> {
    run_with(dir, args, None, env)
}

pub(crate) fn run_with(
    dir: &Path,
    args: &[&str],
    input: Option<&[u8]>,
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<Vec<u8>, CliError> {
    use std::io::Write;
    use std::process::Stdio;
    // The subcommand names the question; its options would only make the message long.
    let err = |message: String| CliError {
        args: args.first().copied().unwrap_or_default().to_owned(),
        message,
    };
    let mut cmd = super::lanes::git_command(dir);
    cmd.args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        // A path is a path: `*` or `:(…)` in a file name is no pattern (a caller's `env` may
        // say otherwise, for a command that refuses pathspec magic).
        .env("GIT_LITERAL_PATHSPECS", "1")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if input.is_some() {
        cmd.stdin(Stdio::piped());
    }
    let mut child = cmd.spawn().map_err(|e| err(e.to_string()))?;
    let pid = child.id();
    crate::platform::deadline::track(pid);
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        // A child that exits early closes its end: its exit status tells.
        let _ = stdin.write_all(bytes);
    }
    let out = child.wait_with_output();
    crate::platform::deadline::untrack(pid);
    let out = out.map_err(|e| err(e.to_string()))?;
    if !out.status.success() {
        // git's first two lines: `fatal: unknown repository extension found:` names it on the
        // next one.
        let text = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .take(2)
            .collect();
        let message = if oldgit::is_too_old(&text) {
            oldgit::message(&text)
        } else if lines.is_empty() {
            format!("it exited with {}", out.status)
        } else {
            lines.join(" ")
        };
        return Err(err(crate::text::clean(&message, 300)));
    }
    Ok(out.stdout)
}

/// [`run`] for text output, trimmed at its end.
pub(crate) fn run_text(dir: &Path, args: &[&str]) -> Result<String, CliError> {
    let out = run(dir, args, None)?;
    Ok(String::from_utf8_lossy(&out).trim_end().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_is_read_from_the_extensions_section_only() {
        let sha = Format::parse(
            "[core]\n\tobjectformat = sha256\n[extensions]\n\tobjectFormat = sha256\n",
        );
        assert_eq!(sha.as_ref().map(Format::sha256), Some(true));
        assert_eq!(sha.unwrap().to_string(), "SHA-256 object ids");
        let both = Format::parse("[extensions]\nobjectformat=sha256\nrefStorage = reftable\n");
        assert_eq!(
            both.unwrap().to_string(),
            "SHA-256 object ids and reftable refs"
        );
        assert_eq!(
            Format::parse("[extensions]\n\tworktreeConfig = true\n"),
            None
        );
        assert_eq!(
            Format::parse("[extensions]\nobjectformat = sha1\nrefstorage = files\n"),
            None
        );
        assert_eq!(Format::parse("[core]\n\tbare = false\n"), None);
        let other = Format::parse("[Extensions]\n\trelativeWorktrees = true\n").unwrap();
        assert_eq!(other.to_string(), "extensions.relativeworktrees");
    }
}
