//! How a hook file is wired for git-dibs: handlers counted per place, stale entries, commands.

use super::HookSpec;

/// How a settings file is wired for git-dibs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Wiring {
    /// The places git-dibs wires in this kind of file.
    pub(crate) specs: &'static [HookSpec],
    /// How many git-dibs handlers sit in each place of `specs` (same order).
    pub(crate) counts: Vec<usize>,
    /// git-dibs handlers that are out of place or differ from what `install` writes, described.
    pub(crate) stale: Vec<String>,
    /// The distinct command lines of the git-dibs handlers.
    pub(crate) commands: Vec<String>,
}

impl Wiring {
    /// No git-dibs handler at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.counts.iter().all(|&c| c == 0) && self.stale.is_empty()
    }

    /// Places with no git-dibs handler, except those added after earlier versions' installs
    /// (see [`Wiring::missing_later`]).
    pub(crate) fn missing(&self) -> Vec<HookSpec> {
        self.pick(|c| c == 0)
            .into_iter()
            .filter(|s| !s.later)
            .collect()
    }

    /// Places added after earlier versions' installs that this file lacks: it predates them.
    pub(crate) fn missing_later(&self) -> Vec<HookSpec> {
        self.pick(|c| c == 0)
            .into_iter()
            .filter(|s| s.later)
            .collect()
    }

    /// Places with more than one git-dibs handler.
    pub(crate) fn duplicated(&self) -> Vec<HookSpec> {
        self.pick(|c| c > 1)
    }

    /// Every place has exactly one handler, nothing is stale, and one command line is used.
    pub(crate) fn is_complete(&self) -> bool {
        self.counts.iter().all(|&c| c == 1) && self.stale.is_empty() && self.commands.len() == 1
    }

    fn pick(&self, f: impl Fn(usize) -> bool) -> Vec<HookSpec> {
        self.specs
            .iter()
            .zip(&self.counts)
            .filter(|&(_, &c)| f(c))
            .map(|(s, _)| *s)
            .collect()
    }
}
