//! The Bash guard against wrappers and evasions (`cd x &&`, `git -C`, `bash -c`, `sudo`, `env`,
//! absolute paths, aliases, heredocs), unknown targets, and text that is only an argument. Each
//! `regression_*` test is named after an evasion found and closed.

mod common;
mod guard_support;

use std::fs;

use common::*;
use guard_support::*;

#[test]
fn wrappers_and_evasions_are_seen_through() {
    let f = fixture();
    let r = &f.repo.root;
    let base = f.base.to_str().unwrap();
    for cmd in [
        "cd .. && git -C repo worktree remove ../dirty",
        "cd .. && rm -rf dirty",
        "(cd .. && rm -rf dirty)",
        "{ rm -rf ../dirty; }",
        "true && rm -rf ../dirty",
        "false || rm -rf ../dirty",
        "ls | rm -rf ../dirty",
        "rm -r\\\n -f ../dirty",
        "'rm' -rf \"../dir\"ty",
        "bash -c 'git worktree remove ../dirty'",
        "sh -c \"rm -rf ../dirty\"",
        "bash -lc 'git branch -D topic'",
        "bash -c \"bash -c 'git branch -D topic'\"",
        "bash <<'EOF'\nrm -rf ../dirty\nEOF",
        "bash <<< 'git branch -D topic'",
        "sudo git branch -D topic",
        "env FOO=1 git branch -D topic",
        "command git branch -D topic",
        "exec git branch -D topic",
        "nohup git branch -D topic",
        "time git branch -D topic",
        "timeout 10 git branch -D topic",
        "nice -n 5 git branch -D topic",
        "/usr/bin/git branch -D topic",
        "git --no-pager -c core.pager=cat branch -D topic",
        "git -C ../clean branch -D topic",
        "FOO=bar git branch -D topic",
    ] {
        denied(r, cmd);
    }
    denied(
        &f.base,
        &format!("git --git-dir={base}/repo/.git branch -D topic"),
    );
    denied(&f.base, "GIT_DIR=repo/.git git branch -D topic");
    denied(&f.base, "git --git-dir=repo/.git worktree remove dirty");
}

#[test]
fn regression_worktree_remove_with_dash_c_outside_the_repository() {
    let f = fixture();
    denied(&f.repo.root, "git -C .. worktree remove dirty");
}

#[test]
fn regression_worktree_remove_by_unique_path_suffix() {
    let f = fixture();
    denied(&f.repo.root, "git worktree remove dirty");
}

#[test]
fn regression_git_aliases_for_destructive_commands() {
    let f = fixture();
    let r = &f.repo.root;
    denied(r, "git -c alias.nuke='branch -D' nuke topic");
    git(r, &["config", "alias.zap", "branch -D"]);
    denied(r, "git zap topic");
}

#[test]
fn regression_rm_of_a_symlink_to_a_worktree_passes_but_a_trailing_slash_does_not() {
    let f = fixture();
    std::os::unix::fs::symlink(&f.dirty, f.base.join("link")).unwrap();
    allowed(&f.base, "rm -rf link");
    denied(&f.base, "rm -rf link/");
}

/// Through a convenience link to a worktree (red-team 2/15): `rsync --delete` into the link (with
/// or without its `/`) is refused like `rm -rf link/`, and a `find` that follows links (`-L`,
/// `-follow`, `-H` on the link itself) is asked like a `find` over the worktree; the same
/// commands that do not go through the link stay silent.
#[test]
fn regression_rsync_and_find_through_a_link_to_a_worktree() {
    let f = fixture();
    let r = &f.repo.root;
    std::os::unix::fs::symlink(&f.dirty, r.join("L")).unwrap();
    let empty = f.base.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let e = empty.display();
    for cmd in [
        format!("rsync -a --delete {e}/ L/"),
        format!("rsync -a --delete {e}/ L"),
        format!("rsync -a --delete-after {e}/ ./L"),
        "rsync -a --remove-source-files L/ /tmp/dibs-out/".to_owned(),
    ] {
        let reason = denied(r, &cmd);
        assert!(reason.contains("[guard:worktree-rm]"), "{cmd}: {reason}");
    }
    for cmd in [
        "find -L . -name lib.rs -delete",
        "find . -follow -name lib.rs -delete",
        "find -L . -name '*.rs' -exec rm {} +",
        "find -H L -name lib.rs -delete",
        "find -L L -delete",
    ] {
        let reason = asked(r, cmd);
        assert!(reason.contains("[guard:worktree-find]"), "{cmd}: {reason}");
        assert!(reason.contains("src/lib.rs"), "{cmd}: {reason}");
    }
    for cmd in [
        format!("rsync -a {e}/ L/"),
        "rsync -a --remove-source-files L /tmp/dibs-out/".to_owned(),
        "find . -name lib.rs -delete".into(),
        "find L -name lib.rs -delete".into(),
        "find -L . -name '*.pyc' -delete".into(),
        "find -L . -name lib.rs".into(),
    ] {
        allowed(r, &cmd);
    }
}

