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

/// A Claude Code `PreToolUse` of `tool` on `file` with `input`.
fn edit_with(
    repo: &TestRepo,
    tool: &str,
    file: &std::path::Path,
    input: serde_json::Value,
) -> HookRun {
    let mut input = input;
    input["file_path"] = serde_json::json!(file);
    let ev = claude_event(
        "PreToolUse",
        ME,
        &repo.root,
        serde_json::json!({"tool_name": tool, "tool_input": input}),
    );
    hook(&repo.root, &ev)
}

#[test]
fn an_edit_tool_that_unwires_git_dibs_or_sets_the_bypass_in_settings_is_refused() {
    let repo = TestRepo::new();
    let out = dibs(&repo.root, &["install", "--claude"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = repo.root.join(".claude/settings.json");
    let wired = std::fs::read_to_string(&file).unwrap();
    assert!(wired.contains("PreToolUse"), "{wired}");

    let denied = |run: HookRun, what: &str| {
        let (d, reason, _) = hook_decision(&run).unwrap_or_else(|| panic!("{what}: {run:?}"));
        assert_eq!(d, "deny", "{what}: {reason}");
        assert!(reason.contains("[guard:self-protect]"), "{reason}");
        reason
    };
    let reason = denied(
        edit_with(
            &repo,
            "Write",
            &file,
            serde_json::json!({"content": "{}\n"}),
        ),
        "write an empty file",
    );
    assert!(reason.contains("removes git-dibs's"), "{reason}");
    let with_bypass = wired.replacen('{', "{\n  \"env\": {\"WT_GUARD_BYPASS\": \"1\"},", 1);
    let reason = denied(
        edit_with(
            &repo,
            "Write",
            &file,
            serde_json::json!({"content": with_bypass}),
        ),
        "set the bypass",
    );
    assert!(reason.contains("WT_GUARD_BYPASS"), "{reason}");
    denied(
        edit_with(
            &repo,
            "Edit",
            &file,
            serde_json::json!({"old_string": "{", "new_string": "{\"disableAllHooks\": true,"}),
        ),
        "disable all hooks",
    );
    denied(
        edit_with(
            &repo,
            "MultiEdit",
            &file,
            serde_json::json!({"edits": [{"old_string": "PreToolUse", "new_string": "PreToolUseX", "replace_all": true}]}),
        ),
        "rename the event",
    );
    // Changes that leave git-dibs wired go ahead.
    let harmless = wired.replacen('{', "{\n  \"model\": \"opus\",", 1);
    let run = edit_with(
        &repo,
        "Write",
        &file,
        serde_json::json!({"content": harmless}),
    );
    assert!(
        hook_decision(&run).is_none_or(|(d, _, _)| d != "deny"),
        "{run:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        wired,
        "the hook writes nothing"
    );
}

#[test]
fn config_change_refuses_a_settings_file_changed_to_weaken_git_dibs() {
    let repo = TestRepo::new();
    assert!(dibs(&repo.root, &["install", "--claude"]).status.success());
    let file = repo.root.join(".claude/settings.json");
    let wired = std::fs::read_to_string(&file).unwrap();
    let change = |repo: &TestRepo| {
        let ev = claude_event(
            "ConfigChange",
            ME,
            &repo.root,
            serde_json::json!({"source": "project_settings", "file_path": file}),
        );
        hook(&repo.root, &ev)
    };
    // Wired as install writes it: nothing to say.
    change(&repo).assert_silent();
    // The bypass put in env by a shell command the guard did not see: refused (exit 2).
    let with_bypass = wired.replacen('{', "{\n  \"env\": {\"WT_GUARD_BYPASS\": \"1\"},", 1);
    std::fs::write(&file, with_bypass).unwrap();
    let run = change(&repo);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("WT_GUARD_BYPASS"), "{run:?}");
    // Some of git-dibs's hooks taken out, others left: refused.
    let partial = wired.replace("\"SessionStart\"", "\"SessionStartX\"");
    std::fs::write(&file, partial).unwrap();
    let run = change(&repo);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("SessionStart"), "{run:?}");
    // A person's uninstall (no git-dibs hook left at all) is theirs to make.
    std::fs::write(&file, "{}\n").unwrap();
    change(&repo).assert_silent();
}

#[test]
fn with_dibs_bypass_ask_a_typed_bypass_is_a_question_to_the_person() {
    let repo = TestRepo::new();
    hook(&repo.root, &repo.pre_edit(ME, "src/lib.rs"));
    git(&repo.root, &["config", "dibs.bypass", "ask"]);
    assert_eq!(
        decision(&repo, "WT_GUARD_BYPASS=1 rm .git/dibs/pruned"),
        "ask"
    );
    assert!(repo.store_dir().join("sessions").is_dir());
    let log = std::fs::read_to_string(repo.store_dir().join("audit.log")).unwrap();
    let line = log.lines().last().unwrap();
    assert!(line.contains("\"ask\"") && line.contains(ME), "{line}");
    // Without the setting the same bypass passes.
    git(&repo.root, &["config", "--unset", "dibs.bypass"]);
    assert_eq!(
        decision(&repo, "WT_GUARD_BYPASS=1 rm .git/dibs/pruned"),
        "silent"
    );
}

