//! Unit tests of settings merging: install, uninstall, recognition and wiring reports.

use super::*;

const CMD: &str = "git-dibs hook";

fn parse(text: &str) -> Settings {
    Settings::parse(text.as_bytes()).expect("valid settings")
}

fn installed(text: &str) -> String {
    let mut s = parse(text);
    s.install(CMD).expect("install");
    s.render()
}

#[test]
fn example_file_is_what_install_writes_on_an_empty_file() {
    let mut s = Settings::empty();
    assert!(s.install(CMD).unwrap());
    assert_eq!(s.render(), include_str!("../../../settings.example.json"));
    assert_eq!(s.render(), include_str!("../../../hooks/claude-code.json"));
}

#[test]
fn fresh_install_is_complete() {
    let s = parse(&installed(""));
    let w = s.wiring();
    assert!(w.is_complete(), "{w:?}");
    assert_eq!(w.commands, vec![CMD.to_owned()]);
}

#[test]
fn install_twice_changes_nothing() {
    let once = installed(
        r#"{"model":"x","hooks":{"Stop":[{"hooks":[{"type":"command","command":"a"}]}]}}"#,
    );
    let mut s = parse(&once);
    assert!(!s.install(CMD).unwrap());
    assert_eq!(s.render(), once);
}

#[test]
fn install_keeps_other_keys_in_order_and_joins_same_matcher_group() {
    let text = r#"{"z":1,"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"mine"}]}]},"a":2}"#;
    let out = installed(text);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let bash = &v["hooks"]["PreToolUse"][0];
    assert_eq!(bash["matcher"], "Bash");
    assert_eq!(bash["hooks"][0]["command"], "mine");
    assert_eq!(bash["hooks"][1]["command"], "git-dibs");
    assert_eq!(bash["hooks"][1]["args"], serde_json::json!(["hook"]));
    assert_eq!(bash["hooks"][1]["onFailure"], "block");
    assert_eq!(v["hooks"]["PreToolUse"].as_array().unwrap().len(), 4);
    assert!(out.find("\"z\"").unwrap() < out.find("\"hooks\"").unwrap());
    assert!(out.find("\"hooks\"").unwrap() < out.find("\"a\": 2").unwrap());
}

#[test]
fn upgrade_replaces_old_path_and_removes_stale_and_duplicates() {
    let text = r#"{"hooks":{
      "PreToolUse":[{"matcher":"Edit|Write","hooks":[{"type":"command","command":"/old/bin/git-dibs hook"}]},
                    {"matcher":"Bash","hooks":[{"type":"command","command":"'/old dir/git-dibs' hook","timeout":60},
                                              {"type":"command","command":"git-dibs hook","timeout":10},
                                              {"type":"command","command":"/x/git-dibs hook","timeout":10}]}]}}"#;
    let before = parse(text).wiring();
    // The shell form is what earlier versions wrote: every handler is stale now.
    assert_eq!(before.counts, [0; HOOKS.len()]);
    assert_eq!(before.stale.len(), 4, "{before:?}");
    assert_eq!(before.commands.len(), 4);
    let after = parse(&installed(text)).wiring();
    assert!(after.is_complete(), "{after:?}");
}

#[test]
fn uninstall_restores_other_hooks() {
    let original = r#"{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "mine"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "other"
          }
        ]
      }
    ]
  },
  "model": "opus"
}
"#;
    let mut s = parse(&installed(original));
    assert_eq!(s.uninstall(), HOOKS.len());
    assert_eq!(s.render(), original);
}

#[test]
fn uninstall_of_a_fresh_install_leaves_an_empty_object() {
    let mut s = parse(&installed(""));
    assert_eq!(s.uninstall(), HOOKS.len());
    assert_eq!(s.render(), "{}\n");
    assert_eq!(s.uninstall(), 0);
}

#[test]
fn uninstall_keeps_groups_that_were_empty_before() {
    let text = r#"{"hooks":{"Stop":[{"hooks":[]}],"PreToolUse":[]}}"#;
    let mut s = parse(text);
    assert_eq!(s.uninstall(), 0);
    assert_eq!(s, parse(text));
}

