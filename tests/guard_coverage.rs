//! Named regressions for the classes of destructive commands a first attacker's corpus got
//! through (issue 14): abbreviated options, options from expansions, programs that run other
//! commands, losses outside the first rule lists, and a live peer's files. Each is refused or
//! asked; real repositories, the real binary.

mod common;
mod guard_support;

use std::fs;

use common::*;
use guard_support::*;

#[test]
fn regression_abbreviated_long_options() {
    let f = fixture();
    let r = &f.repo.root;
    denied(r, "git branch --del --forc topic");
    denied(r, "rm --rec --force ../dirty");
    denied(r, "rm --r ../untracked");
    two_sessions(&f);
    denied(r, "git reset --har");
    denied(r, "git add --al");
    denied(r, "git stash --include-u");
}

#[test]
fn regression_options_and_subcommands_from_expansions() {
    let f = fixture();
    let r = &f.repo.root;
    stopped(r, "git branch $FLAGS topic");
    stopped(r, "git $SUB -D topic");
    stopped(r, "git push origin $(cat refspec)");
    stopped(r, "x=$((1 + $(git branch -D topic)))");
    stopped(r, "a=( $(git branch -D topic) )");
}

#[test]
fn regression_programs_that_run_other_commands() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    for cmd in [
        "python3 -c 'import shutil; shutil.rmtree(\"../dirty\")'",
        "perl -e 'system(\"git reset --hard\")'",
        "node -e 'require(\"child_process\").execSync(\"git stash\")'",
        "awk 'BEGIN { system(\"git stash\") }'",
        "sed -n '1e git stash' notes.txt",
        "script -qc 'git branch -D topic' /dev/null",
        "flock /tmp/lock git branch -D topic",
        "flock /tmp/lock -c 'git branch -D topic'",
        "su -c 'git branch -D topic' me",
        "watch -n1 git branch -D topic",
        "find . -maxdepth 0 -exec git stash \\;",
        "find . -maxdepth 0 -exec sh -c 'git branch -D topic' \\;",
        "git rebase -x 'git branch -D topic' HEAD",
        "git -c alias.nuke='!git branch -D topic' nuke",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.zap GIT_CONFIG_VALUE_0='branch -D' git zap topic",
        "Z='branch -D' git --config-env=alias.zap=Z zap topic",
        "git -c alias.a=b -c alias.b='branch -D' a topic",
    ] {
        stopped(r, cmd);
    }
    git(r, &["config", "alias.wipe", "!git reset --hard"]);
    stopped(r, "git wipe");
    fs::write(r.join("nuke.sh"), "git branch -D topic\n").unwrap();
    for cmd in [
        "bash nuke.sh",
        ". nuke.sh",
        "source ./nuke.sh",
        "bash < nuke.sh",
    ] {
        stopped(r, cmd);
    }
    fs::write(r.join("env.sh"), "git branch -D topic\n").unwrap();
    stopped(r, "BASH_ENV=env.sh bash -c 'true'");
    fs::write(r.join("Makefile"), "clean:\n\tgit reset --hard\n").unwrap();
    stopped(r, "make clean");
}

#[test]
fn regression_losses_outside_the_first_rule_lists() {
    let f = fixture();
    let r = &f.repo.root;
    let b = &f.base;
    stopped(b, "find dirty -delete");
    denied(b, "rm -rf dirty/*");
    stopped(b, "shopt -s dotglob; cd dirty && rm -rf *");
    denied(b, "tar czf /tmp/x.tgz --remove-files dirty");
    stopped(b, "mv dirty /tmp/moved-away && rm -rf /tmp/moved-away");
    stopped(b, "rm dirty/.git && rm -rf dirty");
    denied(b, "rm dirty/.git");
    denied(r, "rm .git/refs/heads/topic");
    denied(r, "git branch -M topic");
    denied(r, "git branch -f topic HEAD");
    denied(r, "git checkout -B topic");
    denied(
        r,
        "git update-ref --stdin <<'EOF'\ndelete refs/heads/topic\nEOF",
    );
    stopped(r, "git update-ref --stdin < refs.txt");
    fs::write(r.join("stashed.txt"), "work\n").unwrap();
    git(r, &["stash", "-q", "-u"]);
    denied(r, "git stash clear");
    stopped(r, "git stash drop");
    stopped(r, "git push origin --delete never-fetched");
    // Lanes under the main worktree, kept ignored: `clean -ffdX` deletes them.
    let lanes = r.join(".worktrees");
    fs::create_dir_all(&lanes).unwrap();
    fs::write(r.join(".git/info/exclude"), ".worktrees/\n").unwrap();
    let lane = lanes.join("lane");
    add_worktree(r, "lane", &lane);
    fs::write(lane.join("wip.txt"), "uncommitted\n").unwrap();
    denied(r, "git clean -ffdX");
    denied(r, "git clean -ffdx");
}

#[test]
fn regression_push_prune_with_a_wildcard_refspec() {
    let f = fixture();
    remote_only_branch(&f);
    stopped(
        &f.repo.root,
        "git push --prune origin 'refs/heads/*:refs/heads/*'",
    );
}

