//! The guard's destructive corpus (`tests/corpus/destructive.txt`) and the lines of
//! `tests/corpus/recover_only.txt` run for real, as if each had slipped through: every line in a
//! repository of its own where agents made work through the real hook (edits in the main
//! checkout, in sibling worktrees and in ignored lanes, unpushed commits on branches, a stash),
//! run by `bash` under `WT_GUARD_BYPASS=1` between its PreToolUse and PostToolUse, then
//! `reflog expire --expire=now --all` and `gc --prune=now`. Afterwards every file an agent wrote
//! and every commit it made must still be reachable from a ref, and `git dibs recover` must list
//! every file. The few lines that destroy the clone's object store or the repository itself are
//! named in [`BEYOND_REFS`] with the reason.

mod common;
mod recover_support;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::*;
use recover_support::*;

/// Lines whose loss no ref inside the clone can prevent: they delete the object store or the
/// repository that holds every ref. Only the guard's refusal stands against them
/// (`tests/self_protect.rs`, `tests/guard_corpus.rs`).
const BEYOND_REFS: [&str; 3] = [
    "rm -rf .git/objects",
    "find . -name .git -exec rm -rf {} +",
    "find . -type d -name .git -exec rm -rf {} +",
];

/// Work agents made in one repository: what must survive any line of the corpus.
struct Made {
    repo: TestRepo,
    /// Where each line may park things instead of the shared `/tmp`.
    scratch: PathBuf,
    /// (what, blob id) of every file content an agent wrote.
    blobs: Vec<(String, String)>,
    /// (what, commit id) of every commit an agent made.
    commits: Vec<(String, String)>,
    /// (session, path in its worktree) of every file an agent wrote.
    files: Vec<(String, String)>,
    /// Each file an agent left in a working copy, with the bytes it holds.
    on_disk: Vec<(PathBuf, Vec<u8>)>,
    /// Each branch with the commit it holds, as the agents left them.
    branches: Vec<(String, String)>,
}

impl Made {
    /// `agent` writes `rel` with `text` through the hook; its blob id and listing entry are
    /// recorded.
    fn write(&mut self, agent: &Agent, rel: &str, text: &str) {
        let file = agent.write(rel, text.as_bytes());
        self.on_disk.retain(|(p, _)| *p != file);
        self.on_disk.push((file.clone(), text.as_bytes().to_vec()));
        let id = git_out(&agent.cwd, &["hash-object", file.to_str().unwrap()]);
        self.blobs.push((format!("{}:{rel}", agent.id), id));
        self.files.push((agent.id.clone(), rel.to_owned()));
    }

    /// `agent` commits what it staged with `command` (a Bash tool call); the new commit is
    /// recorded.
    fn commit(&mut self, agent: &Agent, command: &str, what: &str) {
        let out = agent.bash(command);
        assert!(out.status.success(), "{command}");
        let id = git_out(&agent.cwd, &["rev-parse", "HEAD"]);
        self.commits.push((what.to_owned(), id));
    }
}

