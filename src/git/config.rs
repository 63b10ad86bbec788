//! The git config that applies to one worktree, read from its files (no repository is
//! opened): the `dibs.*` settings, with typed getters, and a fingerprint of the files so a
//! caller can keep the settings and skip reading the config while none of the files changed.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::time::Duration;

use super::status::{config_files, parse_duration};

/// The `dibs.*` settings that apply to a worktree (system, global, the clone's and the
/// worktree's config), by lower-case key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Settings {
    values: BTreeMap<String, String>,
}

impl Settings {
    /// Read the config files of the worktree whose git dir is `git_dir`. Unreadable files are
    /// skipped.
    pub(crate) fn load(git_dir: &Path) -> Settings {
        let Ok(mut config) = git2::Config::new() else {
            return Settings::default();
        };
        for (file, level) in config_files(git_dir) {
            if file.is_file() {
                let _ = config.add_file(&file, level, false);
            }
        }
        let mut names = Vec::new();
        if let Ok(entries) = config.entries(Some("dibs\\..*")) {
            let _ = entries.for_each(|e| {
                if let Some(name) = e.name() {
                    names.push(name.to_ascii_lowercase());
                }
            });
        }
        let values = names
            .into_iter()
            .filter_map(|name| {
                // The value that wins; a key written without a value is a boolean true.
                let value = match config.get_string(&name) {
                    Ok(v) if v.is_empty() => config.get_bool(&name).ok()?.to_string(),
                    Ok(v) => v,
                    Err(_) => config.get_bool(&name).ok()?.to_string(),
                };
                Some((name, value))
            })
            .collect();
        Settings { values }
    }

    /// Settings kept from an earlier [`Settings::load`] ([`Settings::values`]).
    pub(crate) fn from_values(values: BTreeMap<String, String>) -> Settings {
        Settings { values }
    }

    /// Every `dibs.*` setting, by lower-case key.
    pub(crate) fn values(&self) -> &BTreeMap<String, String> {
        &self.values
    }

    /// A fingerprint of the config files of the worktree whose git dir is `git_dir` (their
    /// paths and contents): equal fingerprints mean equal settings. `None` when a file includes
    /// others (their changes would not show) or one cannot be read.
    pub(crate) fn fingerprint(git_dir: &Path) -> Option<String> {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for (file, _) in config_files(git_dir) {
            file.hash(&mut hasher);
            match std::fs::read(&file) {
                Ok(bytes) => {
                    if bytes.windows(7).any(|w| w.eq_ignore_ascii_case(b"include")) {
                        return None;
                    }
                    bytes.hash(&mut hasher);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0u8.hash(&mut hasher),
                Err(_) => return None,
            }
        }
        Some(format!("v1-{:016x}", hasher.finish()))
    }

    /// A string setting, when set.
    pub(crate) fn string(&self, key: &str) -> Option<String> {
        self.values.get(&key.to_ascii_lowercase()).cloned()
    }

    /// A boolean setting (`true`/`yes`/`on`/`1` and their opposites), when set and readable.
    pub(crate) fn bool(&self, key: &str) -> Option<bool> {
        match self.string(key)?.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Some(true),
            "false" | "no" | "off" | "0" | "" => Some(false),
            _ => None,
        }
    }

    /// A duration setting (`90m`, `2h`, a bare number of seconds), when set and readable,
    /// raised to its floor ([`FLOORS`]).
    pub(crate) fn duration(&self, key: &str) -> Option<Duration> {
        Some(floored(key, parse_duration(&self.string(key)?)?))
    }

    /// A size setting in bytes, as git writes sizes (`512k`, `64m`, `1g`, a bare number), when
    /// set and readable.
    pub(crate) fn bytes(&self, key: &str) -> Option<u64> {
        let text = self.string(key)?.trim().to_ascii_lowercase();
        let (digits, unit) = match text.strip_suffix(['k', 'm', 'g']) {
            Some(d) => (d, 1u64 << (10 * (1 + "kmg".find(text.chars().last()?)?))),
            None => (text.as_str(), 1),
        };
        digits.parse::<u64>().ok()?.checked_mul(unit)
    }
}

/// Duration settings whose short values would switch protection off, and the least value
/// git-dibs takes for each, whatever sets it (a command, an edit, a config include): a lease
/// shorter than a shell command may run makes live sessions look gone to the guard, and
/// snapshots that expire within the day are no recovery at all.
pub(crate) const FLOORS: &[(&str, Duration)] = &[
    ("dibs.ttl", Duration::from_secs(10 * 60)),
    ("dibs.snapshotExpiry", Duration::from_secs(24 * 60 * 60)),
];

/// `value` of the duration setting `key`, raised to its floor in [`FLOORS`].
pub(crate) fn floored(key: &str, value: Duration) -> Duration {
    FLOORS
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map_or(value, |(_, floor)| value.max(*floor))
}

/// An RFC 3339 time (`2026-11-29T06:41:07Z`, `2026-11-29T07:41:07+01:00`; a time without a
/// zone is UTC) as seconds since the Unix epoch; `None` when it is not one or lies before 1970.
pub(crate) fn parse_time(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .len()
        .checked_sub(6)
        .filter(|&at| text.is_char_boundary(at))
        .map(|at| text.split_at(at));
    let (local, offset) = match split {
        Some((local, zone)) if local.contains('T') || local.contains(' ') => {
            let b = zone.as_bytes();
            let sign = match b[0] {
                b'+' => 1,
                b'-' => -1,
                _ => 0,
            };
            let hours = zone.get(1..3).and_then(|h| h.parse::<i64>().ok());
            let minutes = zone.get(4..6).and_then(|m| m.parse::<i64>().ok());
            match (sign, hours, minutes, b[3]) {
                (1 | -1, Some(h), Some(m), b':') if h < 24 && m < 60 => {
                    (local, sign * (h * 3600 + m * 60))
                }
                _ => (text, 0),
            }
        }
        _ => (text, 0),
    };
    let at = humantime::parse_rfc3339_weak(local).ok()?;
    let secs = i64::try_from(at.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs()).ok()?;
    u64::try_from(secs - offset).ok()
}

