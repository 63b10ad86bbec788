//! Unit tests of the Cursor, Gemini CLI and Codex hook files: the fragments in `hooks/` are what
//! install writes, merging keeps others' hooks, install is idempotent, uninstall restores.

use super::*;

const BASE: &str = "git-dibs hook";

fn others() -> [ConfigHost; 3] {
    [ConfigHost::Cursor, ConfigHost::Gemini, ConfigHost::Codex]
}

fn fresh(host: ConfigHost) -> String {
    let mut s = Settings::empty();
    assert!(s.install_in(host.layout(), &host.command(BASE)).unwrap());
    s.render()
}

/// Fail unless `rel` (from the checkout's root) holds `want`; `UPDATE_EXAMPLES=1` rewrites it.
pub(super) fn assert_file_is(rel: &str, want: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    if std::env::var_os("UPDATE_EXAMPLES").is_some() {
        std::fs::write(&path, want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(have, want, "{rel} is stale: UPDATE_EXAMPLES=1 cargo test");
}

/// `hooks/<host>.json` is what install writes on an empty file, and so are the hook files of
/// the plugins: Cursor's and Codex's beside Claude Code's in `plugins/claude/hooks/`, the
/// Gemini CLI extension's in `plugins/gemini/hooks/hooks.json`.
#[test]
fn fragments_are_what_install_writes() {
    for host in others() {
        let want = fresh(host);
        assert_file_is(&format!("hooks/{}.json", host.name()), &want);
        let plugin = match host {
            ConfigHost::Gemini => "plugins/gemini/hooks/hooks.json".to_owned(),
            other => format!("plugins/claude/hooks/{}.json", other.name()),
        };
        assert_file_is(&plugin, &want);
    }
}

#[test]
fn shapes_per_host() {
    let cursor: serde_json::Value = serde_json::from_str(&fresh(ConfigHost::Cursor)).unwrap();
    assert_eq!(cursor["version"], 1);
    assert_eq!(
        cursor["hooks"]["preToolUse"][0],
        serde_json::json!({"command": "git-dibs hook --host cursor", "matcher": "Write|Delete",
            "timeout": 10})
    );
    assert_eq!(
        cursor["hooks"]["beforeShellExecution"][0],
        serde_json::json!({"command": "git-dibs hook --host cursor", "timeout": 10})
    );
    let gemini: serde_json::Value = serde_json::from_str(&fresh(ConfigHost::Gemini)).unwrap();
    assert_eq!(
        gemini["hooks"]["BeforeTool"][1],
        serde_json::json!({"matcher": "run_shell_command", "hooks": [{"type": "command",
            "command": "git-dibs hook --host gemini", "timeout": 10000}]})
    );
    let codex: serde_json::Value = serde_json::from_str(&fresh(ConfigHost::Codex)).unwrap();
    assert_eq!(
        codex["hooks"]["PreToolUse"][0],
        serde_json::json!({"matcher": "apply_patch", "hooks": [{"type": "command",
            "command": "git-dibs hook --host codex", "timeout": 10}]})
    );
    assert!(codex["hooks"].get("SessionEnd").is_none());
}

#[test]
fn fresh_install_is_complete_and_idempotent() {
    for host in others() {
        let once = fresh(host);
        let mut s = Settings::parse(once.as_bytes()).unwrap();
        let w = s.wiring_in(host.layout());
        assert!(w.is_complete(), "{host}: {w:?}");
        assert_eq!(w.counts.len(), host.layout().hooks.len());
        assert!(!s.install_in(host.layout(), &host.command(BASE)).unwrap());
        assert_eq!(s.render(), once);
    }
}

#[test]
fn cursor_merge_keeps_other_hooks_and_uninstall_restores_them() {
    let original = r#"{
  "version": 1,
  "hooks": {
    "beforeShellExecution": [
      {
        "command": ".cursor/hooks/audit.sh",
        "timeout": 5
      }
    ]
  },
  "other": true
}
"#;
    let layout = ConfigHost::Cursor.layout();
    let mut s = Settings::parse(original.as_bytes()).unwrap();
    assert!(s.install_in(layout, "git-dibs hook --host cursor").unwrap());
    let v: serde_json::Value = serde_json::from_str(&s.render()).unwrap();
    let shell = v["hooks"]["beforeShellExecution"].as_array().unwrap();
    assert_eq!(shell.len(), 2);
    assert_eq!(shell[0]["command"], ".cursor/hooks/audit.sh");
    assert_eq!(v["other"], true);
    assert!(s.wiring_in(layout).is_complete());
    assert_eq!(s.uninstall_in(layout), layout.hooks.len());
    assert_eq!(s.render(), original);
}

#[test]
fn gemini_and_codex_join_groups_and_uninstall_restores() {
    for (host, original) in [
        (
            ConfigHost::Gemini,
            r#"{"ui":{"theme":"x"},"hooks":{"BeforeTool":[{"matcher":"run_shell_command","hooks":[{"type":"command","command":"mine","timeout":500}]}]}}"#,
        ),
        (
            ConfigHost::Codex,
            r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"mine"}]}]}}"#,
        ),
    ] {
        let layout = host.layout();
        let mut s = Settings::parse(original.as_bytes()).unwrap();
        assert!(s.install_in(layout, &host.command(BASE)).unwrap());
        let w = s.wiring_in(layout);
        assert!(w.is_complete(), "{host}: {w:?}");
        let v: serde_json::Value = serde_json::from_str(&s.render()).unwrap();
        let event = if host == ConfigHost::Gemini {
            "BeforeTool"
        } else {
            "PreToolUse"
        };
        let shell = v["hooks"][event]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| {
                g["matcher"]
                    .as_str()
                    .is_some_and(|m| m == "run_shell_command" || m == "Bash")
            })
            .unwrap();
        assert_eq!(shell["hooks"][0]["command"], "mine");
        assert_eq!(
            shell["hooks"].as_array().unwrap().len(),
            2,
            "{host}: joined, not repeated"
        );
        assert_eq!(s.uninstall_in(layout), layout.hooks.len());
        let back: serde_json::Value = serde_json::from_str(&s.render()).unwrap();
        let want: serde_json::Value = serde_json::from_str(original).unwrap();
        assert_eq!(back, want, "{host}");
    }
}

