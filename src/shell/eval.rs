//! Walking the syntax tree as bash would run it: lists, `&&`/`||` and pipelines, the state each
//! command runs in, and the simple commands that come out (one simple command:
//! [`super::simple`]; compound commands: [`super::compound`]).

use std::path::{Path, PathBuf};

use super::ast::{List, Redir, Word};
use super::builtins::{own_stdio, redirections};
use super::state::{State, Stdin};
use super::vars::{self, Resolver};
use super::{ParseError, SimpleCommand, Unknown};

/// What an enclosing `bash -c`, `eval` or `xargs` passes down to the commands it runs.
#[derive(Clone, Debug, Default)]
pub(super) struct Inherit {
    /// Assignments the enclosing command passes into the environment (`FOO=1 bash -c ...`).
    pub(super) assigns: Vec<(String, String)>,
    /// Why the commands inside cannot be judged as written, when the wrapper adds what they
    /// run (`xargs`) or runs text not read here.
    pub(super) force: Option<Unknown>,
    /// The pipes an enclosing pipeline stage connects (in, out): its commands read and write
    /// them unless they redirect.
    pub(super) pipes: (Option<u32>, Option<u32>),
    /// The standard input an enclosing stage or compound command gives its commands.
    pub(super) stdin: Option<Stdin>,
}

impl Inherit {
    /// What a compound command with redirections `rs`, reading `stdin`, passes to its commands.
    pub(super) fn through(&self, rs: &[Redir], stdin: Stdin, cwd: &Path) -> Inherit {
        let (own_in, own_out) = own_stdio(rs);
        let stdin = match stdin {
            Stdin::None => self.stdin.clone().unwrap_or(Stdin::None),
            s => s,
        };
        let (_, stdin) = redirections(rs, stdin, cwd);
        Inherit {
            pipes: (
                self.pipes.0.filter(|_| !own_in),
                self.pipes.1.filter(|_| !own_out),
            ),
            stdin: Some(stdin),
            ..self.clone()
        }
    }
}

/// The evaluator: the simple commands emitted so far and what the line has done up to here.
pub(super) struct Ev<'a> {
    /// The simple commands emitted so far, in the order they run.
    pub(super) out: Vec<SimpleCommand>,
    /// Files written earlier in the line, as the command being evaluated sees them.
    pub(super) written: Vec<(PathBuf, Option<String>)>,
    /// The home directory (for `~` and a bare `cd`), when known.
    pub(super) home: Option<&'a Path>,
    /// Answers for commands whose output the line uses (`git rev-parse --show-toplevel`).
    pub(super) resolver: Resolver<'a>,
    /// Pipes made so far (ids for [`SimpleCommand::pipe_in`]).
    made_pipes: u32,
    /// The pipes of the simple command being emitted.
    pub(super) pipes: (Option<u32>, Option<u32>),
    /// Nested text about to be parsed is a POSIX shell's (`dash -c`): see `Parser::posix`.
    pub(super) posix: bool,
}

/// Evaluate a parsed command line starting in `cwd`.
pub(super) fn run(
    list: &List,
    cwd: &Path,
    home: Option<&Path>,
    resolver: Resolver<'_>,
) -> Result<Vec<SimpleCommand>, ParseError> {
    let mut ev = Ev {
        out: Vec::new(),
        written: Vec::new(),
        home,
        resolver,
        made_pipes: 0,
        pipes: (None, None),
        posix: false,
    };
    let exported = super::state::inherited_exports();
    let mut st = State {
        cwd: cwd.to_path_buf(),
        known: true,
        on_disk: cwd.is_dir(),
        vars: exported
            .iter()
            .map(|(k, v)| (k.clone(), Some(v.clone())))
            .collect(),
        exported,
        ..State::default()
    };
    ev.list(list, &mut st, &Inherit::default())?;
    Ok(ev.out)
}

