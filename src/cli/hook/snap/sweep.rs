//! The sweep before a shell command: the files sessions snapshotted that changed since, by
//! stat data, go into new snapshots. Where the clone's file watcher answers
//! ([`crate::store::watch`]), only the files it names are `lstat`ed; where none does and many
//! files were checked, one is started for the next sweeps.

use std::path::Path;

use super::{Batch, Pending, SWEEP_LIMIT, Source, clones_from, failed, host_or_person, snapshot};
use crate::git::Worktree;
use crate::platform::below::Below;
use crate::protocol::Event;
use crate::shell::SimpleCommand;
use crate::store::watch::{Answer, MIN_FILES, Mode};
use crate::store::{self, Stamp, Store};

/// Before a shell command runs: for every clone it runs in, the files that sessions active
/// within their lease have snapshotted and that changed since (by stat data; at most
/// [`SWEEP_LIMIT`] files read) go into new snapshots. Costs one listing of the store's
/// `snapshots/` when no session snapshotted anything, and opens no repository when nothing
/// changed. `here` is the worktree of the event's cwd. Returns the snapshots made.
pub(crate) fn sweep(event: &Event, here: Option<&Worktree>, cmds: &[SimpleCommand]) -> Vec<String> {
    let mode = Mode::current();
    let mut made = Vec::new();
    for wt in clones_from(event, here, cmds) {
        let Some(store) = Store::with_snapshots(&wt.common_dir) else {
            continue;
        };
        let now = store::now_secs();
        // Sessions active within their lease: the config is read only for a log older than
        // the shortest lease.
        let mut lease = super::super::facts::lease_in(&wt, Some(&store));
        // The watcher is asked once the logs are listed (at the first file), so that every
        // file they name was known to it when it answered.
        let mut answer: Option<Option<Answer>> = (mode == Mode::Off).then_some(None);
        let mut checked = 0usize;
        // Each folder is looked up once for all the files below it that are asked (they come
        // in path order), and no link below a worktree's root is followed: a file now reached
        // only through a link to a folder is gone from the worktree, its last content is in
        // the snapshot already.
        let mut below: Option<Below> = None;
        let mut changed = |root: &Path, rel: &[u8], stamp: &Stamp| {
            checked += 1;
            let told = answer.get_or_insert_with(|| store.ask_watcher());
            if told
                .as_ref()
                .is_some_and(|a| !a.may_have_changed(root, rel))
            {
                return false;
            }
            let files = match &mut below {
                Some(b) if b.root() == root => b,
                slot => slot.insert(Below::new(root)),
            };
            files.lstat(rel).is_some_and(|s| Stamp::from(s) != *stamp)
        };
        for state in store.changed_watched(now, &mut lease, SWEEP_LIMIT, &mut changed) {
            let changed: Vec<Pending> = state
                .files
                .into_iter()
                .map(|(worktree, path)| Pending { worktree, path })
                .collect();
            let host = host_or_person(&state.host);
            let batch = Batch {
                session: &state.session,
                host,
                now,
                files: &changed,
                source: Source::Sweep,
            };
            match snapshot(&store, &wt.common_dir, batch) {
                Ok(Some(c)) => made.push(c),
                Ok(None) => {}
                Err(e) => failed(Some(&store), now, &e),
            }
        }
        let unanswered = matches!(answer, Some(None));
        let enough = checked >= MIN_FILES || (mode == Mode::On && checked > 0);
        if unanswered && mode != Mode::Off && enough && store.may_start_watcher(now) {
            start_watcher(&wt.common_dir);
        }
    }
    made
}

/// Start the watcher of the clone whose common git folder is `common_dir`, detached: its own
/// process group, no standard streams, no environment (it needs none), `/` for its folder
/// (it holds no worktree busy).
fn start_watcher(common_dir: &Path) {
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("watch")
        .arg("--dir")
        .arg(common_dir)
        .current_dir("/")
        .env_clear()
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    {
        use std::os::unix::process::CommandExt;
        // Its own process group: the host may kill the hook's group once the hook answers.
        cmd.process_group(0);
    }
    let _ = cmd.spawn();
}
