//! Nested repositories (a library cloned into `vendor/lib`, a `git init` inside the project, a
//! submodule, a worktree of one of them): what an agent makes there is also kept in the
//! enclosing repository, so deleting the nested folder, its `.git` with it, loses nothing for
//! good: `recover` in the enclosing repository lists the nested path and writes the files back
//! under it; the nested repository's retained commits are kept there under
//! `refs/dibs/nested/`, never pushed.

mod common;
mod recover_support;

use std::path::{Path, PathBuf};

use common::*;
use recover_support::*;

/// A repository with its own bare remote, cloned to `at` (inside the project).
fn clone_nested(repo: &TestRepo, at: &str) -> PathBuf {
    let src = TestRepo::new();
    let dest = repo.root.join(at);
    std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
    git(
        &repo.root,
        &[
            "clone",
            "-q",
            src.remote.to_str().unwrap(),
            dest.to_str().unwrap(),
        ],
    );
    // The remote must outlive this function: keep its folder.
    std::mem::forget(src);
    dest
}

/// `name` ignored by the project (committed `.gitignore`).
fn ignore(repo: &TestRepo, name: &str) {
    let gi = repo.root.join(".gitignore");
    let mut text = std::fs::read_to_string(&gi).unwrap_or_default();
    text.push_str(name);
    text.push('\n');
    std::fs::write(&gi, text).unwrap();
    sh(&repo.root, "git add .gitignore && git commit -qm ignore");
}

fn started(id: &str, cwd: &Path) -> Agent {
    hook(cwd, &session_start(id, cwd, "startup")).assert_silent();
    Agent::new(id, cwd)
}

fn object_in(root: &Path, sha: &str) -> bool {
    git_command(root)
        .args(["cat-file", "-e", &format!("{sha}^{{commit}}")])
        .status()
        .unwrap()
        .success()
}

