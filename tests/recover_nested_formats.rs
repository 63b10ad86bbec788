//! A nested repository of another object format (SHA-256 inside a SHA-1 project, or the
//! reverse) cannot be fetched from, so its history is kept in the enclosing repository as a
//! bundle (`refs/dibs/nested/bundle/<id>`, never pushed): after `rm -rf` of its folder and gc,
//! `recover` lists it and `recover PATH` makes the repository again, with the same commit ids,
//! its branch checked out and the uncommitted work written back (red-team 4/08). The bundle
//! follows each commit, goes once the commits are on the nested repository's remote, is capped
//! by `dibs.nestedBundleMax`, and is never made for a repository of the same format.

mod common;
mod recover_support;

use std::path::{Path, PathBuf};

use common::*;
use recover_support::*;

/// A project (with a session started) of object format `outer`, ignoring `vendor/`, holding a
/// repository of format `inner` at `vendor/lib` with one commit `base`.
fn project(outer: &str, inner: &str) -> (tempfile::TempDir, PathBuf, PathBuf, Agent) {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    sh(
        &base,
        &format!(
            "git init -q --bare -b main --object-format={outer} remote.git \
             && git init -q -b main --object-format={outer} proj && cd proj \
             && echo vendor/ > .gitignore && git add .gitignore && git commit -qm ignore \
             && git remote add origin ../remote.git && git push -q -u origin main \
             && git init -q --bare -b main --object-format={inner} ../lib.git \
             && git init -q -b main --object-format={inner} vendor/lib && cd vendor/lib \
             && echo base > a.txt && echo keep > b.txt && git add . && git commit -qm base \
             && git remote add origin ../../../lib.git && git push -q -u origin main"
        ),
    );
    let proj = base.join("proj");
    hook(&proj, &session_start("fmt-s1", &proj, "startup")).assert_silent();
    let agent = Agent::new("fmt-s1", &proj);
    (tmp, proj.clone(), proj.join("vendor/lib"), agent)
}

fn bundle_refs(proj: &Path) -> String {
    git_out(
        proj,
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/dibs/nested/bundle/",
        ],
    )
}

/// `git log` of every ref of the repository at `dir`: ids and subjects.
fn history(dir: &Path) -> String {
    git_out(
        dir,
        &[
            "log",
            "--branches",
            "--remotes",
            "--tags",
            "--glob=refs/dibs/retention/*",
            "--format=%H %s",
        ],
    )
}

fn doctor_says(proj: &Path) -> String {
    out_text(&dibs(proj, &["doctor"]))
}

