//! Walking the syntax tree as bash would run it: the directory each command runs in, nested
//! shells, `eval`, and the simple commands that come out.

use std::path::{Path, PathBuf};

use super::ast::{Command, List, Redir, RedirOp, Simple, Word};
use super::expand::{Arg, expand_word, join_dir};
use super::lex::Parser;
use super::wrappers::{Shell, basename, peel};
use super::{ParseError, Redirect, SimpleCommand, Unknown};

/// The shell state that matters here: the working directory and the `pushd` stack.
#[derive(Clone, Debug)]
struct State {
    cwd: PathBuf,
    known: bool,
    stack: Vec<(PathBuf, bool)>,
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
enum Stdin {
    /// The terminal or nothing special.
    None,
    /// Literal text (a heredoc, a here-string, `echo ... |`).
    Text(String),
    /// A file or a pipe whose content is not known.
    Opaque,
}

impl Ev<'_> {
    fn list(&mut self, list: &List, st: &mut State, inh: &Inherit) -> Result<(), ParseError> {
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
                    self.command(&p.cmds[0], st, inh, Stdin::None)?;
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
            }
        }
        Ok(())
    }

    fn subs_of(&mut self, w: &Word, st: &State, inh: &Inherit) -> Result<(), ParseError> {
        for l in &w.subs {
            self.list(l, &mut st.clone(), inh)?;
        }
        Ok(())
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
        for w in s.assigns.iter().chain(&s.words) {
            self.subs_of(w, st, inh)?;
        }
        self.redir_subs(&s.redirs, st, inh)?;

        let mut args = Vec::new();
        for w in &s.words {
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

/// The output redirections, and where standard input comes from.
fn redirections(rs: &[Redir], piped: Stdin) -> (Vec<Redirect>, Stdin) {
    let mut out = Vec::new();
    let mut stdin = piped;
    for r in rs {
        let target = r.target.text();
        let (append, both) = match r.op {
            RedirOp::Out | RedirOp::Clobber => (false, false),
            RedirOp::Append => (true, false),
            RedirOp::All => (false, true),
            RedirOp::AllAppend => (true, true),
            RedirOp::DupOut => {
                let dup = target == "-"
                    || target
                        .trim_end_matches('-')
                        .chars()
                        .all(|c| c.is_ascii_digit());
                if dup {
                    continue;
                }
                (false, r.fd.is_none())
            }
            RedirOp::In | RedirOp::ReadWrite | RedirOp::DupIn => {
                if r.fd.is_none_or(|f| f == 0) && r.op != RedirOp::DupIn {
                    stdin = Stdin::Opaque;
                }
                continue;
            }
            RedirOp::HereDoc | RedirOp::HereString => {
                if r.fd.is_none_or(|f| f == 0) {
                    stdin = match &r.heredoc {
                        Some(doc) => Stdin::Text(doc.borrow().body.clone()),
                        None => Stdin::Text(format!("{target}\n")),
                    };
                }
                continue;
            }
        };
        out.push(Redirect {
            fd: r.fd,
            append,
            target,
            both,
        });
    }
    (out, stdin)
}

/// What `echo`, `printf` or `cat <<EOF` print, when that is literal.
fn literal_output(argv: &[Arg], known: bool, redirs: &[Redir]) -> Option<String> {
    if !known {
        return None;
    }
    let name = basename(&argv.first()?.text);
    let args: Vec<&str> = argv[1..].iter().map(|a| a.text.as_str()).collect();
    match name {
        "echo" => {
            let n = args
                .iter()
                .take_while(|a| matches!(**a, "-n" | "-e" | "-E" | "-ne" | "-en"))
                .count();
            Some(args[n..].join(" ").replace("\\n", "\n"))
        }
        "printf" => {
            let mut text = args.first()?.replace("\\n", "\n");
            for a in &args[1..] {
                match text.find("%s") {
                    Some(i) => text.replace_range(i..i + 2, a),
                    None => {
                        text.push(' ');
                        text.push_str(a);
                    }
                }
            }
            Some(text)
        }
        "cat" if args.is_empty() => {
            let (_, stdin) = redirections(redirs, Stdin::None);
            match stdin {
                Stdin::Text(t) => Some(t),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Follow `cd`, `pushd` and `popd`.
fn change_dir(argv: &[Arg], st: &mut State, home: Option<&Path>) {
    let Some(name) = argv.first().map(|a| a.text.as_str()) else {
        return;
    };
    let operands: Vec<&Arg> = match name {
        "cd" | "pushd" | "popd" => {
            let mut v: Vec<&Arg> = argv[1..].iter().collect();
            while v.first().is_some_and(|a| {
                a.text.len() > 1
                    && a.text.starts_with('-')
                    && !a.text[1..].starts_with(|c: char| c.is_ascii_digit())
            }) {
                let dashdash = v[0].text == "--";
                v.remove(0);
                if dashdash {
                    break;
                }
            }
            v
        }
        _ => return,
    };
    let go = |st: &mut State, dir: Option<&Arg>| match dir {
        None => match home {
            Some(h) => {
                st.cwd = h.to_path_buf();
                st.known = true;
            }
            None => st.known = false,
        },
        Some(a) if a.var || a.cmdsub || a.text == "-" => st.known = false,
        Some(a) if a.text.is_empty() => {}
        Some(a) => {
            if Path::new(&a.text).is_absolute() {
                st.known = true;
            }
            st.cwd = join_dir(&st.cwd, &a.text);
        }
    };
    let rotation = operands
        .first()
        .is_some_and(|a| a.text.starts_with(['+', '-']) && a.text.len() > 1);
    match name {
        "cd" if operands.len() <= 1 => go(st, operands.first().copied()),
        "pushd" if rotation => st.known = false,
        "pushd" => match operands.first() {
            Some(a) => {
                st.stack.push((st.cwd.clone(), st.known));
                go(st, Some(a));
            }
            None => {
                if let Some((d, k)) = st.stack.pop() {
                    st.stack.push((st.cwd.clone(), st.known));
                    st.cwd = d;
                    st.known = k;
                }
            }
        },
        "popd" if rotation => st.known = false,
        "popd" => {
            if let Some((d, k)) = st.stack.pop() {
                st.cwd = d;
                st.known = k;
            }
        }
        _ => {}
    }
}
