//! `git dibs install` and `uninstall` against real repositories and real settings files:
//! merging, idempotence, refusal, scopes, the example files, a person's own file round-tripping.

mod common;
#[path = "install_support/mod.rs"]
mod support;

use std::ffi::OsString;
use std::fs;
use std::path::Path;

use common::*;
use serde_json::{Value, json};
use support::*;

#[test]
fn install_into_a_repo_without_settings() {
    let s = Setup::new();
    let out = s.run(&["install"]);
    ok(&out);
    assert!(
        stdout(&out).contains(&s.project().display().to_string()),
        "{}",
        stdout(&out)
    );
    assert_eq!(stdout(&out).lines().count(), 1);
    let v = read_json(&s.project());
    assert_wired(&v, "git-dibs hook");
    assert_eq!(v["hooks"]["SessionStart"][0]["hooks"][0]["timeout"], 10);
    assert!(v["hooks"]["SessionStart"][0].get("matcher").is_none());
    assert!(fs::read_to_string(s.project()).unwrap().ends_with("}\n"));
    assert!(!s.local().exists() && !s.user().exists());
}

#[test]
fn example_files_are_what_install_writes() {
    let s = Setup::new();
    let out = s.run(&["install", "--dry-run"]);
    ok(&out);
    let generated = stdout(&out);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for rel in ["settings.example.json", "hooks/claude-code.json"] {
        let path = root.join(rel);
        if std::env::var_os("UPDATE_EXAMPLES").is_some() {
            fs::write(&path, &generated).unwrap();
        }
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            generated,
            "{rel} drifted from `git dibs install`; regenerate with UPDATE_EXAMPLES=1"
        );
    }
}

#[test]
fn install_merges_and_keeps_everything_else() {
    let s = Setup::new();
    let before = json!({
        "model": "opus",
        "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [
                    {"type": "command", "command": "my-bash-guard", "timeout": 5}
                ]},
                {"matcher": "Glob", "hooks": [{"type": "command", "command": "glob-log"}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "notify-done"}]}]
        },
        "env": {"A": "1"}
    });
    // Written by hand so the keys are not in sorted order.
    let text = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-bash-guard", "timeout": 5}]},
      {"matcher": "Glob", "hooks": [{"type": "command", "command": "glob-log"}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-done"}]}]
  },
  "env": {"A": "1"}
}"#;
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), before);
    write(&s.project(), text);
    ok(&s.run(&["install"]));
    let after = read_json(&s.project());
    for key in ["model", "permissions", "env"] {
        assert_eq!(after[key], before[key], "{key}");
    }
    assert_eq!(after["hooks"]["Stop"], before["hooks"]["Stop"]);
    let pre = after["hooks"]["PreToolUse"].as_array().unwrap();
    // Our Bash handler joined the existing Bash group, after the person's own.
    assert_eq!(pre[0]["matcher"], "Bash");
    assert_eq!(
        pre[0]["hooks"][0],
        before["hooks"]["PreToolUse"][0]["hooks"][0]
    );
    assert_eq!(command_line(&pre[0]["hooks"][1]), "git-dibs hook");
    assert_eq!(pre[0]["hooks"][1]["onFailure"], "block");
    assert_eq!(pre[1], before["hooks"]["PreToolUse"][1]);
    assert_eq!(pre.len(), 5);
    assert_eq!(ours(&after).len(), EXPECTED_PLACES.len());
    // Keys keep their order in the file.
    let text = fs::read_to_string(s.project()).unwrap();
    let at = |k: &str| text.find(&format!("\"{k}\"")).unwrap();
    assert!(at("model") < at("permissions") && at("permissions") < at("hooks"));
    assert!(at("hooks") < at("env"));
}

#[test]
fn install_twice_changes_nothing() {
    let s = Setup::new();
    write(
        &s.project(),
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}"#,
    );
    ok(&s.run(&["install"]));
    let first = fs::read(s.project()).unwrap();
    let out = s.run(&["install"]);
    ok(&out);
    assert!(stdout(&out).contains("nothing changed"), "{}", stdout(&out));
    assert_eq!(fs::read(s.project()).unwrap(), first);
}