/// The whole story in a project of format `outer` with a nested repository of `inner`.
fn history_comes_back(outer: &str, inner: &str) {
    let (_tmp, proj, lib, agent) = project(outer, inner);
    agent.write("vendor/lib/a.txt", b"s1 patch\n");
    agent.bash("git -C vendor/lib commit -qm 's1 patch, unpushed' a.txt");
    let refs = bundle_refs(&proj);
    assert_eq!(refs.lines().count(), 1, "no bundle kept: {refs}");
    let first = git_out(&proj, &["rev-parse", refs.trim()]);
    // A second commit updates the bundle: the new history replaces the old.
    agent.write("vendor/lib/c.txt", b"second\n");
    let line = "cd vendor/lib && git add c.txt && git commit -qm second";
    assert_eq!(agent.pre_bash(line).code, 0);
    sh(&proj, line);
    let post = agent.post_bash(line);
    assert_eq!(
        (post.code, post.stdout.as_str(), post.stderr.as_str()),
        (0, "", ""),
        "keeping the bundle is not silent"
    );
    let second = git_out(&proj, &["rev-parse", refs.trim()]);
    assert_ne!(first, second, "the bundle did not follow the second commit");
    assert_eq!(
        git_out(&proj, &["rev-list", "--count", refs.trim()]),
        "1",
        "an older bundle is kept although nothing of it was lost"
    );
    // Uncommitted work after the commits, and one file committed and changed again.
    let later = agent.write("vendor/lib/b.txt", b"uncommitted\n");
    let head = git_out(&lib, &["rev-parse", "HEAD"]);
    let before = history(&lib);
    let said = doctor_says(&proj);
    assert!(
        !said.contains("cannot keep") && said.contains(&format!("({inner}, another object format")),
        "{said}"
    );

    sh(&proj, "rm -rf vendor");
    collect_garbage(&proj);
    let (code, out, err) = recover(&proj, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("vendor/lib kept as a bundle")
            && out.contains(&format!("{inner}, branch main at {}", &head[..7])),
        "{out}"
    );
    let json = recover_json(&proj, &[]);
    assert_eq!(json["nested_bundles"][0]["object_format"], inner, "{json}");

    let (code, out, err) = recover(&proj, &["vendor/lib"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("is back as a repository: branch main"),
        "{out}"
    );
    assert_eq!(git_out(&lib, &["rev-parse", "--show-object-format"]), inner);
    assert_eq!(history(&lib), before, "not the same commits");
    assert_eq!(git_out(&lib, &["symbolic-ref", "HEAD"]), "refs/heads/main");
    assert_eq!(git_out(&lib, &["rev-parse", "HEAD"]), head);
    assert_files(&[
        (lib.join("a.txt"), b"s1 patch\n".to_vec()),
        (lib.join("c.txt"), b"second\n".to_vec()),
        (later, b"uncommitted\n".to_vec()),
    ]);
    assert_eq!(
        git_out(&lib, &["status", "--porcelain"]),
        "M b.txt",
        "the uncommitted work is not uncommitted again"
    );
    assert!(
        git_out(&lib, &["remote", "get-url", "origin"]).ends_with("lib.git"),
        "its remote is not named again"
    );
    // Once back, nothing is listed as lost any more.
    let (_, out, _) = recover(&proj, &[]);
    assert!(!out.contains("kept as a bundle"), "{out}");

    // Never pushed: sync publishes sessions and claims only.
    let synced = dibs(&proj, &["sync"]);
    assert!(synced.status.success(), "{}", out_text(&synced));
    let remote = git_out(
        &proj.join("../remote.git"),
        &["for-each-ref", "--format=%(refname)"],
    );
    assert!(!remote.contains("nested"), "{remote}");
}

#[test]
fn a_sha256_repository_inside_a_sha1_project_comes_back_with_its_history() {
    history_comes_back("sha1", "sha256");
}

#[test]
fn a_sha1_repository_inside_a_sha256_project_comes_back_with_its_history() {
    history_comes_back("sha256", "sha1");
}

#[test]
fn a_bundle_goes_once_its_commits_are_pushed_and_stays_when_the_repository_is_made_again() {
    let (_tmp, proj, lib, agent) = project("sha1", "sha256");
    agent.bash("cd vendor/lib && echo one > one.txt && git add one.txt && git commit -qm one");
    assert_eq!(bundle_refs(&proj).lines().count(), 1);
    agent.bash("git -C vendor/lib push -q origin main");
    assert_eq!(bundle_refs(&proj), "", "kept after its commits were pushed");

    // A new unpushed commit, then the repository deleted and made again by a command: the
    // bundle of the old one is not dropped by what the new one (knowing nothing) says.
    agent.bash("cd vendor/lib && echo two > two.txt && git add two.txt && git commit -qm two");
    let old_head = git_out(&lib, &["rev-parse", "HEAD"]);
    agent.bash(
        "rm -rf vendor/lib/.git && cd vendor/lib && git init -q -b main --object-format=sha256 \
         && git add one.txt && git commit -qm fresh",
    );
    let refs = bundle_refs(&proj);
    assert_eq!(refs.lines().count(), 1, "{refs}");
    let kept = git_out(&proj, &["log", "--format=%H", refs.trim()]);
    let metas: Vec<String> = kept
        .lines()
        .map(|c| git_out(&proj, &["cat-file", "blob", &format!("{c}:meta")]))
        .collect();
    assert!(
        metas
            .iter()
            .any(|m| m.contains(&format!("head {old_head}"))),
        "the old repository's history is gone: {metas:?}"
    );
}

#[test]
fn a_history_over_the_cap_is_not_bundled_and_said_so() {
    let (_tmp, proj, _lib, agent) = project("sha1", "sha256");
    git(&proj, &["config", "dibs.nestedBundleMax", "1k"]);
    sh(
        &proj,
        "head -c 200000 /dev/urandom > vendor/lib/big.bin && git -C vendor/lib add big.bin \
         && git -C vendor/lib commit -qm big && git -C vendor/lib gc -q",
    );
    agent.bash("cd vendor/lib && echo x > x.txt && git add x.txt && git commit -qm x");
    assert_eq!(bundle_refs(&proj), "");
    let said = doctor_says(&proj);
    assert!(
        said.contains("over dibs.nestedBundleMax") && said.contains("push them"),
        "{said}"
    );
    // Raised, the next commit is kept.
    git(&proj, &["config", "dibs.nestedBundleMax", "64m"]);
    agent.bash("cd vendor/lib && echo y > y.txt && git add y.txt && git commit -qm y");
    assert_eq!(bundle_refs(&proj).lines().count(), 1);
}

#[test]
fn a_repository_of_the_same_format_is_fetched_and_its_pushed_commits_go() {
    let (_tmp, proj, lib, agent) = project("sha256", "sha256");
    agent.bash("cd vendor/lib && echo one > one.txt && git add one.txt && git commit -qm one");
    let head = git_out(&lib, &["rev-parse", "HEAD"]);
    assert_eq!(bundle_refs(&proj), "", "a bundle where a fetch does");
    let nested = || {
        git_out(
            &proj,
            &[
                "for-each-ref",
                "--format=%(objectname)",
                "refs/dibs/nested/",
            ],
        )
    };
    assert_eq!(nested(), head);
    agent.bash("git -C vendor/lib push -q origin main");
    assert_eq!(nested(), "", "a pushed commit is still kept above");
}

#[test]
fn a_bundle_is_never_unpacked_through_a_link_or_over_a_folder_that_is_there() {
    let (_tmp, proj, lib, agent) = project("sha1", "sha256");
    agent.write("vendor/lib/a.txt", b"patch\n");
    agent.bash("git -C vendor/lib commit -qam patch");
    // Folder there, not a repository: left alone, said so; files come back as before.
    sh(&proj, "rm -rf vendor/lib/.git");
    let (code, out, _) = recover(&proj, &["vendor/lib"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("move it away"), "{out}");
    assert!(!lib.join(".git").exists());
    // A link in the way: nothing is made where it points.
    let elsewhere = tempfile::tempdir().unwrap();
    sh(
        &proj,
        &format!(
            "rm -rf vendor && ln -s {} vendor",
            elsewhere.path().display()
        ),
    );
    let (_, out, _) = recover(&proj, &["."]);
    assert!(out.contains("a folder on the way is a link"), "{out}");
    assert!(!elsewhere.path().join("lib").exists());
}
