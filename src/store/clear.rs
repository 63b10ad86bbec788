//! `/clear`: the agent process's next session takes over the claims of the session it cleared,
//! whether or not the host sent `SessionEnd` first.

use std::fs;

use super::actors::fold_into;
use super::fence::fence;
use super::record::Session;
use super::{Store, StoreError, Writer, fsio, io_err};
use crate::agent::AgentProcess;
use crate::host::Host;

impl Store {
    /// Remember that `process` just ended session `id` with `/clear`.
    pub(crate) fn note_cleared(&self, process: &AgentProcess, id: &str) -> Result<(), StoreError> {
        let dir = self.dir.join("cleared");
        self.make_dir(&dir)?;
        let path = dir.join(process.key());
        fsio::write_atomic(&path, id.as_bytes()).map_err(io_err(&path))
    }

    /// After `/clear` in `process`: the new session `id` takes over the claims of the session
    /// that process cleared, and that record ends. Returns the old id when there was one. The
    /// cleared session is the one `SessionEnd` noted, else (hosts do not always send it first,
    /// Gemini CLI never waits) the latest other session of the same agent process.
    pub(crate) fn take_over_cleared(
        &self,
        process: &AgentProcess,
        id: &str,
        host: Host,
        now: u64,
    ) -> Result<Option<String>, StoreError> {
        let note = self.dir.join("cleared").join(process.key());
        let old_id = match fsio::read_text(&note) {
            Ok(noted) => noted,
            Err(_) => {
                let previous = self
                    .sessions()?
                    .into_iter()
                    .filter(|s| s.sub_agent.is_none() && s.id != id)
                    .filter(|s| s.agent.as_ref() == Some(process))
                    .filter(|s| !s.claims.is_empty() || !s.files.is_empty())
                    .max_by_key(|s| s.last_seen);
                match previous {
                    Some(s) => s.id,
                    None => return Ok(None),
                }
            }
        };
        let _guard = self.lock()?;
        let _ = fs::remove_file(&note);
        if old_id == id {
            return Ok(None);
        }
        let Some(old) = self.read_record(&self.session_path(&old_id), true)? else {
            return Ok(None);
        };
        let mut ended = old.clone();
        ended.files.clear();
        ended.claims.clear();
        ended.ended.get_or_insert(now);
        let prev = self.read_record(&self.session_path(id), true)?;
        let mut new = prev.clone().unwrap_or_else(|| Session::new(id, host, now));
        fence(
            &mut new,
            Writer::Agent {
                process,
                register: true,
            },
            prev.is_some(),
        )?;
        fold_into(&mut new, &old);
        if new.label.is_none() {
            new.label.clone_from(&old.label);
        }
        new.last_seen = now;
        self.write_session(Some(&old), &mut ended)?;
        self.write_session(prev.as_ref(), &mut new)?;
        Ok(Some(old_id))
    }
}