/// The repository every line of the corpus runs in: the names the corpus uses (`../dirty`,
/// `../untracked`, `.worktrees/lane`, `topic`, `src/lib.rs`, `notes.txt`, `mine.rs`), each
/// holding work an agent made through the hook.
fn made() -> Made {
    let repo = TestRepo::new();
    let root = repo.root.clone();
    let scratch = root.parent().unwrap().join("scratch");
    fs::create_dir_all(&scratch).unwrap();
    let mut m = Made {
        repo,
        scratch,
        blobs: Vec::new(),
        commits: Vec::new(),
        files: Vec::new(),
        on_disk: Vec::new(),
        branches: Vec::new(),
    };
    let peer = Agent::new("peer-main", &root);
    m.write(&peer, "src/lib.rs", "pub fn a() { /* peer's edit */ }\n");
    m.write(&peer, "notes.txt", "peer's notes\n");
    let me = Agent::new("me-main", &root);
    m.write(&me, "mine.rs", "// mine, uncommitted\n");

    let dirty = Agent::new("in-dirty", &m.repo.worktree("dirty"));
    m.write(&dirty, "src/lib.rs", "pub fn changed() {}\n");
    m.write(&dirty, "fresh/new.rs", "pub fn new() {}\n");
    let untracked = Agent::new("in-untracked", &m.repo.worktree("untracked"));
    m.write(&untracked, "notes.txt", "only here\n");

    // `topic` and `unpushed` each hold a commit no other branch and no remote has.
    let unpushed = Agent::new("in-unpushed", &m.repo.worktree("unpushed"));
    unpushed.bash("git switch -q -c topic");
    m.write(&unpushed, "more.txt", "more\n");
    m.commit(
        &unpushed,
        "git add more.txt && git commit -qm more",
        "topic: more",
    );
    unpushed.bash("git switch -q unpushed");
    m.write(&unpushed, "feature.txt", "unpushed work\n");
    m.commit(
        &unpushed,
        "git add feature.txt && git commit -qm 'unpushed work'",
        "unpushed: unpushed work",
    );

    // Lanes under `.worktrees/`, ignored as git-dibs keeps them: `lane` with a commit and
    // uncommitted work, `kept` with a stash entry (the clone's stash, shared).
    fs::write(root.join(".git/info/exclude"), ".worktrees/\n").unwrap();
    for name in ["lane", "kept"] {
        sh(
            &root,
            &format!("git worktree add -q -b {name} .worktrees/{name}"),
        );
    }
    let lane = Agent::new("in-lane", &root.join(".worktrees/lane"));
    m.write(&lane, "done.rs", "pub fn done() {}\n");
    m.commit(
        &lane,
        "git add done.rs && git commit -qm done",
        "lane: done",
    );
    m.write(&lane, "wip.rs", "// uncommitted in the lane\n");
    let kept = Agent::new("in-kept", &root.join(".worktrees/kept"));
    m.write(&kept, "stashed.txt", "stashed\n");
    kept.bash("git stash -q -u");
    let stash = git_out(&root, &["rev-parse", "refs/stash"]);
    m.commits.push(("the stash entry".into(), stash));
    m.on_disk.retain(|(p, _)| p.exists());
    m.branches = branch_tips(&root);
    m
}

/// Every ref of the clone at `root` that a line may take work from (branches and the stash),
/// with its commit.
fn branch_tips(root: &Path) -> Vec<(String, String)> {
    git_out(
        root,
        &[
            "for-each-ref",
            "--format=%(refname) %(objectname)",
            "refs/heads/",
            "refs/stash",
        ],
    )
    .lines()
    .filter_map(|l| l.split_once(' '))
    .map(|(r, c)| (r.to_owned(), c.to_owned()))
    .collect()
}

/// Whether the line took anything the agents left: a file changed or gone, a branch or the
/// stash moved or gone.
fn destroyed(m: &Made) -> bool {
    m.on_disk
        .iter()
        .any(|(p, bytes)| fs::read(p).ok().as_ref() != Some(bytes))
        || branch_tips(&m.repo.root) != m.branches
}