impl Ev<'_> {
    /// Run a list; returns its output when it is one command (or pipeline) with literal output.
    pub(super) fn list(
        &mut self,
        list: &List,
        st: &mut State,
        inh: &Inherit,
    ) -> Result<Option<String>, ParseError> {
        let mut last = None;
        for (ao, background) in &list.items {
            if *background {
                let mut bg = st.clone();
                last = self.and_or(ao, &mut bg, inh)?;
                st.written = bg.written;
            } else {
                last = self.and_or(ao, st, inh)?;
            }
        }
        let single = list.items.len() == 1
            && list
                .items
                .iter()
                .all(|(ao, bg)| !bg && ao.pipelines.len() == 1);
        Ok(if single { last } else { None })
    }

    /// Run one `a && b || c` list item; returns its output when it is one pipeline with
    /// literal output.
    fn and_or(
        &mut self,
        ao: &super::ast::AndOr,
        st: &mut State,
        inh: &Inherit,
    ) -> Result<Option<String>, ParseError> {
        let mut last = None;
        {
            // A pipeline after an `||` runs when something before it failed, so in any of the
            // states the line had reached by then: only what all of them agree on is known.
            let mut reached = vec![st.clone()];
            for (i, p) in ao.pipelines.iter().enumerate() {
                if i > 0 && ao.ors[..i].iter().any(|or| *or) {
                    let merged = st.clone().merge(&reached);
                    *st = merged;
                }
                if p.cmds.len() == 1 {
                    last = self.command(&p.cmds[0], st, inh, Stdin::None)?;
                    reached.push(st.clone());
                    continue;
                }
                let mut piped: Option<Option<String>> = None;
                let mut pipe_in = inh.pipes.0;
                for (k, cmd) in p.cmds.iter().enumerate() {
                    let stdin = match piped.take() {
                        None => Stdin::None,
                        Some(Some(t)) => Stdin::Text(t),
                        Some(None) => Stdin::Opaque,
                    };
                    let pipe_out = if k + 1 < p.cmds.len() {
                        self.made_pipes += 1;
                        Some(self.made_pipes)
                    } else {
                        inh.pipes.1
                    };
                    let stage = Inherit {
                        pipes: (pipe_in, pipe_out),
                        stdin: if k == 0 { inh.stdin.clone() } else { None },
                        ..inh.clone()
                    };
                    pipe_in = pipe_out;
                    let mut sub = st.clone();
                    let out = self.command(cmd, &mut sub, &stage, stdin)?;
                    // Each part runs in a subshell, but the files it writes stay written.
                    st.written = sub.written;
                    piped = Some(out);
                }
                last = piped.flatten();
                reached.push(st.clone());
            }
            // After `a && b` or `a || b`, either may have been the last to run.
            if ao.pipelines.len() > 1 {
                let merged = st.clone().merge(&reached);
                *st = merged;
            }
        }
        Ok(last)
    }

    /// Run the substitutions of a word; returns their literal outputs where known.
    pub(super) fn subs_of(
        &mut self,
        w: &Word,
        st: &State,
        inh: &Inherit,
    ) -> Result<Vec<Option<String>>, ParseError> {
        let mut outs = Vec::new();
        for l in &w.subs {
            outs.push(self.list(l, &mut st.clone(), inh)?);
        }
        Ok(outs)
    }

    /// The word with its variables and substitutions replaced by their values when all are
    /// known (`"$HOME/x"`, `"$(git rev-parse --show-toplevel)"`, `"$d"` after `d=build`).
    pub(super) fn substituted(
        &mut self,
        w: &Word,
        st: &State,
        inh: &Inherit,
    ) -> Result<Word, ParseError> {
        let outs = self.subs_of(w, st, inh)?;
        let cwd = st.known.then_some(st.cwd.as_path());
        Ok(vars::resolve(w, &outs, &st.vars, cwd).unwrap_or_else(|| w.clone()))
    }

    /// Run the substitutions of redirection targets and here-documents (their output is not
    /// kept: they run for what they do).
    pub(super) fn redir_subs(
        &mut self,
        rs: &[Redir],
        st: &State,
        inh: &Inherit,
    ) -> Result<(), ParseError> {
        for r in rs {
            self.subs_of(&r.target, st, inh)?;
            if let Some(doc) = &r.heredoc {
                for l in &doc.borrow().subs {
                    self.list(l, &mut st.clone(), inh)?;
                }
            }
        }
        Ok(())
    }
}
