//! What the store keeps so a hook does less: the `dibs.*` settings of config files that did
//! not change (`settings.json`), and the trees of the last commits asked about (`trees`).

use std::collections::BTreeMap;

use super::{Store, fsio, read_small};

/// How many commits' trees [`Store::remember_tree`] keeps.
const MEMO_TREES: usize = 16;

/// The settings kept in `settings.json`, with the fingerprint of the config they came from.
#[derive(serde::Serialize, serde::Deserialize)]
struct KeptSettings {
    fingerprint: String,
    values: BTreeMap<String, String>,
}

impl Store {
    /// The `dibs.*` settings kept for config files with this `fingerprint`, if they are the
    /// ones kept (`settings.json`): a hook then needs no config parser.
    pub(crate) fn cached_settings(&self, fingerprint: &str) -> Option<BTreeMap<String, String>> {
        let bytes = read_small(&self.dir.join("settings.json"))?;
        let kept: KeptSettings = serde_json::from_slice(&bytes).ok()?;
        (kept.fingerprint == fingerprint).then_some(kept.values)
    }

    /// Keep `values` as the settings of config files with this `fingerprint`. Best effort: a
    /// lost race or a failed write only means the next call reads the config again.
    pub(crate) fn cache_settings(&self, fingerprint: &str, values: &BTreeMap<String, String>) {
        let kept = KeptSettings {
            fingerprint: fingerprint.to_owned(),
            values: values.clone(),
        };
        if let Ok(bytes) = serde_json::to_vec(&kept) {
            let _ = fsio::write_atomic(&self.dir.join("settings.json"), &bytes);
        }
    }

    /// The tree (hex) of `commit`, as kept by [`Store::remember_tree`]: a commit never
    /// changes, so this saves reading its object on a hook's path.
    pub(crate) fn tree_of(&self, commit: &str) -> Option<String> {
        let bytes = read_small(&self.dir.join("trees"))?;
        let text = std::str::from_utf8(&bytes).ok()?;
        text.lines()
            .filter_map(|l| l.split_once(' '))
            .find(|(c, _)| *c == commit)
            .map(|(_, t)| t.to_owned())
    }

    /// Keep the tree of `commit` (the last few commits asked about). Best effort.
    pub(crate) fn remember_tree(&self, commit: &str, tree: &str) {
        let path = self.dir.join("trees");
        let old = read_small(&path).unwrap_or_default();
        let old = String::from_utf8_lossy(&old);
        let mut text = format!("{commit} {tree}\n");
        for line in old
            .lines()
            .filter(|l| !l.starts_with(commit))
            .take(MEMO_TREES - 1)
        {
            text.push_str(line);
            text.push('\n');
        }
        let _ = fsio::write_atomic(&path, text.as_bytes());
    }
}
