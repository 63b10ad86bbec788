//! The background sync the hooks start: never waited for, at most once per
//! `dibs.syncInterval`, only when `dibs.sync` is on. A hook's cost when it is not due is one
//! `stat` of the store's `sync/due` stamp.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::git::Settings;
use crate::store::{Store, SyncDue};

use super::DEFAULT_INTERVAL;

/// Start `git-dibs sync --background` for the repository at `root` when one is due. `first`
/// says whether this call may be the first of a session (a session start or a prompt), which
/// is when a clone that never synced looks at `dibs.sync`; `settings` is read only then, or
/// when a sync is due.
pub(crate) fn kick<'s>(
    store: &Store,
    root: &Path,
    first: bool,
    now: u64,
    settings: impl FnOnce() -> &'s Settings,
) {
    match store.sync_due() {
        SyncDue::NotYet => return,
        SyncDue::Never if !first => return,
        SyncDue::Never | SyncDue::Due => {}
    }
    let settings = settings();
    if settings.bool("dibs.sync") != Some(true) {
        store.clear_sync_due();
        return;
    }
    let interval = settings
        .duration("dibs.syncInterval")
        .unwrap_or(DEFAULT_INTERVAL)
        .as_secs()
        .max(1);
    // Take the slot first, so the hooks that follow do not start syncs of their own; the
    // sync sets the next one when it ends.
    if store.set_sync_due(now + interval).is_err() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut cmd = Command::new(exe);
    cmd.args(["sync", "--background"])
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own process group: the host may kill the hook's group once the hook answers.
        cmd.process_group(0);
    }
    let _ = cmd.spawn();
}
