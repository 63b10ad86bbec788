//! Background jobs: a marker per session that started a job which may go on writing after its
//! shell command returned (`background/<key>`): the worktrees it may write in, when it began,
//! and the processes found running it. While a marker is live, the scan for unseen changes runs
//! for that session whatever its later calls are, and before any session's shell command that
//! may write; it ends when every process it names is gone (or, with none known, after its
//! lease).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{Store, fsio, session_key};

/// The most worktrees, and processes, one marker names.
const MAX_ITEMS: usize = 16;
/// The largest marker read back (bytes).
const MAX_MARKER_BYTES: usize = 16 << 10;
/// The most markers looked at per clone.
const MAX_MARKERS: usize = 64;

/// One session's background job(s).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Background {
    /// The session that started it.
    pub(crate) session: String,
    /// Its host's name.
    pub(crate) host: String,
    /// When the command that started it began, seconds since the Unix epoch.
    pub(crate) since: u64,
    /// When the marker was last written (seconds).
    pub(crate) at: u64,
    /// The worktree roots it may write in.
    pub(crate) roots: Vec<PathBuf>,
    /// The processes found running it: (pid, start time as the system tells it).
    #[serde(default)]
    pub(crate) pids: Vec<(u32, u64)>,
}

impl Store {
    fn background_dir(&self) -> PathBuf {
        self.dir.join("background")
    }

    /// The store of the clone whose common git dir is `common_dir`, when a job was ever marked
    /// there (one `lstat`; nothing is created).
    pub(crate) fn with_backgrounds(common_dir: &std::path::Path) -> Option<Store> {
        let store = Store {
            dir: common_dir.join("dibs"),
        };
        fsio::is_real_dir(&store.background_dir()).then_some(store)
    }

    /// Record `job` (merged with the session's live marker: the earliest start, every root and
    /// process). Best effort.
    pub(crate) fn mark_background(&self, mut job: Background) {
        let dir = self.background_dir();
        if !fsio::is_real_dir(&dir) && self.make_dir(&dir).is_err() {
            return;
        }
        if let Some(old) = self
            .backgrounds()
            .into_iter()
            .find(|b| b.session == job.session)
        {
            job.since = job.since.min(old.since);
            for r in old.roots {
                if !job.roots.contains(&r) {
                    job.roots.push(r);
                }
            }
            for p in old.pids {
                if !job.pids.contains(&p) {
                    job.pids.push(p);
                }
            }
        }
        job.roots.truncate(MAX_ITEMS);
        job.pids.truncate(MAX_ITEMS);
        let bytes = serde_json::to_vec(&job).expect("a marker serializes");
        let _ = fsio::write_atomic(&dir.join(session_key(&job.session)), &bytes);
    }

    /// Every background marker of this clone (one failed listing when there is none).
    pub(crate) fn backgrounds(&self) -> Vec<Background> {
        let Ok(entries) = std::fs::read_dir(self.background_dir()) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for entry in entries.flatten().take(MAX_MARKERS) {
            if entry.file_name().as_encoded_bytes().starts_with(b".") {
                continue;
            }
            let Ok(bytes) = fsio::read(&entry.path()) else {
                continue;
            };
            if bytes.len() > MAX_MARKER_BYTES {
                continue;
            }
            if let Ok(job) = serde_json::from_slice::<Background>(&bytes)
                && session_key(&job.session) == entry.file_name().to_string_lossy()
            {
                out.push(job);
            }
        }
        out.sort_by(|a, b| a.session.cmp(&b.session));
        out
    }

    /// Remove `session`'s marker (its job ended).
    pub(crate) fn end_background(&self, session: &str) {
        let _ = std::fs::remove_file(self.background_dir().join(session_key(session)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_merge_per_session_and_end() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert!(store.backgrounds().is_empty());
        let job = |s: &str, since: u64, root: &str, pid: u32| Background {
            session: s.into(),
            host: "claude".into(),
            since,
            at: since,
            roots: vec![root.into()],
            pids: vec![(pid, 7)],
        };
        store.mark_background(job("s/1", 20, "/a", 1));
        store.mark_background(job("s/1", 10, "/b", 2));
        store.mark_background(job("s2", 5, "/a", 3));
        let all = store.backgrounds();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].session, "s/1");
        assert_eq!(all[0].since, 10);
        assert_eq!(all[0].roots, [PathBuf::from("/b"), PathBuf::from("/a")]);
        assert_eq!(all[0].pids, [(2, 7), (1, 7)]);
        // A file that is not a marker of the session its name says is left out.
        std::fs::write(
            store.background_dir().join("s2"),
            b"{\"session\":\"other\"}",
        )
        .unwrap();
        assert_eq!(store.backgrounds().len(), 1);
        store.end_background("s/1");
        assert!(store.backgrounds().is_empty());
    }
}
