//! A nested repository of another object format (a SHA-256 repository inside a SHA-1 project,
//! or the reverse) cannot be fetched from, so its commits are kept as a `git bundle` instead:
//! the bundle file is a blob in the enclosing repository, in the tree of a parentless commit
//! that `refs/dibs/nested/bundle/<worktree id>` points at (gc keeps it; never pushed). The tree
//! holds `bundle` (the whole history of the nested repository's branches, remote-tracking
//! branches, tags, retention refs and HEAD: it needs nothing else to be cloned from) and `meta`
//! (its object format, the branch it was on, its HEAD and remote, and the refs bundled).
//!
//! A newer bundle replaces the older one, unless the nested repository no longer has a commit
//! the older one holds (it was deleted and made again): then the older is kept as the newer's
//! parent. The ref goes once every retained commit it holds is on the nested repository's
//! remote, as a retention ref does.

use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;

use crate::git::lanes::{LaneError, LaneRepo, checked_out_branch, git, git_command};
use crate::git::retention::RETENTION_PREFIX;

/// The prefix of the refs that keep nested repositories' bundles.
pub(crate) const BUNDLE_PREFIX: &str = "refs/dibs/nested/bundle/";
/// The largest `meta` read back (it is local data, but anyone in the clone may write it).
const MAX_META: usize = 64 << 10;
/// The refs of a nested repository that its bundle holds.
const BUNDLED: [&str; 4] = [
    "refs/heads/",
    "refs/remotes/",
    "refs/tags/",
    RETENTION_PREFIX,
];

/// What [`keep`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Bundled {
    /// A new bundle of this many bytes is kept.
    Kept(u64),
    /// The kept bundle holds the refs as they are: nothing made.
    Unchanged,
    /// Its history is larger than the cap (about this many bytes): nothing kept.
    TooLarge(u64),
    /// Every retained commit is on its remote: no bundle is needed (one kept was dropped).
    Nothing,
}

/// What a kept bundle says of the nested repository it was made from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct BundleMeta {
    /// Its object format (`sha1`, `sha256`).
    pub(crate) format: String,
    /// The branch its main worktree had checked out.
    pub(crate) branch: Option<String>,
    /// Its HEAD commit.
    pub(crate) head: Option<String>,
    /// The URL of its remote `origin`.
    pub(crate) remote: Option<String>,
    /// The refs bundled (`<id> <name>`, sorted).
    pub(crate) refs: Vec<String>,
}

impl BundleMeta {
    fn to_text(&self) -> String {
        let mut out = format!("format {}\n", self.format);
        for (key, value) in [
            ("branch", &self.branch),
            ("head", &self.head),
            ("remote", &self.remote),
        ] {
            if let Some(v) = value {
                out.push_str(&format!("{key} {}\n", one_line(v)));
            }
        }
        for r in &self.refs {
            out.push_str(&format!("ref {r}\n"));
        }
        out
    }

    fn parse(text: &str) -> BundleMeta {
        let mut meta = BundleMeta::default();
        for line in text.lines() {
            let Some((key, value)) = line.split_once(' ') else {
                continue;
            };
            let value = value.to_owned();
            match key {
                "format" if matches!(value.as_str(), "sha1" | "sha256") => meta.format = value,
                "branch" if crate::git::is_valid_branch_name(&value) => meta.branch = Some(value),
                "head" if value.bytes().all(|b| b.is_ascii_hexdigit()) => meta.head = Some(value),
                "remote" => meta.remote = Some(value),
                "ref" => meta.refs.push(value),
                _ => {}
            }
        }
        meta
    }

    /// The retained commits the bundle holds.
    fn retained(&self) -> impl Iterator<Item = &str> {
        self.refs.iter().filter_map(|r| {
            let (id, name) = r.split_once(' ')?;
            name.starts_with(RETENTION_PREFIX).then_some(id)
        })
    }
}

/// `text` on one line, control characters dropped.
fn one_line(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).collect()
}

/// A bundle the enclosing repository keeps.
#[derive(Debug, Clone)]
pub(crate) struct KeptBundle {
    /// The nested repository's worktree id.
    pub(crate) id: String,
    /// The ref that keeps it.
    pub(crate) reference: String,
    /// The blob of the bundle file.
    pub(crate) blob: String,
    /// Its size in bytes.
    pub(crate) bytes: u64,
    /// What it says of the nested repository.
    pub(crate) meta: BundleMeta,
}

