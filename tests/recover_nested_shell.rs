//! A program run at the project's top writes inside its submodules and nested repositories as
//! easily as anywhere: the scan after the command goes into each (a submodule, an untracked
//! clone, one two levels down, an ignored `vendor/` clone, a SHA-256 one, a submodule of a
//! lane), so what it wrote there is in their snapshots and the project's, and survives a
//! peer's `git submodule foreach 'git checkout -- . && git clean -fd'` or
//! `git -C nested reset --hard`. A clean submodule costs no snapshot and no store.

mod common;
mod recover_support;

use std::path::{Path, PathBuf};

use common::*;
use recover_support::*;

/// A repository made by `git init` at `rel` inside `root` (`format`: its object format), one
/// file committed.
fn init_nested(root: &Path, rel: &str, format: &str) -> PathBuf {
    sh(
        root,
        &format!(
            "git init -q -b main --object-format={format} {rel} && cd {rel} && echo n > n.c \
             && git add n.c && git commit -qm n"
        ),
    );
    root.join(rel)
}

/// `repo` with the repository `lib` as submodule `sub`, committed.
fn with_submodule(repo: &TestRepo, lib: &TestRepo) {
    add_submodule(&repo.root, lib.root.to_str().unwrap(), "sub");
    git(&repo.root, &["commit", "-qm", "sub"]);
}

/// A command that writes each `(path, text)` from inside a program (`python3 -c`), so no word
/// of the command line names a path: only the scan after it can find what it wrote.
fn program_writes(files: &[(&str, &str)]) -> String {
    let body: Vec<String> = files
        .iter()
        .map(|(p, t)| format!("open('{p}','w').write('{t}')"))
        .collect();
    format!("python3 -c \"{}\"", body.join("; "))
}

fn refs_dibs(dir: &Path) -> String {
    git_out(dir, &["for-each-ref", "--format=%(refname)", "refs/dibs/"])
}

#[test]
fn a_scripts_writes_inside_a_submodule_and_nested_repositories_survive_their_reset() {
    let repo = TestRepo::new();
    let lib = TestRepo::new();
    with_submodule(&repo, &lib);
    init_nested(&repo.root, "nested", "sha1");
    init_nested(&repo.root, "nested/inner", "sha1");
    let s1 = Agent::started("nest-s1", &repo.root);
    let s2 = Agent::started("nest-s2", &repo.root);
    s1.bash(&program_writes(&[
        ("sub/gen.c", "NEW_sub"),
        ("sub/src/lib.rs", "MOD_sub"),
        ("nested/gen.c", "NEW_nested"),
        ("nested/n.c", "MOD_nested"),
        ("nested/inner/gen.c", "NEW_inner"),
        ("nested/inner/n.c", "MOD_inner"),
        ("top.txt", "TOP"),
    ]));
    s2.bash("git submodule foreach -q 'git checkout -q -- . && git clean -fdq'");
    s2.bash("git -C nested reset -q --hard && git -C nested clean -fdq");
    s2.bash("git -C nested/inner reset -q --hard && git -C nested/inner clean -fdq");
    assert!(
        !repo.root.join("sub/gen.c").exists() && !repo.root.join("nested/inner/gen.c").exists()
    );
    for dir in [".", "sub", "nested", "nested/inner"] {
        collect_garbage(&repo.root.join(dir));
    }
    for text in [
        "NEW_sub",
        "MOD_sub",
        "NEW_nested",
        "MOD_nested",
        "NEW_inner",
        "MOD_inner",
        "TOP",
    ] {
        assert!(
            has_blob(&repo.root, text.as_bytes()),
            "{text} is not kept in the project"
        );
    }
    // Kept in their own repositories too.
    assert!(has_blob(&repo.root.join("sub"), b"NEW_sub"));
    assert!(has_blob(&repo.root.join("nested/inner"), b"MOD_inner"));
    assert_recovers(
        &repo.root,
        &["nested/inner/gen.c"],
        &[(repo.root.join("nested/inner/gen.c"), b"NEW_inner".to_vec())],
    );
    assert_recovers(
        &repo.root,
        &["sub/gen.c"],
        &[(repo.root.join("sub/gen.c"), b"NEW_sub".to_vec())],
    );
}

#[test]
fn an_ignored_clone_a_sha256_repository_and_a_lanes_submodule_are_scanned_too() {
    let repo = TestRepo::new();
    let lib = TestRepo::new();
    with_submodule(&repo, &lib);
    sh(
        &repo.root,
        "echo vendor/ > .gitignore && git add .gitignore && git commit -qm ignore",
    );
    init_nested(&repo.root, "vendor/lib", "sha1");
    init_nested(&repo.root, "n256", "sha256");
    let lane = repo.worktree("lane");
    sh(
        &lane,
        "git -c protocol.file.allow=always submodule update --init -q",
    );
    let s1 = Agent::started("nest-l1", &repo.root);
    let s2 = Agent::started("nest-l2", &repo.root);
    let in_lane = format!("{}/sub/gen.c", lane.display());
    s1.bash(&program_writes(&[
        ("vendor/lib/gen.c", "IGN_vendor"),
        ("n256/n.c", "SHA256_mod"),
        (&in_lane, "LANE_sub"),
    ]));
    s2.bash(&format!(
        "git -C vendor/lib clean -fdq && git -C n256 reset -q --hard \
         && git -C {}/sub clean -fdq",
        lane.display()
    ));
    collect_garbage(&repo.root);
    for text in ["IGN_vendor", "SHA256_mod", "LANE_sub"] {
        assert!(
            has_blob(&repo.root, text.as_bytes()),
            "{text} is not kept in the project"
        );
    }
    assert_recovers(
        &repo.root,
        &["n256/n.c", "--force"],
        &[(repo.root.join("n256/n.c"), b"SHA256_mod".to_vec())],
    );
}

#[test]
fn a_clean_submodule_and_nested_repository_get_no_snapshot_and_no_store() {
    let repo = TestRepo::new();
    let lib = TestRepo::new();
    with_submodule(&repo, &lib);
    init_nested(&repo.root, "nested", "sha1");
    sh(
        &repo.root,
        "echo target/ > .gitignore && git add .gitignore && git commit -qm ignore",
    );
    let s1 = Agent::started("nest-c1", &repo.root);
    for command in [
        program_writes(&[("top.txt", "T")]).as_str(),
        "mkdir -p target/debug && printf O > target/debug/out",
        "ls sub nested",
    ] {
        s1.bash_silent(command);
    }
    for dir in ["sub", "nested"] {
        assert_eq!(refs_dibs(&repo.root.join(dir)), "", "{dir}");
    }
    assert!(!repo.root.join(".git/modules/sub/dibs").exists());
    assert!(!repo.root.join("nested/.git/dibs").exists());
    let listing = recover_json(&repo.root, &[]);
    let paths = listed_paths(&listing);
    assert!(
        paths
            .iter()
            .all(|p| !p.contains("sub/") && !p.contains("nested/")),
        "{paths:?}"
    );
}