#[test]
fn a_nested_clone_deleted_whole_comes_back_from_the_enclosing_repository() {
    let repo = TestRepo::new();
    ignore(&repo, "vendor/");
    let lib = clone_nested(&repo, "vendor/lib");
    let agent = started("nest-s1", &repo.root);
    let patched = agent.write("vendor/lib/src/lib.rs", b"pub fn patched() {}\n");
    let made = agent.write("vendor/lib/deep/er/fix.c", b"int fix;\n");
    agent.bash("git -C vendor/lib commit -qam 'patch, unpushed'");
    let commit = git_out(&lib, &["rev-parse", "HEAD"]);
    assert!(
        git_out(&lib, &["for-each-ref", "refs/dibs/retention/"]).contains(&commit[..7]),
        "git -C made a commit the nested repository does not keep"
    );
    // A later edit after the commit: the uncommitted work.
    let later = agent.write("vendor/lib/later.txt", b"after the commit\n");

    sh(&repo.root, "rm -rf vendor");
    collect_garbage(&repo.root);
    assert!(object_in(&repo.root, &commit), "the commit is lost");
    let kept = git_out(
        &repo.root,
        &["for-each-ref", "--format=%(refname)", "refs/dibs/nested/"],
    );
    assert!(!kept.is_empty());

    let (code, out, err) = recover(&repo.root, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("vendor/lib (gone, a repository of its own"),
        "{out}"
    );
    assert!(
        out.contains("deep/er/fix.c") && out.contains("later.txt"),
        "{out}"
    );
    assert!(out.contains(&format!("commit {}", &commit[..7])), "{out}");
    assert!(out.contains("nested repository"), "{out}");

    // --worktree is not how a nested repository comes back: it says so and writes nothing.
    let (code, out, _) = recover(&repo.root, &["--worktree", "vendor/lib"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("a repository of its own"), "{out}");
    assert!(!repo.root.join("vendor").exists());

    assert_recovers(
        &repo.root,
        &["vendor/lib/deep"],
        &[(made.clone(), b"int fix;\n".to_vec())],
    );
    assert!(!later.exists(), "only what was asked comes back");
    assert_recovers(
        &repo.root,
        &["vendor"],
        &[
            (patched, b"pub fn patched() {}\n".to_vec()),
            (later, b"after the commit\n".to_vec()),
        ],
    );
    assert!(!lib.join(".git").exists(), "recover never makes a git dir");
}

#[test]
fn a_submodules_git_c_commit_is_retained_and_kept_in_the_superproject() {
    let repo = TestRepo::new();
    let lib_src = TestRepo::new();
    add_submodule(&repo.root, lib_src.remote.to_str().unwrap(), "lib");
    sh(
        &repo.root,
        "git commit -qm sub && git -C lib checkout -q main",
    );
    let agent = started("nest-s2", &repo.root);
    agent.bash(
        "printf 'fix\\n' > lib/fix.txt && git -C lib add fix.txt && git -C lib commit -qm fix",
    );
    let lib = repo.root.join("lib");
    let commit = git_out(&lib, &["rev-parse", "HEAD"]);
    sh(
        &repo.root,
        "git -C lib reset -q --hard HEAD~1 && git -C lib reflog expire --expire=now --all && git -C lib gc -q --prune=now",
    );
    assert!(object_in(&lib, &commit), "lib lost its own commit");
    assert!(
        object_in(&repo.root, &commit),
        "not kept in the superproject"
    );
    // Pushed nowhere: sync publishes sessions only.
    let out = dibs(&repo.root, &["sync"]);
    assert!(out.status.success(), "{}", out_text(&out));
    let remote = git_out(&repo.remote, &["for-each-ref", "--format=%(refname)"]);
    assert!(
        !remote.contains("nested") && !remote.contains("snapshots"),
        "{remote}"
    );
}

#[test]
fn every_git_spelling_of_another_repository_gets_its_commit_retained() {
    let repo = TestRepo::new();
    ignore(&repo, "inner/");
    sh(
        &repo.root,
        "git init -q -b main inner && git -C inner commit -q --allow-empty -m base",
    );
    let inner = repo.root.join("inner");
    let agent = started("nest-s3", &repo.root);
    for (i, line) in [
        "git --git-dir=inner/.git --work-tree=inner commit -q --allow-empty -m one",
        "GIT_DIR=inner/.git git commit -q --allow-empty -m two",
        "cd inner && git commit -q --allow-empty -m three",
        "git -C ./inner/ commit -q --allow-empty -m four",
    ]
    .iter()
    .enumerate()
    {
        agent.bash(line);
        let head = git_out(&inner, &["rev-parse", "HEAD"]);
        assert!(
            git_out(&inner, &["for-each-ref", "refs/dibs/retention/"]).contains(&head[..7]),
            "#{i} `{line}`: not retained"
        );
        assert!(
            object_in(&repo.root, &head),
            "#{i} `{line}`: not kept above"
        );
    }
}

#[test]
fn deep_nesting_spaces_and_worktrees_of_the_nested_repository_are_kept_outermost() {
    let repo = TestRepo::new();
    ignore(&repo, "outer nested/");
    sh(
        &repo.root,
        "git init -q -b main 'outer nested' && cd 'outer nested' && git commit -q --allow-empty -m o \
         && git init -q -b main 'in ner' && git -C 'in ner' commit -q --allow-empty -m i \
         && git -C 'in ner' worktree add -q ../'lane of inner' -b side",
    );
    let agent = started("nest-s4", &repo.root);
    let deep = agent.write("outer nested/in ner/a b.txt", b"deep\n");
    let lane = agent.write("outer nested/lane of inner/c.txt", b"in a worktree of it\n");
    let name = String::from_utf8_lossy(b"caf\xc3\xa9.txt").into_owned();
    let accent = agent.write(&format!("outer nested/in ner/{name}"), b"accent\n");
    // A name that is not UTF-8, made by a shell command run inside the nested repository (found
    // by the scan after it), is kept above too.
    let inner = Agent::new("nest-s4", &repo.root.join("outer nested/in ner"));
    inner.bash("printf latin > \"$(printf 'caf\\351.txt')\"");
    use std::os::unix::ffi::OsStrExt;
    let latin = repo
        .root
        .join("outer nested/in ner")
        .join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt"));
    assert!(latin.exists());
    // The middle repository never ran a session: nothing of git-dibs is made there.
    assert!(!repo.root.join("outer nested/.git/dibs/nested").exists());
    sh(&repo.root, "rm -rf 'outer nested'");
    assert_recovers(
        &repo.root,
        &["outer nested"],
        &[
            (deep, b"deep\n".to_vec()),
            (lane, b"in a worktree of it\n".to_vec()),
            (accent, b"accent\n".to_vec()),
            (latin, b"latin".to_vec()),
        ],
    );
}

#[test]
fn a_nested_folder_behind_a_link_is_not_written_through() {
    let repo = TestRepo::new();
    ignore(&repo, "vendor/");
    clone_nested(&repo, "vendor/lib");
    // No session start (a host that sends none): the edit makes the enclosing store.
    let agent = Agent::new("nest-s5", &repo.root);
    agent.write("vendor/lib/x.txt", b"x\n");
    let elsewhere = tempfile::tempdir().unwrap();
    sh(
        &repo.root,
        &format!(
            "rm -rf vendor && ln -s {} vendor",
            elsewhere.path().display()
        ),
    );
    let (_, out, _) = recover(&repo.root, &["."]);
    assert!(out.contains("not written"), "{out}");
    assert!(!elsewhere.path().join("lib/x.txt").exists());
}

#[test]
fn an_ordinary_repository_and_an_unused_enclosing_one_get_nothing_new() {
    // A dotfiles-style repository around the project that git-dibs never ran in.
    let home = tempfile::tempdir().unwrap();
    let home = home.path().canonicalize().unwrap();
    git(&home, &["init", "-q", "-b", "main"]);
    let proj = home.join("proj");
    git(&home, &["init", "-q", "-b", "main", "proj"]);
    git(&proj, &["commit", "-q", "--allow-empty", "-m", "base"]);
    let agent = started("nest-s6", &proj);
    agent.write("a.txt", b"a\n");
    agent.bash("git add a.txt && git commit -qm a");
    assert!(
        !home.join(".git/dibs").exists(),
        "the unused repository got a store"
    );
    assert_eq!(git_out(&home, &["for-each-ref"]), "");
    assert!(!proj.join(".git/dibs/nested").exists());
    assert_eq!(git_out(&proj, &["for-each-ref", "refs/dibs/nested/"]), "");
}

#[test]
fn a_shell_made_file_in_an_ignored_nested_repository_is_listed_as_kept_only() {
    let repo = TestRepo::new();
    ignore(&repo, "vendor/");
    clone_nested(&repo, "vendor/lib");
    let agent = started("nest-sh", &repo.root);
    agent.bash("printf 'int gen;\\n' > vendor/lib/gen.c");
    let (code, out, err) = recover(&repo.root, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("gen.c"), "{out}");
    // Kept in the enclosing repository: not also listed as left out (red-team 4/12).
    assert!(
        !out.lines()
            .any(|l| l.contains("not kept") && l.contains("gen.c")),
        "{out}"
    );
}
