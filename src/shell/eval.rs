//! Walking the syntax tree as bash would run it: the directory each command runs in, nested
//! shells, `eval`, and the simple commands that come out.

use std::path::{Path, PathBuf};

use super::ast::{Command, List, Redir, Simple, WChar, Word};
use super::builtins::{change_dir, literal_output, redirections};
use super::expand::{Arg, expand_word, join_dir};
use super::lex::Parser;
use super::wrappers::{Shell, peel};
use super::{ParseError, Redirect, SimpleCommand, Unknown};

/// The shell state that matters here: the working directory and the `pushd` stack.
#[derive(Clone, Debug)]
pub(super) struct State {
    pub(super) cwd: PathBuf,
    pub(super) known: bool,
    pub(super) stack: Vec<(PathBuf, bool)>,
}

impl State {
    fn same(&self, o: &State) -> bool {
        self.known == o.known && (!self.known || self.cwd == o.cwd)
    }

    /// The state after one of several paths ran: known only if every path agrees.
    fn merge(mut self, others: &[State]) -> State {
        if others.iter().any(|o| !o.same(&self)) {
            self.known = false;
        }
        self
    }
}

/// What an enclosing `bash -c`, `eval` or `xargs` passes down to the commands it runs.
#[derive(Clone, Debug, Default)]
struct Inherit {
    assigns: Vec<(String, String)>,
    force: Option<Unknown>,
}

struct Ev<'a> {
    out: Vec<SimpleCommand>,
    home: Option<&'a Path>,
}

/// Evaluate a parsed command line starting in `cwd`.
pub(super) fn run(
    list: &List,
    cwd: &Path,
    home: Option<&Path>,
) -> Result<Vec<SimpleCommand>, ParseError> {
    let mut ev = Ev {
        out: Vec::new(),
        home,
    };
    let mut st = State {
        cwd: cwd.to_path_buf(),
        known: true,
        stack: Vec::new(),
    };
    ev.list(list, &mut st, &Inherit::default())?;
    Ok(ev.out)
}

/// Where a command's standard input comes from, as far as a nested shell cares.
pub(super) enum Stdin {
    /// The terminal or nothing special.
    None,
    /// Literal text (a heredoc, a here-string, `echo ... |`).
    Text(String),
    /// A file or a pipe whose content is not known.
    Opaque,
}