/// The corpora, one command line each (`\n` in a line stands for a newline), with whether it
/// must destroy something here: the guard's destructive corpus, then the lines only this test
/// runs (`recover_only.txt`, each of which must).
fn destructive() -> Vec<(String, bool)> {
    ["destructive.txt", "recover_only.txt"]
        .iter()
        .flat_map(|name| {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/corpus")
                .join(name);
            let must = *name == "recover_only.txt";
            fs::read_to_string(path)
                .unwrap()
                .lines()
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(|l| (l.replace("\\n", "\n"), must))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Run `line` as a host's Bash tool would, let through: PreToolUse under
/// `WT_GUARD_BYPASS=1`, `bash -c` with no input and a time limit (whatever it exits), then
/// PostToolUse. Paths under `/tmp/` go to the repository's own scratch folder.
fn run_let_through(m: &Made, line: &str) {
    let root = &m.repo.root;
    let line = line.replace("/tmp/", &format!("{}/", m.scratch.display()));
    let cleaner = Agent::new("cleaner", root);
    let pre = bash_hook_env(root, &cleaner.id, &line, &[("WT_GUARD_BYPASS", "1")]);
    assert_eq!(pre.code, 0, "{line}: {}", pre.stderr);
    let mut cmd = Command::new("timeout");
    with_git_env(
        cmd.args(["-k", "2", "20", "bash", "-c", &line])
            .current_dir(root),
    )
    .env_remove("GIT_DIR")
    .env_remove("GIT_WORK_TREE")
    .env("WT_GUARD_BYPASS", "1")
    // Nothing the line does may leave the test's folder: `cd -` goes back to the
    // repository, `~` is the scratch folder, and git looks for no repository above it.
    .env("HOME", &m.scratch)
    .env("OLDPWD", root)
    .env("GIT_CEILING_DIRECTORIES", root.parent().unwrap())
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    cmd.status().expect("timeout and bash run");
    let post = cleaner.post_bash_env(&line, &[("WT_GUARD_BYPASS", "1")]);
    assert_eq!(post.code, 0, "{line}: {}", post.stderr);
}

/// What of `m` is lost for good after git's garbage collection: each blob or commit no ref
/// reaches, each file `recover` does not list.
fn lost(m: &Made) -> Vec<String> {
    let root = &m.repo.root;
    collect_garbage(root);
    let reachable: BTreeSet<String> = git_out(root, &["rev-list", "--objects", "--all"])
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    let mut lost: Vec<String> = m
        .blobs
        .iter()
        .chain(&m.commits)
        .filter(|(_, id)| !reachable.contains(id))
        .map(|(what, id)| format!("{what} ({})", &id[..12]))
        .collect();
    let listing = recover_json(root, &[]);
    let entries = listing["files"].as_array().cloned().unwrap_or_default();
    for (session, path) in &m.files {
        if !entries
            .iter()
            .any(|f| f["session"] == session.as_str() && f["path"] == path.as_str())
        {
            lost.push(format!("{session}:{path} not listed by recover"));
        }
    }
    lost
}

/// Every `of`-th line of the corpus from the `part`-th (the corpus runs in parts so the test
/// harness runs them side by side): the lines that lost something, with what, and how many
/// lines destroyed anything here. A line of `recover_only.txt` that destroys nothing is a
/// finding too: each was written to destroy.
fn losses(part: usize, of: usize) -> (Vec<String>, usize) {
    let mut found = Vec::new();
    let mut destroying = 0;
    for (line, must) in destructive().iter().skip(part).step_by(of) {
        if BEYOND_REFS.contains(&line.as_str()) {
            continue;
        }
        let m = made();
        run_let_through(&m, line);
        if destroyed(&m) {
            destroying += 1;
        } else if *must {
            found.push(format!("`{line}`: destroyed nothing (recover_only.txt)"));
        }
        let lost = lost(&m);
        if !lost.is_empty() {
            found.push(format!("`{line}`: {}", lost.join(", ")));
        }
    }
    (found, destroying)
}

const PARTS: usize = 4;

#[track_caller]
fn assert_no_losses(part: usize) {
    let (found, destroying) = losses(part, PARTS);
    eprintln!("part {}: {destroying} line(s) destroyed work", part + 1);
    // About 27 of each part's 45 lines destroy work here; far fewer means the lines no longer
    // reach the fixture (a renamed folder, a shell that is missing).
    assert!(
        destroying >= 20,
        "only {destroying} line(s) destroyed anything"
    );
    assert!(
        found.is_empty(),
        "{} finding(s):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn corpus_part_1_loses_nothing_for_good() {
    assert_no_losses(0);
}

#[test]
fn corpus_part_2_loses_nothing_for_good() {
    assert_no_losses(1);
}

#[test]
fn corpus_part_3_loses_nothing_for_good() {
    assert_no_losses(2);
}

#[test]
fn corpus_part_4_loses_nothing_for_good() {
    assert_no_losses(3);
}

/// The fixture is what the corpus needs: before any line runs, everything is reachable and
/// listed, and the names the corpus uses exist.
#[test]
fn the_fixture_holds_what_the_corpus_destroys() {
    let m = made();
    let root = &m.repo.root;
    for p in [
        "../dirty/src/lib.rs",
        "../untracked/notes.txt",
        ".worktrees/lane/wip.rs",
        "notes.txt",
        "mine.rs",
    ] {
        assert!(root.join(p).exists(), "{p}");
    }
    assert!(
        git(root, &["rev-parse", "--verify", "-q", "topic"])
            .status
            .success()
    );
    assert_eq!(m.blobs.len(), 11);
    assert_eq!(m.commits.len(), 4);
    assert_eq!(lost(&m), Vec::<String>::new());
}