#[test]
fn an_edit_tool_writing_into_the_store_or_gits_own_files_is_refused() {
    let repo = TestRepo::new();
    let out = dibs(&repo.root, &["install", "--git-hooks"]);
    assert!(out.status.success(), "{out:?}");
    // The store exists once a hook has run.
    let start = claude_event(
        "SessionStart",
        ME,
        &repo.root,
        serde_json::json!({"source": "startup"}),
    );
    hook(&repo.root, &start);
    let git = repo.root.join(".git");
    let lane = repo.worktree("lane");
    let refused = [
        (git.join("config"), "Edit", "the repository's config"),
        (git.join("dibs/audit.log"), "Write", "the git-dibs store"),
        (
            git.join("dibs/sessions/x.json"),
            "Write",
            "the git-dibs store",
        ),
        (git.join("refs/heads/main"), "Write", "refs"),
        (git.join("packed-refs"), "Write", "refs"),
        (git.join("hooks/post-commit"), "Write", "git hooks"),
        (git.join("objects/info/alternates"), "Write", "objects"),
        (lane.join(".git"), "Write", ".git"),
    ];
    for (file, tool, what) in &refused {
        let input = serde_json::json!({"content": "", "old_string": "[core]", "new_string": "[dibs]\n\tsnapshotExpiry = 1s\n[core]"});
        let run = edit_with(&repo, tool, file, input);
        let (d, reason, _) = hook_decision(&run).unwrap_or_else(|| panic!("{file:?}: {run:?}"));
        assert_eq!(d, "deny", "{file:?}: {reason}");
        assert!(
            reason.contains(what) && reason.contains("[guard:self-protect]"),
            "{reason}"
        );
    }
    // Everyday edits, and git's own files nobody relies on, stay silent.
    for file in [
        repo.root.join("src/lib.rs"),
        repo.root.join(".github/workflows/ci.yml"),
        repo.root.join(".gitignore"),
        repo.root.join("docs/a.git/notes.md"),
        git.join("info/exclude"),
        git.join("COMMIT_EDITMSG"),
        lane.join("src/lib.rs"),
    ] {
        let run = edit_with(&repo, "Write", &file, serde_json::json!({"content": "x\n"}));
        assert_eq!(run.stdout, "", "{file:?}: {run:?}");
    }
}

#[test]
fn a_push_that_sends_the_snapshots_is_refused_and_everyday_pushes_are_not() {
    let repo = TestRepo::new();
    for cmd in [
        "git push origin refs/dibs/snapshots/s1:refs/heads/leak",
        "git push origin +refs/dibs/snapshots/s1",
        "git push origin 'refs/dibs/*:refs/dibs/*'",
        "git push origin 'refs/dibs/snapshots/*:refs/heads/snap/*'",
        "git push origin 'refs/*:refs/*'",
        "git push --mirror backup",
        "git -C . push --force origin 'refs/dibs/*'",
    ] {
        let run = bash_hook_env(&repo.root, ME, cmd, &[]);
        let (d, reason, _) = hook_decision(&run).unwrap_or_else(|| panic!("{cmd}: allowed"));
        assert_eq!(d, "deny", "{cmd}: {reason}");
        assert!(
            reason.contains("send git-dibs's snapshots") && reason.contains("[guard:self-protect]"),
            "{cmd}: {reason}"
        );
    }
    for cmd in [
        "git push origin main",
        "git push -u origin HEAD",
        "git push origin 'refs/heads/*:refs/heads/*'",
        "git push --all origin",
        "git push --tags",
        "git push origin 'refs/tags/*'",
    ] {
        assert_eq!(decision(&repo, cmd), "silent", "{cmd}");
    }
}

#[test]
fn every_other_way_to_write_a_ref_under_refs_dibs_is_refused() {
    let repo = TestRepo::new();
    for cmd in [
        "git push -f . main:refs/dibs/snapshots/s1",
        "git push . +HEAD:refs/dibs/snapshots/s1",
        "git push origin main:refs/dibs/claims/x",
        "git symbolic-ref refs/dibs/snapshots/s1 refs/heads/main",
        "git symbolic-ref -d refs/dibs/snapshots/s1",
        "printf 'reset refs/dibs/snapshots/s1\\nfrom HEAD\\n' | git fast-import",
        "git config remote.origin.fetch '+refs/heads/*:refs/dibs/snapshots/*'",
        "git config --add remote.origin.push 'refs/heads/*:refs/dibs/*'",
    ] {
        assert_eq!(decision(&repo, cmd), "deny", "{cmd}");
    }
    // A stream git-dibs cannot read is a question.
    assert_eq!(decision(&repo, "git fast-import < stream.fi"), "ask");
    for cmd in [
        "git push . main:refs/heads/backup",
        "git symbolic-ref HEAD",
        "git symbolic-ref refs/dibs/x",
        "printf 'reset refs/heads/x\\nfrom HEAD\\n' | git fast-import",
        "git config --add remote.origin.fetch '+refs/heads/*:refs/remotes/origin/*'",
        "git config remote.origin.url https://example.invalid/r.git",
    ] {
        assert_eq!(decision(&repo, cmd), "silent", "{cmd}");
    }
}
