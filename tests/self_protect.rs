//! Erasure and unwiring are guarded: commands that delete, move, truncate or rewrite the
//! store, its audit log, the refs under `refs/dibs/` or the hosts' hook wiring are refused
//! (`[guard:self-protect]`) or asked about; reading them and everyday commands stay silent.

mod common;

use common::*;

const ME: &str = "aaaaaaaa-1111-4111-8111-111111111111";

fn decision(repo: &TestRepo, command: &str) -> String {
    let run = bash_hook_env(&repo.root, ME, command, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    match hook_decision(&run) {
        None => "silent".to_owned(),
        Some((d, reason, _)) => {
            if d == "deny" || d == "ask" {
                assert!(
                    reason.contains("[guard:self-protect]"),
                    "{command}: {reason}"
                );
            }
            d
        }
    }
}

#[test]
fn erasing_or_unwiring_git_dibs_is_refused() {
    let repo = TestRepo::new();
    std::fs::create_dir_all(repo.root.join(".claude")).unwrap();
    std::fs::write(repo.root.join(".claude/settings.json"), "{}").unwrap();
    hook(&repo.root, &repo.pre_edit(ME, "src/lib.rs"));
    for cmd in [
        "find .git/dibs -delete",
        "find .git -path '*dibs*' -delete",
        "mv .git/dibs /tmp/elsewhere",
        ": > .git/dibs/audit.log",
        "truncate -s0 .git/dibs/audit.log",
        "rm -rf \"$(git rev-parse --git-common-dir)/dibs\"",
        "cd src && rm -rf ../.git/dibs",
        "rm -rf .git",
        "ln -s ~/.bashrc .git/dibs/audit.log",
        "touch -d 2001-01-01 .git/dibs/pruned",
        "git update-ref -d refs/dibs/sessions/alpha/x",
        "rm .git/refs/dibs/claims/abc",
        "git push origin --delete refs/dibs/claims/abc",
        "git push origin :refs/dibs/claims/abc",
        "sed -i 's/git-dibs/true/' .claude/settings.json",
        "sed -i.bak -e 's/x/y/' .claude/settings.local.json",
        "perl -pi -e 's/dibs//' .claude/settings.json",
        "jq 'del(.hooks)' .claude/settings.json > /tmp/s && mv /tmp/s .claude/settings.json",
        "echo '{}' > .gemini/settings.json",
        "cat /dev/null > .codex/hooks.json",
        "rm .cursor/hooks.json",
        "cp /tmp/empty.json ~/.claude/settings.json",
        "bash -c 'rm -rf .git/dibs'",
        "git dibs uninstall",
        "git-dibs uninstall --claude",
    ] {
        assert_eq!(decision(&repo, cmd), "deny", "{cmd}");
    }
    let cmd = "git for-each-ref --format='%(refname)' refs/dibs | xargs -n1 git update-ref -d";
    let d = decision(&repo, cmd);
    assert!(d == "ask" || d == "deny", "{cmd}: {d}");
    assert!(repo.store_dir().join("sessions").is_dir());
}

#[test]
fn reading_git_dibs_state_and_everyday_commands_stay_silent() {
    let repo = TestRepo::new();
    hook(&repo.root, &repo.pre_edit(ME, "src/lib.rs"));
    for cmd in [
        "cat .git/dibs/audit.log",
        "ls -la .git/dibs",
        "jq . .claude/settings.json",
        "cp .claude/settings.json /tmp/backup.json",
        "grep -r dibs .claude",
        "git for-each-ref refs/dibs",
        "git dibs status",
        "git dibs doctor",
        "rm -rf target",
        "sed 's/a/b/' .claude/settings.json",
        "echo hi > notes.txt",
        "git status",
        "git log --oneline",
    ] {
        assert_eq!(decision(&repo, cmd), "silent", "{cmd}");
    }
}

#[test]
fn a_deliberate_bypass_is_let_through_and_audited_with_the_session() {
    let repo = TestRepo::new();
    hook(&repo.root, &repo.pre_edit(ME, "src/lib.rs"));
    assert_eq!(
        decision(&repo, "WT_GUARD_BYPASS=1 rm .git/dibs/pruned"),
        "silent"
    );
    let log = std::fs::read_to_string(repo.store_dir().join("audit.log")).unwrap();
    let line = log.lines().last().unwrap();
    assert!(line.contains("bypass") && line.contains(ME), "{line}");
    assert!(line.contains("self-protect"), "{line}");
}