/// The ref that keeps the bundle of the nested repository whose worktree id is `id`.
pub(crate) fn bundle_ref(id: &str) -> String {
    format!("{BUNDLE_PREFIX}{id}")
}

/// The refs [`keep`] bundles from the nested repository whose common dir is `nested`, and its
/// HEAD commit, as `<id> <name>` lines, sorted.
fn bundled_refs(nested: &Path) -> Result<Vec<String>, LaneError> {
    let mut args = vec!["for-each-ref", "--format=%(objectname) %(refname)"];
    args.extend(BUNDLED);
    let listed = git(nested, &args)?;
    let mut refs: Vec<String> = listed.lines().map(str::to_owned).collect();
    refs.sort();
    Ok(refs)
}

/// About how large a bundle of the whole history of the repository at `nested` is: its packs
/// and loose objects (`git count-objects`).
fn history_size(nested: &Path) -> u64 {
    let Ok(out) = git(nested, &["count-objects", "-v"]) else {
        return 0;
    };
    out.lines()
        .filter_map(|l| {
            let (key, value) = l.split_once(": ")?;
            matches!(key, "size" | "size-pack").then(|| value.trim().parse::<u64>().ok())?
        })
        .sum::<u64>()
        * 1024
}

/// Run `git args` in `dir` with `input` on stdin; its trimmed stdout.
fn git_with_input(dir: &Path, args: &[&str], input: &[u8]) -> Result<String, LaneError> {
    let mut child = git_command(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(LaneError::Spawn)?;
    let written = child
        .stdin
        .take()
        .map(|mut s| s.write_all(input))
        .transpose();
    let out = child.wait_with_output().map_err(LaneError::Spawn)?;
    written.map_err(LaneError::Spawn)?;
    finished(args, &out)
}

/// The trimmed stdout of `git args` that gave `out`, or [`LaneError::Failed`] with its stderr.
fn finished(args: &[&str], out: &std::process::Output) -> Result<String, LaneError> {
    if !out.status.success() {
        return Err(LaneError::Failed {
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// A bundle of the repository at `nested` (see [`BUNDLED`], and HEAD when `head`), read up to
/// `max` bytes: `None` when it is larger.
fn make_bundle(nested: &Path, head: bool, max: u64) -> Result<Option<Vec<u8>>, LaneError> {
    let mut args = vec!["bundle", "create", "--quiet", "-"];
    let globs: Vec<String> = BUNDLED.iter().map(|p| format!("--glob={p}*")).collect();
    args.extend(globs.iter().map(String::as_str));
    if head {
        args.push("HEAD");
    }
    let mut child = git_command(nested)
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(LaneError::Spawn)?;
    let mut bytes = Vec::new();
    if let Some(out) = child.stdout.take() {
        out.take(max + 1)
            .read_to_end(&mut bytes)
            .map_err(LaneError::Spawn)?;
    }
    if bytes.len() as u64 > max {
        let _ = child.kill();
        let _ = child.wait();
        return Ok(None);
    }
    let out = child.wait_with_output().map_err(LaneError::Spawn)?;
    finished(&args, &out).map(|_| Some(bytes))
}

/// The bundle kept for the nested repository whose worktree id is `id`, in the enclosing
/// repository at `outer_root`, with the commit that holds it.
pub(crate) fn kept(outer_root: &Path, id: &str) -> Option<(KeptBundle, String)> {
    let reference = bundle_ref(id);
    let holder = git(outer_root, &["rev-parse", "-q", "--verify", &reference]).ok()?;
    let listing = git(outer_root, &["ls-tree", "-l", &holder]).ok()?;
    let (mut blob, mut bytes, mut meta) = (None, 0, None);
    for line in listing.lines() {
        // `<mode> blob <id> <size>\t<name>`
        let Some((head, name)) = line.split_once('\t') else {
            continue;
        };
        let fields: Vec<&str> = head.split_whitespace().collect();
        let [_, "blob", object, size] = fields[..] else {
            continue;
        };
        match name {
            "bundle" => {
                blob = Some(object.to_owned());
                bytes = size.parse().unwrap_or(0);
            }
            "meta" => meta = Some(object.to_owned()),
            _ => {}
        }
    }
    let meta = meta
        .and_then(|m| git(outer_root, &["cat-file", "blob", &m]).ok())
        .map(|t| BundleMeta::parse(&t[..t.len().min(MAX_META)]))
        .unwrap_or_default();
    let kept = KeptBundle {
        id: id.to_owned(),
        reference,
        blob: blob?,
        bytes,
        meta,
    };
    Some((kept, holder))
}

/// Every bundle the enclosing repository at `outer_root` keeps.
pub(crate) fn all_kept(outer_root: &Path) -> Vec<KeptBundle> {
    let Ok(listed) = git(
        outer_root,
        &["for-each-ref", "--format=%(refname)", BUNDLE_PREFIX],
    ) else {
        return Vec::new();
    };
    listed
        .lines()
        .filter_map(|r| r.strip_prefix(BUNDLE_PREFIX))
        .filter(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_hexdigit()))
        .filter_map(|id| kept(outer_root, id).map(|(k, _)| k))
        .collect()
}

/// Keep the commits of the nested repository whose common dir is `nested` (worktree id `id`)
/// as a bundle in the enclosing repository at `outer_root`, when its history is at most `max`
/// bytes. Nothing is made when the kept bundle holds its refs as they are; the kept one is
/// dropped when every retained commit is on the nested repository's remote.
pub(crate) fn keep(
    outer_root: &Path,
    nested: &Path,
    id: &str,
    max: u64,
) -> Result<Bundled, LaneError> {
    let repo = LaneRepo::open(nested)?;
    let refs = bundled_refs(nested)?;
    let previous = kept(outer_root, id);
    let reference = bundle_ref(id);
    let unpushed = refs
        .iter()
        .filter_map(|r| r.split_once(' '))
        .any(|(tip, name)| name.starts_with(RETENTION_PREFIX) && !repo.on_remote(tip));
    if !unpushed {
        // Nothing to keep. A kept bundle goes once what it retains is on the remote here (not
        // when the repository was made again and knows nothing of it).
        if let Some((k, holder)) = &previous
            && k.meta.retained().all(|tip| repo.on_remote(tip))
        {
            git(outer_root, &["update-ref", "-d", &reference, holder])?;
        }
        return Ok(Bundled::Nothing);
    }
    if previous.as_ref().is_some_and(|(k, _)| k.meta.refs == refs) {
        return Ok(Bundled::Unchanged);
    }
    let estimate = history_size(nested);
    if estimate > max {
        return Ok(Bundled::TooLarge(estimate));
    }
    let head = repo.commit_of("HEAD");
    let Some(bytes) = make_bundle(nested, head.is_some(), max)? else {
        return Ok(Bundled::TooLarge(max.max(estimate)));
    };
    let meta = BundleMeta {
        format: super::object_format(nested),
        branch: checked_out_branch(nested),
        head,
        remote: repo.config("remote.origin.url"),
        refs,
    };
    let blob = git_with_input(outer_root, &["hash-object", "-w", "--stdin"], &bytes)?;
    let meta_blob = git_with_input(
        outer_root,
        &["hash-object", "-w", "--stdin"],
        meta.to_text().as_bytes(),
    )?;
    let tree = git_with_input(
        outer_root,
        &["mktree"],
        format!("100644 blob {blob}\tbundle\n100644 blob {meta_blob}\tmeta\n").as_bytes(),
    )?;
    // The older bundle stays, as a parent, when this repository lost a commit it holds.
    let lost = |k: &KeptBundle| {
        k.meta
            .refs
            .iter()
            .filter_map(|r| r.split_once(' '))
            .any(|(old, _)| {
                !meta
                    .refs
                    .iter()
                    .filter_map(|r| r.split_once(' '))
                    .any(|(new, _)| repo.is_ancestor(old, new))
            })
    };
    let mut args = vec!["commit-tree", tree.as_str(), "-m"];
    let message = format!("git-dibs: the commits of a {} repository", meta.format);
    args.push(&message);
    let parent = previous
        .as_ref()
        .filter(|(k, _)| lost(k))
        .map(|(_, h)| h.clone());
    if let Some(p) = &parent {
        args.extend(["-p", p.as_str()]);
    }
    let commit = git_command(outer_root)
        .args(&args)
        .env("GIT_AUTHOR_NAME", "git-dibs")
        .env("GIT_AUTHOR_EMAIL", "git-dibs@localhost")
        .env("GIT_COMMITTER_NAME", "git-dibs")
        .env("GIT_COMMITTER_EMAIL", "git-dibs@localhost")
        .output()
        .map_err(LaneError::Spawn)?;
    let commit = finished(&args, &commit)?;
    let old = previous.map(|(_, h)| h).unwrap_or_default();
    git(
        outer_root,
        &[
            "update-ref",
            "-m",
            "git-dibs: keep a nested repository's commits",
            &reference,
            &commit,
            &old,
        ],
    )?;
    Ok(Bundled::Kept(bytes.len() as u64))
}

/// Make the nested repository of `kept` again at `root` (a folder that is missing or empty),
/// from its bundle in the enclosing repository at `outer_root`: `git init` with its object
/// format, every bundled ref fetched (the same commit ids), its remote `origin` named again,
/// and the branch it was on (else its HEAD) checked out. Returns what was checked out.
pub(crate) fn restore(
    outer_root: &Path,
    kept: &KeptBundle,
    root: &Path,
) -> Result<String, LaneError> {
    std::fs::create_dir_all(root).map_err(LaneError::Spawn)?;
    let format = if kept.meta.format.is_empty() {
        "sha1"
    } else {
        kept.meta.format.as_str()
    };
    git(
        root,
        &["init", "-q", &format!("--object-format={format}"), "."],
    )?;
    let file = root.join(".git").join("dibs-recovered.bundle");
    let out = std::fs::File::create(&file).map_err(LaneError::Spawn)?;
    let status = git_command(outer_root)
        .args(["cat-file", "blob", &kept.blob])
        .stdout(out)
        .stderr(Stdio::null())
        .status()
        .map_err(LaneError::Spawn)?;
    let source = file.to_string_lossy().into_owned();
    let specs: Vec<String> = BUNDLED.iter().map(|p| format!("+{p}*:{p}*")).collect();
    let mut args = vec![
        "fetch",
        "--quiet",
        "--update-head-ok",
        "--no-tags",
        "--no-write-fetch-head",
        source.as_str(),
    ];
    args.extend(specs.iter().map(String::as_str));
    let fetched = if status.success() {
        git(root, &args).map(|_| ())
    } else {
        Err(LaneError::Failed {
            args: format!("cat-file blob {}", kept.blob),
            stderr: "the bundle cannot be read".into(),
        })
    };
    let _ = std::fs::remove_file(&file);
    fetched?;
    if let Some(url) = &kept.meta.remote {
        let _ = git(root, &["remote", "add", "origin", url]);
    }
    let branch = kept.meta.branch.as_ref().filter(|b| {
        git(
            root,
            &["rev-parse", "-q", "--verify", &format!("refs/heads/{b}")],
        )
        .is_ok()
    });
    let what = match (branch, &kept.meta.head) {
        (Some(b), _) => {
            git(root, &["symbolic-ref", "HEAD", &format!("refs/heads/{b}")])?;
            format!("branch {b}")
        }
        (None, Some(head)) => {
            git(root, &["update-ref", "--no-deref", "HEAD", head])?;
            format!("detached HEAD {}", crate::git::lanes::short_sha(head))
        }
        (None, None) => return Ok("nothing checked out".into()),
    };
    git(root, &["reset", "-q", "--hard"])?;
    Ok(what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_reads_back_and_refuses_what_it_never_writes() {
        let meta = BundleMeta {
            format: "sha256".into(),
            branch: Some("main".into()),
            head: Some("ab12".into()),
            remote: Some("https://example.com/x\n.git".into()),
            refs: vec!["ab12 refs/heads/main".into()],
        };
        let back = BundleMeta::parse(&meta.to_text());
        assert_eq!(back.remote.as_deref(), Some("https://example.com/x.git"));
        assert_eq!(back.refs, meta.refs);
        assert_eq!(back.branch, meta.branch);
        let forged = BundleMeta::parse("format md5\nbranch -x\nhead zz\n");
        assert_eq!(forged, BundleMeta::default());
    }
}
