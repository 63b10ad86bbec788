//! `git dibs doctor` and `git dibs uninstall` beside the Claude Code plugin: a user whose
//! settings enable the plugin is wired in every repository (no problem reported), a disabled
//! plugin is not, and uninstalling settings-file hooks leaves the plugin's enabling alone.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{TestRepo, bin};

fn dibs(repo: &TestRepo, home: &Path, args: &[&str]) -> Output {
    let bin_dir = bin().parent().unwrap().to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new(bin())
        .args(args)
        .current_dir(&repo.root)
        .env("HOME", home)
        .env("PATH", path)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .expect("git-dibs runs")
}

fn user_settings(home: &Path, text: &str) {
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(home.join(".claude/settings.json"), text).unwrap();
}

#[test]
fn doctor_counts_an_enabled_plugin_as_wiring() {
    let repo = TestRepo::new();
    let home = tempfile::tempdir().unwrap();
    let unwired = "hooks are not wired: run `git dibs install`";
    let out = dibs(&repo, home.path(), &["doctor"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains(unwired) && !out.status.success(), "{text}");

    user_settings(
        home.path(),
        r#"{"enabledPlugins":{"git-dibs@git-dibs":false}}"#,
    );
    let out = dibs(&repo, home.path(), &["doctor"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains(unwired),
        "a disabled plugin wires nothing: {text}"
    );
    assert!(!out.status.success(), "{text}");

    user_settings(
        home.path(),
        r#"{"enabledPlugins":{"git-dibs@git-dibs":true}}"#,
    );
    let out = dibs(&repo, home.path(), &["doctor"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("wired by the Claude Code plugin git-dibs@git-dibs"),
        "{text}"
    );
    assert!(!text.contains(unwired) && out.status.success(), "{text}");
}

#[test]
fn uninstall_leaves_the_plugin_enabled() {
    let repo = TestRepo::new();
    let home = tempfile::tempdir().unwrap();
    let enabled = r#"{"enabledPlugins":{"git-dibs@git-dibs":true}}"#;
    user_settings(home.path(), enabled);
    assert!(
        dibs(&repo, home.path(), &["install", "--user"])
            .status
            .success()
    );
    let after_install = std::fs::read_to_string(home.path().join(".claude/settings.json")).unwrap();
    assert!(after_install.contains("\"args\""), "{after_install}");
    assert!(
        dibs(&repo, home.path(), &["uninstall", "--user"])
            .status
            .success()
    );
    let after = std::fs::read_to_string(home.path().join(".claude/settings.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&after).unwrap();
    assert_eq!(v["enabledPlugins"]["git-dibs@git-dibs"], true, "{after}");
    assert!(v.get("hooks").is_none(), "{after}");
}
