//! Where a scan its budget stopped goes on: the changed files of a worktree are taken in byte
//! order of their paths, and a scan that stops remembers the last path it took, so the next
//! one begins after it instead of taking the same first files again (past the 4,096 files a
//! session's state watches, those it took no longer count as kept, and a scan from the start
//! never got further). A cursor also says since when a change counts on either side of that
//! path: after it, since the command the scan is for began; up to it, only since the scan
//! that took those files ran (a file changed again since then is taken again).

use crate::store::Resume;

/// Where one worktree's scan goes on (nanoseconds since the Unix epoch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Cursor {
    /// The last path taken ("" before any).
    pub(super) after: String,
    /// Changes since this count for the paths after `after`.
    pub(super) since: i128,
    /// Changes since this count for the paths up to `after`.
    pub(super) again: i128,
}

/// What one scan of a worktree did with its budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Outcome {
    /// The budget stopped it (or a scan of a repository nested inside).
    pub(super) over: bool,
    /// Where the next scan goes on (the same cursor when it did not stop).
    pub(super) next: Cursor,
    /// How many changed files it saw and could not take.
    pub(super) left: usize,
}

const NS: i128 = 1_000_000_000;

impl Cursor {
    /// Every path, for what changed since `since`.
    pub(super) fn flat(since: i128) -> Cursor {
        Cursor {
            after: String::new(),
            since,
            again: since,
        }
    }

    /// This cursor, also taking what changed since `since` (on both sides).
    pub(super) fn widened(mut self, since: i128) -> Cursor {
        self.since = self.since.min(since);
        self.again = self.again.min(since);
        self
    }

    /// The cursor a pending mark keeps for a worktree.
    pub(super) fn of(r: &Resume) -> Cursor {
        Cursor {
            after: r.after.clone(),
            since: i128::from(r.since) * NS,
            again: i128::from(r.again) * NS,
        }
    }

    /// As a pending mark keeps it for the worktree at `root` (whole seconds, rounded down: a
    /// change in the same second counts).
    pub(super) fn to_resume(&self, root: &std::path::Path) -> Resume {
        let secs = |ns: i128| u64::try_from(ns.div_euclid(NS)).unwrap_or(0);
        Resume {
            root: root.to_path_buf(),
            after: self.after.clone(),
            since: secs(self.since),
            again: secs(self.again),
        }
    }

    /// `paths` in the order a scan takes them: those after `after` first, then those up to
    /// it; and how many come first.
    pub(super) fn order(&self, mut paths: Vec<String>) -> (Vec<String>, usize) {
        paths.sort();
        let split = paths.partition_point(|p| p.as_str() <= self.after.as_str());
        paths.rotate_left(split);
        let first = paths.len() - split;
        (paths, first)
    }

    /// Since when a change counts for a path on the first side (after `after`) or not.
    pub(super) fn threshold(&self, first: bool) -> i128 {
        if first { self.since } else { self.again }
    }

    /// Where to go on after a scan that began at `began` stopped on the first side or not
    /// (`in_first`), having taken last `last_first` on the first side and `last_second` on the
    /// other.
    pub(super) fn next(
        &self,
        in_first: bool,
        last_first: Option<&str>,
        last_second: Option<&str>,
        began: i128,
    ) -> Cursor {
        if in_first {
            // Up to the new cursor: what this scan took (from `began`), and, when it went on
            // from a cursor, the paths up to that one, which it did not reach.
            return Cursor {
                after: last_first.unwrap_or(&self.after).to_owned(),
                since: self.since,
                again: if self.after.is_empty() {
                    began
                } else {
                    self.again
                },
            };
        }
        // Everything after `after` was taken in this scan; up to `last_second` too.
        Cursor {
            after: last_second.unwrap_or_default().to_owned(),
            since: self.again,
            again: began,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_stopped_scan_goes_on_after_the_last_path_it_took() {
        let flat = Cursor::flat(10);
        let (all, first) = flat.order(paths(&["b", "a", "c"]));
        assert_eq!((all, first), (paths(&["a", "b", "c"]), 3));
        // Stopped after `b` on the first side: `c` comes first next time; `a` and `b` count
        // again only when changed since the scan that took them.
        let next = flat.next(true, Some("b"), None, 50);
        assert_eq!(
            next,
            Cursor {
                after: "b".into(),
                since: 10,
                again: 50
            }
        );
        assert_eq!(
            next.order(paths(&["a", "b", "c"])),
            (paths(&["c", "a", "b"]), 1)
        );
        // Going on from there and stopped on the first side again: the paths up to `b` were
        // not reached, and keep their time.
        let on = Cursor {
            after: "b".into(),
            since: 10,
            again: 20,
        };
        assert_eq!(on.next(true, Some("c"), None, 70).again, 20);
        // Stopped on the second side after `a`: what lies after it counts since the first
        // scan's `again`, what lies up to it since this scan began.
        let later = on.next(false, None, Some("a"), 90);
        assert_eq!(
            later,
            Cursor {
                after: "a".into(),
                since: 20,
                again: 90
            }
        );
        assert_eq!(later.threshold(true), 20);
        assert_eq!(later.threshold(false), 90);
        // Widened by a later command's start; and kept in whole seconds, rounded down.
        let wide = later.widened(5);
        assert_eq!((wide.since, wide.again), (5, 5));
        let c = Cursor {
            after: "x".into(),
            since: 2_500_000_000,
            again: 3_000_000_000,
        };
        let kept = Cursor::of(&c.to_resume(std::path::Path::new("/w")));
        assert_eq!(
            kept,
            Cursor {
                after: "x".into(),
                since: 2_000_000_000,
                again: 3_000_000_000
            }
        );
    }
}