#[test]
fn refuses_invalid_json_and_changes_nothing() {
    let s = Setup::new();
    let bad = "{\n  \"model\": \"opus\",,\n}\n";
    write(&s.project(), bad);
    let out = s.run(&["install"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains(&s.project().display().to_string()), "{err}");
    assert!(err.contains("line 2 column"), "{err}");
    assert!(err.contains("nothing was changed"), "{err}");
    assert_eq!(fs::read_to_string(s.project()).unwrap(), bad);

    let hooks_array = r#"{"hooks": []}"#;
    write(&s.project(), hooks_array);
    let out = s.run(&["install"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("\"hooks\" is not a JSON object"),
        "{}",
        stderr(&out)
    );
    assert_eq!(fs::read_to_string(s.project()).unwrap(), hooks_array);
    let out = s.run(&["uninstall"]);
    assert!(!out.status.success());
    assert_eq!(fs::read_to_string(s.project()).unwrap(), hooks_array);
}

#[test]
fn dry_run_writes_nothing() {
    let s = Setup::new();
    let out = s.run(&["install", "--dry-run"]);
    ok(&out);
    assert_wired(
        &serde_json::from_str(&stdout(&out)).unwrap(),
        "git-dibs hook",
    );
    assert!(!s.repo.root.join(".claude").exists());

    let existing = r#"{"model": "x"}"#;
    write(&s.project(), existing);
    let out = s.run(&["install", "--dry-run"]);
    ok(&out);
    let shown: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(shown["model"], "x");
    assert_eq!(fs::read_to_string(s.project()).unwrap(), existing);

    ok(&s.run(&["install"]));
    let installed = fs::read(s.project()).unwrap();
    let out = s.run(&["uninstall", "--dry-run"]);
    ok(&out);
    assert_eq!(stdout(&out), "{\n  \"model\": \"x\"\n}\n");
    assert_eq!(fs::read(s.project()).unwrap(), installed);
}

#[test]
fn local_and_user_scopes() {
    let s = Setup::new();
    ok(&s.run(&["install", "--local"]));
    assert_wired(&read_json(&s.local()), "git-dibs hook");
    assert!(!s.project().exists());

    ok(&s.run(&["install", "--user"]));
    assert_wired(&read_json(&s.user()), "git-dibs hook");

    // --user works outside any repository and follows CLAUDE_CONFIG_DIR.
    let config = tempfile::tempdir().unwrap();
    let out = s.run_with(
        s.home.path(),
        &["install", "--user"],
        path_with_bin(),
        &[("CLAUDE_CONFIG_DIR", config.path())],
    );
    ok(&out);
    assert_wired(
        &read_json(&config.path().join("settings.json")),
        "git-dibs hook",
    );

    ok(&s.run(&["uninstall", "--local"]));
    assert!(ours(&read_json(&s.local())).is_empty());
    assert_wired(&read_json(&s.user()), "git-dibs hook");
}

#[test]
fn without_git_dibs_on_path_personal_files_get_the_full_path() {
    let s = Setup::new();
    let empty = tempfile::tempdir().unwrap();
    let no_bin: OsString = empty.path().into();
    let out = s.run_with(&s.repo.root, &["install", "--local"], no_bin.clone(), &[]);
    ok(&out);
    assert!(stderr(&out).contains("not on PATH"), "{}", stderr(&out));
    let exe = bin().canonicalize().unwrap();
    let full = format!("{} hook", exe.display());
    let v = read_json(&s.local());
    assert!(
        ours(&v)
            .iter()
            .all(|h| h.2 == full || h.2.ends_with("git-dibs' hook"))
    );
    assert_eq!(ours(&v).len(), EXPECTED_PLACES.len());

    // The shared project file stays portable.
    let out = s.run_with(&s.repo.root, &["install"], no_bin, &[]);
    ok(&out);
    assert!(stderr(&out).contains("not on PATH"));
    assert_wired(&read_json(&s.project()), "git-dibs hook");

    // Once git-dibs is on PATH, installing again replaces the full path instead of adding.
    ok(&s.run(&["install", "--local"]));
    assert_wired(&read_json(&s.local()), "git-dibs hook");
}

#[test]
fn uninstall_removes_only_ours() {
    let s = Setup::new();
    let original = json!({
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-bash-guard"}]}
            ],
            "Notification": [{"hooks": [{"type": "command", "command": "beep"}]}]
        },
        "model": "opus"
    });
    let text = format!("{}\n", serde_json::to_string_pretty(&original).unwrap());
    write(&s.project(), &text);
    ok(&s.run(&["install"]));
    assert_ne!(fs::read_to_string(s.project()).unwrap(), text);
    let out = s.run(&["uninstall"]);
    ok(&out);
    assert!(stdout(&out).contains("removed 14"), "{}", stdout(&out));
    assert_eq!(fs::read_to_string(s.project()).unwrap(), text);
    let out = s.run(&["uninstall"]);
    ok(&out);
    assert!(stdout(&out).contains("nothing changed"));
    assert_eq!(fs::read_to_string(s.project()).unwrap(), text);

    // Uninstall where nothing was ever installed creates no file.
    ok(&s.run(&["uninstall", "--local"]));
    assert!(!s.local().exists());
}

