//! git commands that take a host's hook wiring out of the worktree are refused like `rm
//! .claude/settings.json` (`[guard:self-protect]`): `git clean` (`-x`, `-X` for an ignored
//! file) and `git stash -u`/`-a` of an untracked settings file that wires git-dibs, `git
//! stash`, `reset --hard`, `checkout --`, `restore` of one changed from a HEAD that does not wire
//! it, and `git rm` of it in any state. Where the commit holds the same wiring, or the command
//! leaves the file alone, they stay silent (red-team finding 16, git part).

mod common;

use std::fs;

use common::*;

fn answer(repo: &TestRepo, cmd: &str) -> String {
    let run = hook(&repo.root, &bash_event("s2", &repo.root, cmd));
    assert_eq!(run.code, 0, "{cmd}: {}", run.stderr);
    match hook_decision(&run) {
        Some((d, reason, _)) => {
            if d == "deny" {
                assert!(reason.contains("[guard:self-protect]"), "{cmd}: {reason}");
                assert!(reason.contains("hook wiring"), "{cmd}: {reason}");
            }
            d
        }
        None => "allow".into(),
    }
}

fn install(repo: &TestRepo, args: &[&str]) {
    let mut all = vec!["install"];
    all.extend_from_slice(args);
    let out = dibs(&repo.root, &all);
    assert!(out.status.success(), "{}", out_text(&out));
}

#[test]
fn an_untracked_settings_file_is_not_swept_away() {
    let repo = TestRepo::new();
    install(&repo, &[]);
    assert!(git_out(&repo.root, &["status", "--porcelain"]).contains("?? .claude/"));
    for cmd in [
        "git clean -fd",
        "git clean -fdx .claude",
        "git clean -f .claude/settings.json",
        "git stash -u",
        "git stash --include-untracked",
        "git stash -a",
        "git rm .claude/settings.json",
        "git rm -r -f .claude",
    ] {
        assert_eq!(answer(&repo, cmd), "deny", "{cmd}");
    }
    for cmd in [
        "git stash",
        "git reset --hard",
        "git checkout -- .claude/settings.json",
        "git clean -fdX",
        "git clean -n -fd",
        "git rm --cached .claude/settings.json",
        "git clean -fd src",
        "git status",
    ] {
        assert_eq!(answer(&repo, cmd), "allow", "{cmd}");
    }
}

#[test]
fn committed_wiring_is_safe_and_a_changed_copy_is_not() {
    let repo = TestRepo::new();
    let r = &repo.root;
    // Committed without git-dibs, then wired in the worktree only.
    fs::create_dir_all(r.join(".claude")).unwrap();
    fs::write(r.join(".claude/settings.json"), "{}\n").unwrap();
    git(r, &["add", ".claude/settings.json"]);
    git(r, &["commit", "-qm", "settings"]);
    install(&repo, &[]);
    for cmd in [
        "git stash",
        "git reset --hard",
        "git checkout -- .claude/settings.json",
        "git checkout .",
        "git restore .claude",
        "git checkout-index -f -a",
    ] {
        assert_eq!(answer(&repo, cmd), "deny", "{cmd}");
    }
    assert_eq!(answer(&repo, "git add .claude/settings.json"), "allow");
    // Once the commit wires it too, a reset brings the wiring back: silent.
    git(r, &["commit", "-qam", "wire git-dibs"]);
    fs::write(
        r.join(".claude/settings.json"),
        fs::read_to_string(r.join(".claude/settings.json")).unwrap() + "\n",
    )
    .unwrap();
    for cmd in [
        "git stash -u",
        "git reset --hard",
        "git checkout -- .claude/settings.json",
        "git clean -fdx",
    ] {
        assert_eq!(answer(&repo, cmd), "allow", "{cmd}");
    }
    // Removing the committed file by name is still unwiring.
    assert_eq!(answer(&repo, "git rm .claude/settings.json"), "deny");
}

#[test]
fn an_ignored_local_settings_file_is_not_cleaned_away() {
    let repo = TestRepo::new();
    let r = &repo.root;
    fs::write(r.join(".git/info/exclude"), ".claude/settings.local.json\n").unwrap();
    install(&repo, &["--local"]);
    assert!(r.join(".claude/settings.local.json").is_file());
    for cmd in ["git clean -fdX", "git clean -ffdx", "git clean -xf .claude"] {
        assert_eq!(answer(&repo, cmd), "deny", "{cmd}");
    }
    for cmd in ["git clean -fd", "git stash -u", "git reset --hard"] {
        assert_eq!(answer(&repo, cmd), "allow", "{cmd}");
    }
}