#[test]
fn unknown_targets_are_put_to_the_person() {
    let f = fixture();
    let r = &f.repo.root;
    // A substitution whose output is known is followed: refused, not asked.
    denied(r, "rm -rf $(echo ../dirty)");
    denied(r, "rm -rf `echo ../dirty`");
    // A find with no filter over the clone deletes its git dir: refused outright.
    denied(r, "find .. -delete");
    for cmd in [
        "echo ../dirty | xargs rm -rf",
        "git branch -D $(git branch --format='%(refname:short)')",
        "$RM -rf ../dirty",
        "eval \"$CMD\"",
        "find .. -name '*.txt' -exec rm {} +",
    ] {
        let reason = asked(r, cmd);
        assert!(!reason.contains("WT_GUARD_BYPASS"), "{reason}");
    }
    allowed(r, "find . -name '*.pyc' -delete");
}

#[test]
fn text_that_is_only_an_argument_never_triggers() {
    let f = fixture();
    two_sessions(&f);
    let r = &f.repo.root;
    for cmd in [
        "git commit -m 'never git reset --hard or rm -rf ../dirty'",
        "git commit -m \"$(cat <<'EOF'\nAvoid git add -A and git branch -D topic\nEOF\n)\"",
        "echo git branch -D topic",
        "echo 'rm -rf ../dirty'",
        "grep -r 'git worktree remove' .",
        "cat <<EOF\ngit worktree remove ../dirty\nEOF",
        "python3 -c \"print('git reset --hard')\"",
        "ls # rm -rf ../dirty",
        "git log --grep='branch -D'",
        "git status",
    ] {
        allowed(r, cmd);
    }
}

#[test]
fn rule5_in_a_linked_worktree_through_dash_c_cd_and_work_tree() {
    let f = fixture();
    let wt = &f.clean;
    let file = wt.join("src/lib.rs");
    hook(wt, &edit_event("PreToolUse", "Edit", PEER, wt, &file));
    fs::write(&file, "peer work\n").unwrap();
    let r = &f.repo.root;
    allowed(r, "git add -A");
    denied(r, "git -C ../clean stash");
    denied(r, "cd ../clean && git add -A");
    denied(r, "cd ../clean/src && git add ..");
    allowed(r, "cd ../clean/src && git add .gitkeep");
    denied(
        r,
        "git --git-dir=.git/worktrees/clean --work-tree=../clean reset --hard",
    );
    denied(
        r,
        "GIT_WORK_TREE=../clean GIT_DIR=.git/worktrees/clean git checkout .",
    );
}

#[test]
fn regression_rm_of_the_repository_data_itself() {
    let f = fixture();
    let r = &f.repo.root;
    let reason = denied(r, "rm -rf .git");
    assert!(reason.contains("topic"), "{reason}");
    denied(r, "rm -rf .git/worktrees");
    denied(r, "cd .git && rm -rf refs");
    allowed(&f.clean, "rm -rf target");
}

#[test]
fn more_spellings_of_the_same_acts() {
    let f = fixture();
    let r = &f.repo.root;
    for cmd in [
        "git -C ../dirty worktree remove .",
        "cd ../dirty && git worktree remove .",
        "rm -rf ../{clean,dirty}",
        "time (rm -rf ../dirty)",
        "git branch -D topic 2>/dev/null || true",
        "if true; then git branch -D topic; fi",
        "for b in topic; do git branch -D topic; done",
        "x=1; git branch -D topic &",
        "git stash list; rm -rf ../untracked",
    ] {
        denied(r, cmd);
    }
}