#[test]
fn uninstall_after_a_fresh_install_leaves_no_hooks() {
    let s = Setup::new();
    ok(&s.run(&["install"]));
    ok(&s.run(&["uninstall"]));
    assert_eq!(fs::read_to_string(s.project()).unwrap(), "{}\n");
}

/// `settings` with every git-dibs handler taken out, and the groups, event arrays and `hooks`
/// object that only held git-dibs's handlers: what the person's own file should read as.
fn without_ours(mut settings: Value) -> Value {
    // `git-dibs hook`, and on hosts other than Claude Code `git-dibs hook --host NAME`.
    let is_ours = |h: &Value| command_line(h).starts_with("git-dibs hook");
    let Some(hooks) = settings.get_mut("hooks").and_then(Value::as_object_mut) else {
        return settings;
    };
    hooks.retain(|_, groups| {
        let Some(list) = groups.as_array_mut() else {
            return true;
        };
        let before = list.len();
        list.retain_mut(|g| match g.get_mut("hooks").and_then(Value::as_array_mut) {
            Some(handlers) => {
                let n = handlers.len();
                handlers.retain(|h| !is_ours(h));
                !(handlers.is_empty() && n > 0)
            }
            // Cursor's flat lists: the handler itself.
            None => !is_ours(g),
        });
        !(list.is_empty() && before > 0)
    });
    if hooks.is_empty() {
        settings.as_object_mut().unwrap().shift_remove("hooks");
    }
    settings
}

#[test]
fn a_persons_own_file_round_trips_through_install_and_uninstall() {
    // Keys in the person's own order (not sorted), nested objects too, their own handlers on
    // events and matchers git-dibs also uses, and on others.
    let files = [
        (
            "--claude",
            ".claude/settings.json",
            r#"{
  "permissions": {
    "deny": [],
    "allow": ["Bash(ls:*)"]
  },
  "model": "opus",
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "notify-done"}]}],
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"timeout": 5, "type": "command", "command": "my-guard"}]}
    ],
    "SessionStart": [{"hooks": [{"command": "banner", "type": "command"}]}]
  },
  "env": {"ZED": "1", "ALPHA": "2"},
  "apiKeyHelper": "./key.sh"
}"#,
        ),
        (
            "--gemini",
            ".gemini/settings.json",
            r#"{
  "ui": {"theme": "GitHub", "hideBanner": true},
  "hooks": {
    "BeforeTool": [
      {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "audit-sh"}]}
    ]
  },
  "general": {"vimMode": true}
}"#,
        ),
        (
            "--codex",
            ".codex/hooks.json",
            r#"{
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint"}]}]
  }
}"#,
        ),
        (
            "--cursor",
            ".cursor/hooks.json",
            r#"{
  "version": 1,
  "hooks": {
    "stop": [{"command": "./done.sh"}],
    "beforeShellExecution": [{"timeout": 3, "command": "./mine.sh"}]
  }
}"#,
        ),
    ];
    for (flag, rel, text) in files {
        let s = Setup::new();
        let path = s.repo.root.join(rel);
        // What uninstall gives back: the same values in the same order, pretty-printed.
        let own: Value = serde_json::from_str(text).unwrap();
        let pretty = format!("{}\n", serde_json::to_string_pretty(&own).unwrap());
        write(&path, &pretty);
        ok(&s.run(&["install", flag]));
        let after = fs::read_to_string(&path).unwrap();
        assert_ne!(after, pretty, "{flag}");
        // Only git-dibs's entries were added: take them out and the file reads as before, key
        // for key in the same order (compared as text, so the order counts).
        let stripped = without_ours(serde_json::from_str(&after).unwrap());
        assert_eq!(
            format!("{}\n", serde_json::to_string_pretty(&stripped).unwrap()),
            pretty,
            "{flag}: install changed more than git-dibs's entries:\n{after}"
        );
        ok(&s.run(&["uninstall", flag]));
        assert_eq!(fs::read_to_string(&path).unwrap(), pretty, "{flag}");
    }
}
