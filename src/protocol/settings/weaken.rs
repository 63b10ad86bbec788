//! Whether a change to an agent host's settings file weakens git-dibs: its hooks removed,
//! all hooks disabled, its plugin turned off, the guard's bypass (or a `dibs.*` setting) put
//! in the file's `env` (which applies to every later command of every session), or the file
//! left unreadable. The hook of an edit tool refuses such a change, and Claude Code's
//! `ConfigChange` hook refuses one made any other way.

use std::path::Path;

use super::hosts::ConfigHost;
use super::{Json, Settings};
use crate::policy::guard::BYPASS_VAR;

/// The host whose hook wiring the file at `path` holds, by its folder and name.
pub(crate) fn host_of_file(path: &Path) -> Option<ConfigHost> {
    let name = path.file_name()?.to_str()?;
    let dir = path.parent()?.file_name()?.to_str()?;
    match (dir, name) {
        (".claude", n) if n.starts_with("settings") && n.ends_with(".json") => {
            Some(ConfigHost::Claude)
        }
        (".gemini", "settings.json") => Some(ConfigHost::Gemini),
        (".codex", "hooks.json") => Some(ConfigHost::Codex),
        (".cursor", "hooks.json") => Some(ConfigHost::Cursor),
        _ => None,
    }
}

/// Whether an `env` entry weakens git-dibs: the bypass, a `DIBS_*` variable, or git config
/// given through the environment that names a `dibs.*` key.
fn weakening_env(key: &str, value: &str) -> bool {
    key == BYPASS_VAR
        || key.starts_with("DIBS_")
        || (key.starts_with("GIT_CONFIG") && value.to_ascii_lowercase().contains("dibs."))
}

impl Settings {
    fn env(&self) -> Vec<(String, String)> {
        let Some(Json::Object(env)) = self.root.get("env") else {
            return Vec::new();
        };
        env.iter()
            .map(|(k, v)| {
                let v = match v {
                    Json::String(s) => s.clone(),
                    other => serde_json::to_string(other).unwrap_or_default(),
                };
                (k.clone(), v)
            })
            .collect()
    }
}

/// What the change of a `host` settings file from `before` to `after` takes away from
/// git-dibs, one sentence each; empty when nothing. A file that could not be read before is
/// judged as an empty one.
pub(crate) fn weakening(host: ConfigHost, before: &[u8], after: &[u8]) -> Vec<String> {
    let layout = host.layout();
    let old = Settings::parse(before).unwrap_or_else(|_| Settings::empty());
    let old_wiring = old.wiring_in(layout);
    let new = match Settings::parse(after) {
        Ok(s) => s,
        Err(e) if !old_wiring.is_empty() => {
            return vec![format!(
                "it leaves the file unreadable ({e}), which unwires git-dibs's hooks"
            )];
        }
        Err(_) => return Vec::new(),
    };
    let new_wiring = new.wiring_in(layout);
    let removed: Vec<String> = layout
        .hooks
        .iter()
        .zip(old_wiring.counts.iter().zip(&new_wiring.counts))
        .filter(|(_, (was, is))| **was > 0 && **is == 0)
        .map(|(spec, _)| spec.to_string())
        .collect();
    let wired = old_wiring.counts.iter().filter(|n| **n > 0).count();
    let mut out: Vec<String> = match removed.as_slice() {
        [] => Vec::new(),
        [one] => vec![format!("it removes git-dibs's {one} hook")],
        _ if removed.len() == wired => {
            vec![format!("it removes git-dibs's hooks, all {wired} of them")]
        }
        many => vec![format!(
            "it removes git-dibs's hooks for {}",
            many.join(", ")
        )],
    };
    if new.hooks_disabled() && !old.hooks_disabled() {
        out.push("it sets disableAllHooks, which turns git-dibs's hooks off".to_owned());
    }
    let plugins = new.enabled_plugins();
    for p in old.enabled_plugins() {
        if !plugins.contains(&p) {
            out.push(format!("it turns the git-dibs plugin ({p}) off"));
        }
    }
    let old_env = old.env();
    for (k, v) in new.env() {
        if weakening_env(&k, &v) && !old_env.contains(&(k.clone(), v.clone())) {
            out.push(format!(
                "it sets {k} in the file's env, which applies to every later command of every \
                 session and weakens git-dibs's guard"
            ));
        }
    }
    out
}

/// For a `host` settings file's `bytes` that still hold some of git-dibs's hooks: each place
/// that lost its hook, as a sentence (a partial unwiring); empty when wired fully or not at all.
pub(crate) fn partly_unwired(host: ConfigHost, bytes: &[u8]) -> Vec<String> {
    let Ok(s) = Settings::parse(bytes) else {
        return Vec::new();
    };
    let w = s.wiring_in(host.layout());
    if w.is_empty() {
        return Vec::new();
    }
    w.missing()
        .iter()
        .map(|spec| format!("git-dibs's {spec} hook is gone from it"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wired() -> String {
        let mut s = Settings::empty();
        s.install("git-dibs hook").unwrap();
        s.render()
    }

    #[test]
    fn removing_hooks_disabling_them_or_setting_the_bypass_weakens_git_dibs() {
        let before = wired();
        let host = ConfigHost::Claude;
        assert!(weakening(host, before.as_bytes(), before.as_bytes()).is_empty());
        assert!(!weakening(host, before.as_bytes(), b"{}").is_empty());
        assert!(!weakening(host, before.as_bytes(), b"{ not json").is_empty());
        let mut with_env = Settings::parse(before.as_bytes()).unwrap();
        with_env.root.insert(
            "env".into(),
            serde_json::json!({"WT_GUARD_BYPASS": "1", "EDITOR": "vi"}),
        );
        let found = weakening(host, before.as_bytes(), with_env.render().as_bytes());
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("WT_GUARD_BYPASS"));
        let mut off = Settings::parse(before.as_bytes()).unwrap();
        off.root.insert("disableAllHooks".into(), Json::Bool(true));
        assert!(!weakening(host, before.as_bytes(), off.render().as_bytes()).is_empty());
        // Other changes are no one's business.
        let mut other = Settings::parse(before.as_bytes()).unwrap();
        other.root.insert("model".into(), "opus".into());
        assert!(weakening(host, before.as_bytes(), other.render().as_bytes()).is_empty());
        assert!(weakening(host, b"{}", b"{\"model\": \"x\"}").is_empty());
    }

    #[test]
    fn host_files_are_known_by_folder_and_name() {
        assert_eq!(
            host_of_file(Path::new("/r/.claude/settings.local.json")),
            Some(ConfigHost::Claude)
        );
        assert_eq!(
            host_of_file(Path::new("/h/.gemini/settings.json")),
            Some(ConfigHost::Gemini)
        );
        assert_eq!(host_of_file(Path::new("/r/settings.json")), None);
    }
}