impl Ev<'_> {
    /// Run a list; returns its output when it is one command (or pipeline) with literal output.
    fn list(
        &mut self,
        list: &List,
        st: &mut State,
        inh: &Inherit,
    ) -> Result<Option<String>, ParseError> {
        let mut last = None;
        for (ao, background) in &list.items {
            let mut bg_state;
            let st: &mut State = if *background {
                bg_state = st.clone();
                &mut bg_state
            } else {
                st
            };
            for p in &ao.pipelines {
                if p.cmds.len() == 1 {
                    last = self.command(&p.cmds[0], st, inh, Stdin::None)?;
                    continue;
                }
                let mut piped: Option<Option<String>> = None;
                for cmd in &p.cmds {
                    let stdin = match piped.take() {
                        None => Stdin::None,
                        Some(Some(t)) => Stdin::Text(t),
                        Some(None) => Stdin::Opaque,
                    };
                    let out = self.command(cmd, &mut st.clone(), inh, stdin)?;
                    piped = Some(out);
                }
                last = piped.flatten();
            }
        }
        let single = list.items.len() == 1
            && list
                .items
                .iter()
                .all(|(ao, bg)| !bg && ao.pipelines.len() == 1);
        Ok(if single { last } else { None })
    }

    /// Run the substitutions of a word; returns their literal outputs where known.
    fn subs_of(
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

    /// The word with its double-quoted substitutions replaced by their literal output
    /// (`"$(cat <<'EOF' ... EOF)"`), when every substitution's output is known.
    fn substituted(&mut self, w: &Word, st: &State, inh: &Inherit) -> Result<Word, ParseError> {
        let outs = self.subs_of(w, st, inh)?;
        if !w.has_cmdsub
            || w.has_var
            || outs.iter().any(Option::is_none)
            || w.spans.len() != outs.len()
        {
            return Ok(w.clone());
        }
        let mut chars = Vec::new();
        let mut at = 0;
        for (span, out) in w.spans.iter().zip(&outs) {
            let (Some((from, to, true)), Some(out)) = (span, out) else {
                return Ok(w.clone());
            };
            if *from < at || *to > w.chars.len() {
                return Ok(w.clone());
            }
            chars.extend_from_slice(&w.chars[at..*from]);
            chars.extend(
                out.trim_end_matches('\n')
                    .chars()
                    .map(|c| WChar { c, quoted: true }),
            );
            at = *to;
        }
        chars.extend_from_slice(&w.chars[at..]);
        Ok(Word {
            chars,
            any_quote: w.any_quote,
            ..Word::default()
        })
    }

    fn redir_subs(&mut self, rs: &[Redir], st: &State, inh: &Inherit) -> Result<(), ParseError> {
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

    /// Run one command; returns its output when that is literal text (for `echo ... | sh`).
    fn command(
        &mut self,
        cmd: &Command,
        st: &mut State,
        inh: &Inherit,
        stdin: Stdin,
    ) -> Result<Option<String>, ParseError> {
        match cmd {
            Command::Simple(s) => return self.simple(s, st, inh, stdin),
            Command::Subshell(l, rs) => {
                self.redir_subs(rs, st, inh)?;
                self.list(l, &mut st.clone(), inh)?;
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
                words,
                body,
                redirs,
            } => {
                self.redir_subs(redirs, st, inh)?;
                for w in words {
                    self.subs_of(w, st, inh)?;
                }
                let mut b = st.clone();
                self.list(body, &mut b, inh)?;
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

    fn simple(
        &mut self,
        s: &Simple,
        st: &mut State,
        inh: &Inherit,
        piped: Stdin,
    ) -> Result<Option<String>, ParseError> {
        for w in &s.assigns {
            self.subs_of(w, st, inh)?;
        }
        let mut words = Vec::new();
        for w in &s.words {
            words.push(self.substituted(w, st, inh)?);
        }
        self.redir_subs(&s.redirs, st, inh)?;

        let mut args = Vec::new();
        for w in &words {
            args.extend(expand_word(w, &st.cwd, st.known, self.home));
        }
        let mut assignments = inh.assigns.clone();
        for a in &s.assigns {
            if let Some((name, value)) = a.assignment() {
                assignments.push((name, value.text()));
            }
        }
        let (redirects, stdin) = redirections(&s.redirs, piped);

        let peeled = peel(args);
        assignments.extend(peeled.assignments.iter().cloned());
        let (mut cwd, mut known) = (st.cwd.clone(), st.known);
        if let Some(dir) = &peeled.chdir {
            if dir.var || dir.cmdsub {
                known = false;
            } else {
                cwd = join_dir(&cwd, &dir.text);
            }
        }
        let force = inh
            .force
            .or(peeled.xargs.then_some(Unknown::Xargs))
            .or(peeled.exhausted.then_some(Unknown::Eval));
        let argv = peeled.argv;

        let nested_stdin = match (&peeled.shell, stdin) {
            (Some(Shell::Command(a)), _) => Some(Stdin::Text(a.text.clone())),
            (Some(Shell::Stdin), s @ (Stdin::Text(_) | Stdin::Opaque)) => Some(s),
            _ => None,
        };
        if let Some(source) = nested_stdin {
            let inner = Inherit {
                assigns: assignments.clone(),
                force,
            };
            let nested = State {
                cwd: cwd.clone(),
                known,
                stack: Vec::new(),
            };
            if let Stdin::Text(text) = source
                && self.nested(&text, s.depth, nested, &inner)?
            {
                return Ok(None);
            }
            self.emit(
                argv,
                assignments,
                cwd,
                known,
                redirects,
                Some(force.unwrap_or(Unknown::Eval)),
            );
            return Ok(None);
        }

        let name = argv.first().map(|a| a.text.as_str()).unwrap_or("");
        if name == "eval" {
            let text = argv[1..]
                .iter()
                .map(|a| a.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let inner = Inherit {
                assigns: assignments.clone(),
                force: Some(force.unwrap_or(Unknown::Eval)),
            };
            let nested = State {
                cwd: cwd.clone(),
                known,
                stack: st.stack.clone(),
            };
            if !self.nested(&text, s.depth, nested, &inner)? {
                self.emit(
                    argv,
                    assignments,
                    cwd,
                    known,
                    redirects,
                    Some(Unknown::Eval),
                );
            }
            return Ok(None);
        }
        let mut unknown = force;
        if (name == "source" || name == ".") && argv.len() > 1 {
            unknown = unknown.or(Some(Unknown::Eval));
        }
        let unknown = unknown
            .or(argv
                .iter()
                .any(|a| a.cmdsub)
                .then_some(Unknown::CommandSubstitution))
            .or(argv.iter().any(|a| a.var).then_some(Unknown::Variable));
        let output = literal_output(&argv, unknown.is_none(), &s.redirs);
        // A directory change applies after the command itself.
        if !peeled.external {
            change_dir(&argv, st, self.home);
        }
        self.emit(argv, assignments, cwd, known, redirects, unknown);
        Ok(output)
    }

    /// Parse and run nested shell text; false when it is not valid syntax.
    fn nested(
        &mut self,
        text: &str,
        depth: u32,
        mut st: State,
        inh: &Inherit,
    ) -> Result<bool, ParseError> {
        match Parser::new(text, depth + 1).parse_program() {
            Ok(list) => {
                self.list(&list, &mut st, inh)?;
                Ok(true)
            }
            Err(ParseError::Syntax(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn emit(
        &mut self,
        argv: Vec<Arg>,
        assignments: Vec<(String, String)>,
        cwd: PathBuf,
        cwd_known: bool,
        redirects: Vec<Redirect>,
        unknown: Option<Unknown>,
    ) {
        if argv.is_empty() {
            return;
        }
        self.out.push(SimpleCommand {
            argv: argv.into_iter().map(|a| a.text).collect(),
            assignments,
            cwd,
            cwd_known,
            redirects,
            unknown,
        });
    }
}
