//! Evaluating compound commands as bash runs them: subshells and groups, `if`, loops, `for`
//! over literal words (followed value by value), `case`, `[[ ]]` and function bodies, with the
//! shell state merged where paths through them disagree.

use super::ParseError;
use super::ast::{Command, Redir};
use super::eval::{Ev, Inherit};
use super::expand::expand_word;
use super::state::{State, Stdin};

/// Most values a `for` loop is followed through one by one.
const MAX_LOOP_VALUES: usize = 32;

impl Ev<'_> {
    /// Run one command; returns its output when that is literal text (for `echo ... | sh`).
    pub(super) fn command(
        &mut self,
        cmd: &Command,
        st: &mut State,
        inh: &Inherit,
        stdin: Stdin,
    ) -> Result<Option<String>, ParseError> {
        let rs: &[Redir] = match cmd {
            Command::Simple(s) => return self.simple(s, st, inh, stdin),
            Command::Subshell(_, rs) | Command::Group(_, rs) | Command::Test(_, rs) => rs,
            Command::If { redirs, .. }
            | Command::Loop { redirs, .. }
            | Command::For { redirs, .. }
            | Command::Case { redirs, .. } => redirs,
            Command::FuncDef(_) => &[],
        };
        let through = inh.through(rs, stdin, &st.cwd);
        let inh = &through;
        match cmd {
            Command::Simple(_) => {}
            Command::Subshell(l, rs) => {
                self.redir_subs(rs, st, inh)?;
                let mut sub = st.clone();
                self.list(l, &mut sub, inh)?;
                st.written = sub.written;
            }
            Command::Group(l, rs) => {
                self.redir_subs(rs, st, inh)?;
                self.list(l, st, inh)?;
            }
            Command::If {
                arms,
                otherwise,
                redirs,
            } => {
                self.redir_subs(redirs, st, inh)?;
                let mut ends = Vec::new();
                for (cond, body) in arms {
                    self.list(cond, st, inh)?;
                    let mut b = st.clone();
                    self.list(body, &mut b, inh)?;
                    ends.push(b);
                }
                if let Some(o) = otherwise {
                    self.list(o, st, inh)?;
                }
                *st = st.clone().merge(&ends);
            }
            Command::Loop { cond, body, redirs } => {
                self.redir_subs(redirs, st, inh)?;
                self.list(cond, st, inh)?;
                let mut b = st.clone();
                self.list(body, &mut b, inh)?;
                *st = st.clone().merge(&[b]);
            }
            Command::For {
                var,
                words,
                body,
                redirs,
            } => {
                self.redir_subs(redirs, st, inh)?;
                let mut values: Option<Vec<String>> = Some(Vec::new());
                for w in words {
                    let w = self.substituted(w, st, inh)?;
                    let args = expand_word(&w, &st.cwd, st.known, self.home, st.dotglob);
                    if args.iter().any(|a| a.var || a.cmdsub || a.cut) {
                        values = None;
                    } else if let Some(v) = &mut values {
                        v.extend(args.into_iter().map(|a| a.text));
                    }
                }
                let values = values.filter(|v| v.len() <= MAX_LOOP_VALUES);
                let mut b = st.clone();
                match (var, values) {
                    (Some(name), Some(values)) => {
                        for value in values {
                            b.vars.insert(name.clone(), Some(value));
                            self.list(body, &mut b, inh)?;
                        }
                    }
                    (name, _) => {
                        if let Some(name) = name {
                            b.vars.insert(name.clone(), None);
                        }
                        self.list(body, &mut b, inh)?;
                    }
                }
                *st = st.clone().merge(&[b]);
            }
            Command::Case { word, arms, redirs } => {
                self.redir_subs(redirs, st, inh)?;
                self.subs_of(word, st, inh)?;
                let mut ends = Vec::new();
                for (pats, body) in arms {
                    for p in pats {
                        self.subs_of(p, st, inh)?;
                    }
                    let mut b = st.clone();
                    self.list(body, &mut b, inh)?;
                    ends.push(b);
                }
                *st = st.clone().merge(&ends);
            }
            Command::Test(words, redirs) => {
                self.redir_subs(redirs, st, inh)?;
                for w in words {
                    self.subs_of(w, st, inh)?;
                }
            }
            Command::FuncDef(body) => {
                self.command(body, &mut st.clone(), inh, Stdin::None)?;
            }
        }
        Ok(None)
    }
}