/// Red team 8b/29, 18, 19: `git -C DIR` moves where `rebase -x` runs its commands, and a `-C`
/// folder that does not exist yet (a worktree or clone made earlier in the line) is asked about
/// for a subcommand that may destroy, not let through.
#[test]
fn regression_git_dash_c_into_another_or_a_new_folder() {
    let f = fixture();
    let r = &f.repo.root;
    for cmd in [
        "git -C ../clean rebase -x 'rm -rf ../dirty' --root",
        "git -C ../clean -c core.quotepath=off rebase --exec='rm -rf ../dirty' HEAD",
        "git -C .. -C clean rebase -x 'rm -rf ../dirty' HEAD",
        "git -C ../clean bisect run rm -rf ../dirty",
        "git worktree add -q ../w3x -b w3x && git -C ../w3x stash clear",
        "git worktree add -q ../w4x -b w4x && git -C ../w4x branch -D topic",
        "git worktree add -q ../w5x -b w5x && git -C ../w5x rebase -x 'rm -rf ../dirty' HEAD",
        "git clone -q . ../c5 && git -C ../c5 push -f origin topic:main",
    ] {
        stopped(r, cmd);
    }
    for cmd in [
        "git -C ../clean rebase -x 'cargo test' HEAD",
        "git worktree add -q ../w6x -b w6x && git -C ../w6x log --oneline -3",
        "git clone -q . ../c6 && git -C ../c6 status",
        "mkdir -p ../n7 && git -C ../n7 init -q",
    ] {
        allowed(r, cmd);
    }
}

/// Red team 8b/26: `cargo clean` removes the target folder it is given, whatever the spelling.
#[test]
fn regression_cargo_clean_of_a_worktree_named_as_its_target_folder() {
    let f = fixture();
    let r = &f.repo.root;
    for cmd in [
        "cargo clean --target-dir ../dirty",
        "cargo clean --manifest-path Cargo.toml --target-dir=../dirty",
        "CARGO_TARGET_DIR=../dirty cargo clean",
        "env CARGO_BUILD_TARGET_DIR=../dirty cargo +stable clean",
        "sh -c 'cargo clean --target-dir ../dirty'",
    ] {
        let reason = denied(r, cmd);
        assert!(reason.contains("[guard:worktree-rm]"), "{cmd}: {reason}");
    }
    allowed(r, "cargo clean");
    allowed(r, "cargo clean --target-dir /tmp/elsewhere-target");
}

/// Red team 8b/08, 09: a line that writes a git hook (into `.git/hooks/`, or the folder
/// `core.hooksPath` names) and then runs git runs that hook's code: asked while work is at risk.
/// Git run before the hook is written, or a write elsewhere, stays silent.
#[test]
fn regression_a_hook_written_then_fired_on_the_same_line() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    for cmd in [
        "printf '#!/bin/sh\\ngit checkout -- .\\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout && git checkout -q -b newb",
        "printf '#!/bin/sh\\nrm -f notes.txt\\n' > .git/hooks/post-index-change && chmod +x .git/hooks/post-index-change && git add mine.rs",
        "cp /tmp/evilhook .git/hooks/post-index-change && git status",
        "cd .git/hooks && cp /tmp/x post-merge && cd ../.. && git pull",
        "tee .git/hooks/post-rewrite < /tmp/x >/dev/null; git commit --amend --no-edit",
        "ln -sf /tmp/x .git/hooks/pre-push && git push",
    ] {
        let reason = asked(r, cmd);
        assert!(reason.contains("[guard:runs-code]"), "{cmd}: {reason}");
    }
    git(r, &["config", "core.hooksPath", ".githooks"]);
    fs::create_dir_all(r.join(".githooks")).unwrap();
    asked(
        r,
        "printf '#!/bin/sh\\nrm notes.txt\\n' > .githooks/post-checkout && git checkout -q -b nb2",
    );
    git(r, &["config", "--unset", "core.hooksPath"]);
    for cmd in [
        "git status && cp /tmp/x .git/hooks/post-checkout.sample",
        "echo x > /tmp/not-a-hook && git status",
        "echo x > docs.txt && git add docs.txt",
    ] {
        allowed(r, cmd);
    }
}