#[test]
fn regression_a_live_peers_files() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    git(r, &["add", "src/lib.rs"]);
    git(r, &["commit", "-qm", "peer file tracked"]);
    fs::write(r.join("src/lib.rs"), "// peer edits again\n").unwrap();
    for cmd in [
        "git rm -f src/lib.rs",
        "git checkout-index -f -a",
        "git read-tree -u --reset HEAD",
        "mv -f mine.rs src/lib.rs",
        "rm -rf src",
        "rm notes.txt",
        "git checkout -- ':(icase)SRC/LIB.RS'",
        "GIT_ICASE_PATHSPECS=1 git checkout -- SRC/LIB.RS",
    ] {
        stopped(r, cmd);
    }
    git_out(r, &["diff", "src/lib.rs"]);
    let patch = git_out(r, &["diff", "src/lib.rs"]);
    fs::write(f.base.join("p.diff"), patch).unwrap();
    stopped(r, "git apply -R ../p.diff");
    fs::write(f.base.join("specs.txt"), "src/lib.rs\n").unwrap();
    stopped(r, "git checkout --pathspec-from-file=../specs.txt");
    std::os::unix::fs::symlink(r, f.base.join("via-link")).unwrap();
    let through = f.base.join("via-link/src/lib.rs");
    stopped(r, &format!("git checkout -- {}", through.display()));
}

#[test]
fn regression_cd_into_unknown_directories() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    stopped(&f.dirty, "cd - && git stash");
    stopped(&f.dirty, "cd \"$OLDPWD\" && git stash");
    stopped(&f.dirty, "ln -s ../repo r2 && cd r2 && git stash");
    let run = bash_env(
        &f.base,
        "cd repo && git stash",
        &[("CDPATH", "/nonexistent")],
    );
    assert!(decision(&run).is_some(), "{}", run.stderr);
    stopped(r, "git stash; cd .. ; git -C repo add -A");
    // A `cd` that fails leaves the shell where it was.
    stopped(r, "cd no-such-dir; git stash");
    // Exported repository variables apply to the rest of the line.
    denied(&f.base, "export GIT_DIR=repo/.git; git branch -D topic");
    stopped(&f.base, "export GIT_DIR=$X; git branch -D topic");
}

#[test]
fn regression_wrapper_claims_do_not_fence_the_agent() {
    // A `make`/`perl` wrapper running `git dibs claim` inside a session is the session's own
    // shell descendant: the claim keeps the session's generation.
    let f = fixture();
    let r = &f.repo.root;
    let start = serde_json::json!({
        "session_id": ME, "cwd": r, "hook_event_name": "SessionStart", "source": "startup",
        "transcript_path": "/tmp/t.jsonl",
    });
    let mut host = FakeHost::start();
    host.hook(r, &start);
    host.hook(r, &f.repo.pre_edit(ME, "mine.rs"));
    let status = status_of(r);
    let before = session_of(&status, ME)["generation"].clone();
    let script = format!(
        "perl -e 'system(\"{} claim branch:wrapped; true\")'",
        bin().display()
    );
    let run = host.shell(r, &script, &[("DIBS_SESSION", ME)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let status = status_of(r);
    assert_eq!(session_of(&status, ME)["generation"], before, "{status}");
    // The agent is not fenced out: its next hook still records.
    let next = host.hook(r, &f.repo.pre_edit(ME, "src/other.rs"));
    assert!(
        !next.stderr.contains("resumed by another process"),
        "{}",
        next.stderr
    );
    host.kill();
}

#[test]
fn regression_no_false_alarms_for_the_everyday_forms() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    fs::write(r.join(".git/info/exclude"), ".worktrees/\n").unwrap();
    let lane = r.join(".worktrees/lane");
    add_worktree(r, "lane", &lane);
    fs::write(lane.join("wip.rs"), "// uncommitted\n").unwrap();
    for cmd in [
        "find . -name '*.tmp' -delete",
        "find . -name '*.orig' -delete",
        "find . -name __pycache__ -type d -exec rm -rf {} +",
        "tmp=$(mktemp -d) && touch \"$tmp/x\" && rm -rf \"$tmp\"",
        "rm -rf \"$HOME/.cache/git-dibs-nothing-here\"",
        "rm -rf \"$TMPDIR\"/git-dibs-nothing-here",
        "d=build; rm -rf \"$d\"",
        "git add \"$(git rev-parse --show-toplevel)/mine.rs\"",
        "for f in mine.rs; do git add \"$f\"; done",
        "git checkout -b feature-x",
        "git switch -c feature-y",
        // A clean lane whose branch keeps its unpushed commit loses nothing.
        "git worktree remove ../unpushed",
    ] {
        allowed(r, cmd);
    }
    // A lane's uncommitted file matching the pattern is asked about.
    fs::write(lane.join("keep.tmp"), "mine\n").unwrap();
    let reason = asked(r, "find . -name '*.tmp' -delete");
    assert!(reason.contains("keep.tmp"), "{reason}");
}
