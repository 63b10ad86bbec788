//! The guard through command runners (`uv run`, `nix develop -c`, `perf stat`, ...), programs
//! it does not know whose arguments hold a guarded command (asked, naming the program), shells
//! whose syntax is not POSIX's (fish, csh, pwsh: asked when their text names a guarded
//! program), zsh's precommand words, commands given in options or the environment (`tar
//! --to-command`, `BASH_ENV=<(...)`), and `((` under dash (red-team 7 findings 11, 07, 03, 02).

mod common;
mod guard_support;

use common::snap::{answer, at_now};
use common::*;
use guard_support::*;

#[test]
fn known_runners_are_judged_as_the_command_they_run() {
    let f = fixture();
    let r = &f.repo.root;
    for cmd in [
        "uv run git worktree remove --force ../dirty",
        "nix develop -c git worktree remove --force ../dirty",
        "perf stat -o /dev/null git worktree remove --force ../dirty",
        "gdb -q -batch -ex run --args git worktree remove --force ../dirty",
        "hyperfine --warmup 1 'git worktree remove --force ../dirty'",
        "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='git worktree remove --force ../dirty' README.md",
        "rbash -c 'git worktree remove --force ../dirty'",
        "echo 'git worktree remove --force ../dirty' | rbash",
        "zsh -c 'repeat 1 noglob =git worktree remove --force ../dirty'",
        "dash -c '((git worktree remove --force ../dirty))'",
        "PS4='$(git worktree remove --force ../dirty)' bash -xc true",
    ] {
        let reason = denied(r, cmd);
        assert!(reason.contains("[guard:worktree-dirty]"), "{cmd}: {reason}");
    }
}

#[test]
fn what_cannot_be_read_is_asked() {
    let f = fixture();
    let r = &f.repo.root;
    for cmd in [
        "somerunner --flag git worktree remove --force ../dirty",
        "fish -c 'git worktree remove --force ../dirty'",
        "pwsh -Command 'rm -rf ../dirty'",
        "BASH_ENV=<(echo 'git worktree remove --force ../dirty') bash -c true",
    ] {
        asked(r, cmd);
    }
    let reason = asked(r, "somerunner --flag git worktree remove --force ../dirty");
    assert!(reason.contains("`somerunner`"), "{reason}");
}

#[test]
fn everyday_spellings_stay_silent() {
    let f = fixture();
    let r = &f.repo.root;
    for cmd in [
        "somerunner git status",
        "somerunner --flag rm -rf /tmp/scratch-build",
        "fish -c 'echo hi'",
        "echo git worktree remove --force ../dirty",
        "printf '%s\\n' rm -rf ../dirty",
        "dash -c '((echo hi))'",
        "bash -c '((git worktree remove --force ../dirty))'",
        "uv run pytest -q",
        "nix develop -c cargo build",
        "git archive HEAD | ssh host tar -x",
    ] {
        allowed(r, cmd);
    }
}

#[test]
fn messages_name_the_runner_and_the_shell() {
    let f = fixture();
    let r = &f.repo.root;
    let shown = |cmd: &str| answer(&f.repo, &at_now(r, &bash_event(ME, r, cmd)));
    insta::assert_snapshot!(
        "runners_unknown_program",
        shown("somerunner --flag git worktree remove --force ../dirty")
    );
    insta::assert_snapshot!(
        "runners_foreign_shell",
        shown("fish -c 'git worktree remove --force ../dirty'")
    );
}
