//! The shell state a command line carries from one command to the next (directory, `pushd`
//! stack, variables, paths made), how paths that disagree merge, and where a command's input
//! comes from.

use std::path::PathBuf;

use super::vars::Vars;

/// The shell state that matters here: the working directory, the `pushd` stack, variables,
/// `dotglob`, and paths made earlier in the line (links, moves) whose targets are unknown.
#[derive(Clone, Debug, Default)]
pub(super) struct State {
    pub(super) cwd: PathBuf,
    pub(super) known: bool,
    pub(super) stack: Vec<(PathBuf, bool)>,
    pub(super) vars: Vars,
    pub(super) dotglob: bool,
    pub(super) made: Vec<PathBuf>,
    /// Files written earlier in the line, with their content when it is literal.
    pub(super) written: Vec<(PathBuf, Option<String>)>,
    /// Shell aliases defined earlier in the line, with their text when it is literal.
    pub(super) aliases: Vec<(String, Option<String>)>,
    /// `GIT_*` variables exported earlier in the line (name, value as written).
    pub(super) exported: Vec<(String, String)>,
    /// The line starts in a folder that exists: a `cd` into one that does not is a failing
    /// `cd` (or one into a folder made in the line), whose directory is then unknown.
    pub(super) on_disk: bool,
}

/// The variables of git's environment through which git finds its repository and index; a
/// command line inherits them from the host that runs it, as if it began by exporting them.
pub(super) const INHERITED: [&str; 4] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
];

/// [`INHERITED`] as this process's environment sets them (not empty), values as they are.
pub(super) fn inherited_exports() -> Vec<(String, String)> {
    INHERITED
        .iter()
        .filter_map(|k| {
            let v = std::env::var_os(k).filter(|v| !v.is_empty())?;
            Some(((*k).to_owned(), v.to_string_lossy().into_owned()))
        })
        .collect()
}

impl State {
    fn same(&self, o: &State) -> bool {
        self.known == o.known && (!self.known || self.cwd == o.cwd)
    }

    /// The state after one of several paths ran: known only where every path agrees.
    pub(super) fn merge(mut self, others: &[State]) -> State {
        if others.iter().any(|o| !o.same(&self)) {
            self.known = false;
        }
        // A variable set on one path only, or to different values, is not known afterwards.
        let mine: Vec<String> = self.vars.keys().cloned().collect();
        for k in mine {
            if others.iter().any(|o| o.vars.get(&k) != self.vars.get(&k)) {
                self.vars.insert(k, None);
            }
        }
        for o in others {
            for (k, v) in &o.vars {
                if self.vars.get(k) != Some(v) {
                    self.vars.insert(k.clone(), None);
                }
            }
            self.dotglob |= o.dotglob;
            for m in &o.made {
                if !self.made.contains(m) {
                    self.made.push(m.clone());
                }
            }
            for (path, text) in &o.written {
                match self.written.iter_mut().find(|(p, _)| p == path) {
                    Some((_, mine)) if mine != text => *mine = None,
                    Some(_) => {}
                    None => self.written.push((path.clone(), text.clone())),
                }
            }
        }
        self
    }

    /// Whether `cd` searches `CDPATH` (set in the line, or in the environment).
    pub(super) fn cdpath(&self) -> bool {
        match self.vars.get("CDPATH") {
            Some(v) => v.as_deref() != Some(""),
            None => std::env::var_os("CDPATH").is_some_and(|v| !v.is_empty()),
        }
    }
}

/// Where a command's standard input comes from, as far as a nested shell cares.
#[derive(Clone, Debug)]
pub(super) enum Stdin {
    /// The terminal or nothing special.
    None,
    /// Literal text (a heredoc, a here-string, `echo ... |`).
    Text(String),
    /// A file (`< FILE`), read only by a command that runs its content.
    File(PathBuf),
    /// A file or a pipe whose content is not known.
    Opaque,
}