/// The `'key'='value'` pairs of `GIT_CONFIG_PARAMETERS` (also the older `'key=value'`), as git
/// writes them for the commands it runs.
pub(crate) fn parameters(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    // Words in single quotes, `\'` a quote between them (git writes `'` as `'\''`); `=` and
    // blanks outside quotes end a word.
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut open = false;
    let mut quoted = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = !quoted;
                open = true;
            }
            c if quoted => cur.push(c),
            '\\' => cur.extend(chars.next()),
            '=' | ' ' | '\t' | '\n' if open => {
                parts.push(std::mem::take(&mut cur));
                open = false;
            }
            _ => {}
        }
    }
    if open {
        parts.push(cur);
    }
    let mut it = parts.into_iter();
    while let Some(k) = it.next() {
        match k.split_once('=') {
            Some((k, v)) => out.push((k.to_owned(), v.to_owned())),
            None => out.push((k, it.next().unwrap_or_default())),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_ending_in_a_character_of_several_bytes_is_no_time_and_no_panic() {
        for text in [
            "2026-12-07T11:00:0é",
            "2026-12-07T11:00é+01:00",
            "éééé",
            "2026-12-07 é",
        ] {
            assert_eq!(parse_time(text), None, "{text}");
        }
        assert_eq!(
            parse_time("2026-12-07T11:00:00+01:00"),
            parse_time("2026-12-07T10:00:00Z")
        );
    }

    #[test]
    fn settings_follow_gits_precedence_and_forms() {
        let dir = tempfile::tempdir().unwrap();
        let git_dir = dir.path();
        std::fs::write(
            git_dir.join("config"),
            "[dibs]\n\tsync\n\tsyncInterval = 90s\n\tmachine = box\n[DIBS]\n\tmachine = laptop\n",
        )
        .unwrap();
        let before = Settings::fingerprint(git_dir).unwrap();
        let s = Settings::load(git_dir);
        assert_eq!(s.bool("dibs.sync"), Some(true));
        assert_eq!(
            s.duration("dibs.syncInterval"),
            Some(Duration::from_secs(90))
        );
        assert_eq!(s.string("dibs.machine").as_deref(), Some("laptop"));
        assert_eq!(
            floored("dibs.TTL", Duration::from_secs(60)),
            Duration::from_secs(600)
        );
        assert_eq!(
            floored("dibs.ttl", Duration::from_secs(7200)),
            Duration::from_secs(7200)
        );
        assert_eq!(
            floored("dibs.snapshotexpiry", Duration::from_secs(1)),
            Duration::from_secs(86400)
        );
        assert_eq!(
            floored("dibs.syncInterval", Duration::from_secs(1)),
            Duration::from_secs(1)
        );
        assert_eq!(s.string("dibs.remote"), None);
        assert_eq!(Settings::from_values(s.values().clone()), s);
        // The worktree's own config wins, and changes the fingerprint.
        std::fs::write(git_dir.join("config.worktree"), "[dibs]\n\tsync = off\n").unwrap();
        assert_ne!(Settings::fingerprint(git_dir).unwrap(), before);
        assert_eq!(Settings::load(git_dir).bool("dibs.sync"), Some(false));
        // An include makes the files alone not enough to tell.
        std::fs::write(git_dir.join("config.worktree"), "[include]\n\tpath = x\n").unwrap();
        assert_eq!(Settings::fingerprint(git_dir), None);
    }

    #[test]
    fn sizes_read_as_git_writes_them() {
        let key = "dibs.nestedbundlemax";
        let size =
            |v: &str| Settings::from_values([(key.to_owned(), v.to_owned())].into()).bytes(key);
        assert_eq!(size("4096"), Some(4096));
        assert_eq!(size("512k"), Some(512 << 10));
        assert_eq!(size("64M"), Some(64 << 20));
        assert_eq!(size(" 1g "), Some(1 << 30));
        assert_eq!(size("0"), Some(0));
        for bad in ["", "m", "-1", "1.5m", "2t", "99999999999999g"] {
            assert_eq!(size(bad), None, "{bad}");
        }
    }

    #[test]
    fn times_with_an_offset_are_read_as_rfc_3339_says() {
        let z = parse_time("2026-12-07T09:00:00Z").unwrap();
        assert_eq!(parse_time("2026-12-07T10:00:00+01:00"), Some(z));
        assert_eq!(parse_time("2026-12-07T04:30:00-04:30"), Some(z));
        assert_eq!(parse_time("2026-12-07T09:00:00"), Some(z));
        assert_eq!(parse_time("2026-12-07T09:00:00.5Z"), Some(z));
        assert_eq!(parse_time("2026-12-07T10:00:00+25:00"), None);
        assert_eq!(parse_time("yesterday"), None);
        assert_eq!(parse_time("1970-01-01T00:30:00+01:00"), None);
    }

    #[test]
    fn config_parameters_read_as_git_writes_them() {
        let text = r"'alias.y'='!git checkout '\''.'\''' 'core.pager'='less' 'a.b=c=d'";
        assert_eq!(
            super::parameters(text),
            [
                ("alias.y".to_owned(), "!git checkout '.'".to_owned()),
                ("core.pager".to_owned(), "less".to_owned()),
                ("a.b".to_owned(), "c=d".to_owned()),
            ]
        );
    }
}