#[test]
fn refusals() {
    assert!(matches!(
        Settings::parse(b"{\n  \"a\": 1,\n}"),
        Err(SettingsError::Invalid { line: 3, .. })
    ));
    assert_eq!(Settings::parse(b"[]"), Err(SettingsError::NotObject));
    assert_eq!(
        Settings::parse(br#"{"hooks":[]}"#),
        Err(SettingsError::HooksNotObject)
    );
    let mut s = parse(r#"{"hooks":{"SessionEnd":{}}}"#);
    let copy = s.clone();
    assert_eq!(
        s.install(CMD),
        Err(SettingsError::EventNotArray("SessionEnd".into()))
    );
    assert_eq!(s, copy);
}

#[test]
fn blank_file_is_empty_settings() {
    assert_eq!(parse("  \n"), Settings::empty());
}

#[test]
fn recognises_our_commands() {
    for yes in [
        "git-dibs hook",
        "git-dibs  hook --verbose",
        "/usr/local/bin/git-dibs hook",
        "'/a b/git-dibs' hook",
        "\"$CLAUDE_PROJECT_DIR\"/.claude/bin/git-dibs hook",
        "git dibs hook",
    ] {
        assert!(is_our_command(yes), "{yes}");
    }
    for no in [
        "git-dibs status",
        "git-dibs",
        "my-git-dibs hook",
        "echo git-dibs hook",
        "",
    ] {
        assert!(!is_our_command(no), "{no}");
    }
}

#[test]
fn quotes_paths_that_need_it() {
    assert_eq!(hook_command("git-dibs"), "git-dibs hook");
    assert_eq!(hook_command("/a/b/git-dibs"), "/a/b/git-dibs hook");
    assert_eq!(hook_command("/a b/git-dibs"), "'/a b/git-dibs' hook");
    assert_eq!(hook_command("/it's/git-dibs"), r"'/it'\''s/git-dibs' hook");
    for p in ["/a b/git-dibs", "/it's/git-dibs"] {
        assert!(is_our_command(&hook_command(p)));
    }
}

#[test]
fn disabled_hooks_are_seen() {
    assert!(parse(r#"{"disableAllHooks":true}"#).hooks_disabled());
    assert!(!parse(r#"{"disableAllHooks":false}"#).hooks_disabled());
}

#[test]
fn an_equivalent_handler_with_other_key_order_is_left_alone() {
    let mut v: serde_json::Value = serde_json::from_str(&installed("")).unwrap();
    v["hooks"]["SessionEnd"][0]["hooks"][0] = serde_json::json!({"timeout": 10, "args": ["hook"], "command": "git-dibs", "type": "command"});
    let text = serde_json::to_string(&v).unwrap();
    let mut s = parse(&text);
    assert!(s.wiring().is_complete());
    assert!(!s.install(CMD).unwrap());
    assert_eq!(s, parse(&text));
}

#[test]
fn guards_fail_closed_and_claim_hooks_do_not() {
    let v: serde_json::Value = serde_json::from_str(&installed("")).unwrap();
    for spec in HOOKS {
        let group = v["hooks"][spec.event]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["matcher"].as_str() == spec.matcher)
            .unwrap_or_else(|| panic!("{spec} is wired"));
        let h = &group["hooks"][0];
        assert_eq!(h["command"], "git-dibs", "{spec}: exec form");
        assert_eq!(h["args"][0], "hook", "{spec}: exec form");
        let blocks = h["onFailure"] == "block";
        assert_eq!(blocks, spec.fail_closed, "{spec}: onFailure");
    }
    assert!(
        HOOKS
            .iter()
            .any(|s| s.fail_closed && s.matcher == Some("Bash"))
    );
    // The guards are the Bash guard and the ExitWorktree guard; no claim hook fails closed.
    let guards: Vec<_> = HOOKS
        .iter()
        .filter(|s| s.fail_closed)
        .map(|s| s.matcher)
        .collect();
    assert_eq!(guards, [Some("Bash"), Some("ExitWorktree")]);
}

#[test]
fn exec_form_with_a_quoted_path_round_trips() {
    let mut s = Settings::empty();
    let cmd = hook_command("/it's a/git-dibs");
    s.install(&cmd).unwrap();
    let w = s.wiring();
    assert!(w.is_complete(), "{w:?}");
    assert_eq!(w.commands, vec![cmd.clone()]);
    let v: serde_json::Value = serde_json::from_str(&s.render()).unwrap();
    assert_eq!(
        v["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "/it's a/git-dibs"
    );
    assert!(!s.install(&cmd).unwrap());
    assert_eq!(s.uninstall(), HOOKS.len());
}

#[test]
fn the_plugin_hooks_file_is_what_install_writes() {
    // The plugin runs the same exec-form handlers as a settings file, except that its
    // SessionStart goes through a launcher that says so when git-dibs is not on PATH.
    let text = installed("");
    let (before, start) = text.split_once("\"SessionStart\"").unwrap();
    let ours = "\"command\": \"git-dibs\",\n            \"args\": [\n              \"hook\"\n            ],";
    let launcher = "\"command\": \"${CLAUDE_PLUGIN_ROOT}/bin/git-dibs-session-start\",\n            \"args\": [],";
    let start = start.replacen(ours, launcher, 1);
    let description = "{\n  \"description\": \"git-dibs: claims, co-edit warnings and the guard; the \
                       Bash and ExitWorktree guards fail closed (onFailure: block)\",\n";
    let want = format!("{before}\"SessionStart\"{start}").replacen("{\n", description, 1);
    assert!(want.contains("git-dibs-session-start"));
    super::tests_hosts::assert_file_is("plugins/claude/hooks/hooks.json", &want);
}

#[test]
fn enabled_plugins_are_found_by_name() {
    let s = parse(
        r#"{"enabledPlugins":{"git-dibs@git-dibs":true,"git-dibs@other":false,"x@git-dibs":true,"git-dibsx@m":true}}"#,
    );
    assert_eq!(s.enabled_plugins(), vec!["git-dibs@git-dibs".to_owned()]);
    assert!(
        parse(r#"{"enabledPlugins":[]}"#)
            .enabled_plugins()
            .is_empty()
    );
}