#[test]
fn stale_and_missing_are_reported() {
    let layout = ConfigHost::Gemini.layout();
    // A handler written by someone thinking in seconds, and most places missing.
    let text = r#"{"hooks":{"BeforeTool":[{"matcher":"write_file|replace","hooks":[
        {"type":"command","command":"git-dibs hook --host gemini","timeout":10}]}]}}"#;
    let mut s = Settings::parse(text.as_bytes()).unwrap();
    let w = s.wiring_in(layout);
    assert_eq!(w.stale.len(), 1, "{w:?}");
    // The places added later are out of date, not missing.
    let later = layout.hooks.iter().filter(|h| h.later).count();
    assert_eq!(later, 2);
    assert_eq!(w.missing().len(), layout.hooks.len() - later);
    assert_eq!(w.missing_later().len(), later);
    s.install_in(layout, "git-dibs hook --host gemini").unwrap();
    assert!(s.wiring_in(layout).is_complete());
}

#[test]
fn invalid_files_are_refused() {
    for host in others() {
        let mut s =
            Settings::parse(br#"{"hooks":{"BeforeTool":{}, "preToolUse": 3, "PreToolUse": "x"}}"#)
                .unwrap();
        let before = s.clone();
        assert!(
            s.install_in(host.layout(), "git-dibs hook").is_err(),
            "{host}"
        );
        assert_eq!(s, before);
    }
    assert!(Settings::parse(b"[1]").is_err());
    assert!(Settings::parse(br#"{"hooks": []}"#).is_err());
}
