//! Erasure noticed: a marker beside the store (`<git common dir>/dibs-store`, outside the
//! store folder, so `rm -rf .git/dibs` or `mv .git/dibs …` leaves it) says a store existed. A
//! store folder found missing while the marker is there was erased; an index found missing
//! while records remain is rebuilt from them. Either is noted in the store (`erased`) for a
//! day, for `doctor` and every session start to say.

use std::fs;
use std::time::Duration;

use super::{Store, StoreError, fsio, io_err};

/// The marker's name in the git common dir.
const MARKER: &str = "dibs-store";
/// The note's name in the store.
const NOTE: &str = "erased";
/// How long a note is told.
const TOLD_FOR: Duration = Duration::from_secs(24 * 60 * 60);

impl Store {
    fn marker(&self) -> std::path::PathBuf {
        self.dir.with_file_name(MARKER)
    }

    /// Write the marker beside the store when it is missing (cheap: one `lstat` when there).
    pub(super) fn ensure_marker(&self) {
        let marker = self.marker();
        if fs::symlink_metadata(&marker).is_err() {
            let _ = fsio::write_in_place(&marker, b"git-dibs keeps its store in dibs/\n");
        }
    }

    /// Called by `open` after it made what was missing: `made_store` when the store folder
    /// itself was missing, `made_index` when only its index was.
    pub(super) fn notice_loss(&self, made_store: bool, made_index: bool) -> Result<(), StoreError> {
        let now = super::now_secs();
        if made_store {
            if fs::symlink_metadata(self.marker()).is_ok() {
                self.note(&format!(
                    "{now} the git-dibs store ({}) was removed or moved away; every claim and \
                     touch recorded before is gone, so peers' files are unprotected until they \
                     edit again. Find who removed it (`git dibs audit` cannot tell: the log went \
                     with it).",
                    self.dir.display()
                ));
            }
            self.ensure_marker();
            return Ok(());
        }
        if made_index {
            let rebuilt = self.rebuild_index()?;
            self.note(&format!(
                "{now} the git-dibs store's index was removed; it was rebuilt from the {rebuilt} \
                 session records that remained"
            ));
        }
        Ok(())
    }

    fn note(&self, text: &str) {
        let _ = fsio::write_atomic(&self.dir.join(NOTE), text.as_bytes());
    }

    /// Write every record's index markers anew, under the lock. Returns how many records.
    fn rebuild_index(&self) -> Result<usize, StoreError> {
        let _guard = self.lock()?;
        let dir = self.dir.join("sessions");
        let mut n = 0;
        for entry in fs::read_dir(&dir).map_err(io_err(&dir))?.flatten() {
            let name = entry.file_name();
            if name.as_encoded_bytes().starts_with(b".") {
                continue;
            }
            if let Some(mut s) = self.read_record(&entry.path(), true)? {
                s.indexed = false;
                self.write_session(None, &mut s)?;
                n += 1;
            }
        }
        Ok(n)
    }

    /// What was lost lately (within a day), as a sentence, if anything was.
    pub(crate) fn erasure(&self) -> Option<String> {
        let text = fsio::read_text(&self.dir.join(NOTE)).ok()?;
        let (at, what) = text.split_once(' ')?;
        let at: u64 = at.parse().ok()?;
        (super::now_secs().saturating_sub(at) < TOLD_FOR.as_secs())
            .then(|| crate::text::clean(what, 1000))
    }
}
