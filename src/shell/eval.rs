//! Walking the syntax tree as bash would run it: the directory each command runs in, nested
//! shells, `eval`, and the simple commands that come out (compound commands: [`super::compound`]).

use std::path::{Path, PathBuf};

use super::ast::{List, Redir, Simple, Word};
use super::builtins::{change_dir, literal_output, own_stdio, redirections};
use super::effects;
use super::expand::{Arg, expand_word, join_dir};
use super::sources::{self, ProcSubs};
use super::state::{State, Stdin};
use super::vars::{self, Resolver};
use super::wrappers::{Shell, basename, peel};
use super::{ParseError, SimpleCommand, Unknown};

/// What an enclosing `bash -c`, `eval` or `xargs` passes down to the commands it runs.
#[derive(Clone, Debug, Default)]
pub(super) struct Inherit {
    pub(super) assigns: Vec<(String, String)>,
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

pub(super) struct Ev<'a> {
    pub(super) out: Vec<SimpleCommand>,
    /// Files written earlier in the line, as the command being evaluated sees them.
    pub(super) written: Vec<(PathBuf, Option<String>)>,
    pub(super) home: Option<&'a Path>,
    resolver: Resolver<'a>,
    /// Pipes made so far (ids for [`SimpleCommand::pipe_in`]).
    made_pipes: u32,
    /// The pipes of the simple command being emitted.
    pub(super) pipes: (Option<u32>, Option<u32>),
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
    };
    let mut st = State {
        cwd: cwd.to_path_buf(),
        known: true,
        on_disk: cwd.is_dir(),
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

    pub(super) fn simple(
        &mut self,
        s: &Simple,
        st: &mut State,
        inh: &Inherit,
        piped: Stdin,
    ) -> Result<Option<String>, ParseError> {
        self.written.clone_from(&st.written);
        // Within a stage or compound command, what it reads and where it writes come from it.
        let piped = match piped {
            Stdin::None => inh.stdin.clone().unwrap_or(Stdin::None),
            s => s,
        };
        let (own_in, own_out) = own_stdio(&s.redirs);
        let mine = (
            inh.pipes.0.filter(|_| !own_in),
            inh.pipes.1.filter(|_| !own_out),
        );
        let mut values = Vec::new();
        for w in &s.assigns {
            let outs = self.subs_of(w, st, inh)?;
            let Some((name, value)) = w.assignment() else {
                continue;
            };
            let cwd = st.known.then_some(st.cwd.as_path());
            let resolved = vars::resolve(&value, &outs, &st.vars, cwd).map(|w| w.text());
            values.push((name, value.text(), resolved));
        }
        let mut words = Vec::new();
        let mut procs: ProcSubs = Vec::new();
        for w in &s.words {
            if sources::is_procsub(w) {
                // `<(...)` names a pipe carrying the output, not the output itself.
                let out = self.subs_of(w, st, inh)?.pop().flatten();
                procs.push((w.text(), out));
                words.push(w.clone());
            } else {
                words.push(self.substituted(w, st, inh)?);
            }
        }
        self.redir_subs(&s.redirs, st, inh)?;

        let mut args = Vec::new();
        for w in &words {
            args.extend(expand_word(w, &st.cwd, st.known, self.home, st.dotglob));
        }
        if args.is_empty() && s.words.is_empty() {
            // `NAME=value` alone sets a shell variable for the rest of the line.
            for (name, _, resolved) in values.drain(..) {
                effects::set_var(st, &name, resolved);
            }
            if s.redirs.is_empty() {
                return Ok(None);
            }
            // `> FILE` alone truncates it, as `: > FILE` does.
            args.push(Arg::plain(":"));
        }
        let mut assignments = st.exported.clone();
        assignments.extend(inh.assigns.iter().cloned());
        for (name, text, resolved) in values {
            assignments.push((name, resolved.unwrap_or(text)));
        }
        let (redirects, stdin) = redirections(&s.redirs, piped, &st.cwd);
        let stdin_path = match &stdin {
            Stdin::File(p) => Some(p.clone()),
            _ => None,
        };
        let stdin = sources::resolve_stdin(stdin, st);
        let stdin_from = sources::input(&stdin);
        if let Some(value) = args.first().and_then(|a| sources::alias(st, &a.text)) {
            // A shell alias defined earlier in the line (with `expand_aliases`, as agents'
            // shells may have it): its text runs in this shell.
            let inner = Inherit {
                assigns: assignments.clone(),
                force: inh.force,
                pipes: mine,
                stdin: Some(stdin.clone()),
            };
            let text = value.map(|v| {
                let rest: Vec<String> = args[1..]
                    .iter()
                    .map(|a| super::quote_word(&a.text))
                    .collect();
                format!("{v} {}", rest.join(" "))
            });
            let cwd = st.cwd.clone();
            let known = st.known;
            // An alias is not expanded again inside its own text (`alias ls='ls -la'`).
            let name = args[0].text.clone();
            let own: Vec<_> = st
                .aliases
                .iter()
                .filter(|(n, _)| *n == name)
                .cloned()
                .collect();
            st.aliases.retain(|(n, _)| *n != name);
            let read = match &text {
                Some(text) => self.nested_in(text, s.depth, st, &inner)?,
                None => false,
            };
            st.aliases.splice(0..0, own);
            if read {
                return Ok(None);
            }
            self.written.clone_from(&st.written);
            let argv = vec![Arg::plain("eval"), args[0].clone()];
            self.pipes = mine;

            self.emit(
                argv,
                assignments,
                cwd,
                known,
                redirects,
                Some(Unknown::Eval),
            );
            return Ok(None);
        }

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
            .or((peeled.exhausted || peeled.rooted).then_some(Unknown::Eval));
        let mut argv = peeled.argv;

        let input = match &stdin {
            Stdin::Text(t) => Some(t.clone()),
            _ => None,
        };
        let text = |t: Option<String>| t.map_or(Stdin::Opaque, Stdin::Text);
        let with_env = |src: Stdin, argv: &[Arg]| match src {
            Stdin::Text(t) => text(effects::with_bash_env(argv, &assignments, &cwd, &t)),
            s => s,
        };
        let name = argv.first().map(|a| basename(&a.text).to_owned());
        let after = !self.out.is_empty();
        // `xargs -I{} sh -c '{}'`, `find -exec sh -c '{}'`: the text is the input item.
        let replaced = |t: &str| {
            force == Some(Unknown::Xargs)
                && (t.contains("{}") || peeled.replace.as_deref().is_some_and(|r| t.contains(r)))
        };
        let nested_stdin = match (&peeled.shell, &stdin) {
            (Some(Shell::Command(a)), _) if replaced(&a.text) => Some(Stdin::Opaque),
            (Some(Shell::Command(a)), _) => Some(text(effects::with_bash_env(
                &argv,
                &assignments,
                &cwd,
                &a.text,
            ))),
            (Some(Shell::Script(f)), _) => {
                sources::script(f, &stdin, st, &cwd, &procs, after).map(|src| with_env(src, &argv))
            }
            (Some(Shell::Stdin), Stdin::File(f)) => Some(text(effects::read_script(f))),
            (Some(Shell::Stdin), s @ (Stdin::Text(_) | Stdin::Opaque)) => Some(s.clone()),
            (None, _) if matches!(name.as_deref(), Some("." | "source")) && argv.len() > 1 => {
                sources::script(&argv[1], &stdin, st, &cwd, &procs, after)
            }
            (None, _) => match sources::run_by_path(&argv[0].text, st, &cwd) {
                Some(sources::Run::Shell(src)) => Some(src),
                Some(sources::Run::Interpreter(prog)) => {
                    argv.insert(0, Arg::plain(&prog));
                    None
                }
                None => None,
            },
            _ => None,
        };
        // A sourced script runs in this shell: when it may change directory (its text unread,
        // or holding `cd`, `pushd` or `popd`), what follows runs where it is only known then.
        if peeled.shell.is_none()
            && matches!(name.as_deref(), Some("." | "source"))
            && argv.len() > 1
            && !matches!(&nested_stdin, Some(Stdin::Text(t)) if !t
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| matches!(w, "cd" | "pushd" | "popd")))
        {
            st.known = false;
        }
        if let Some(source) = nested_stdin {
            // A shell reading its script from its input leaves none to its commands.
            let reads = matches!(peeled.shell, Some(Shell::Stdin));
            let inner = Inherit {
                assigns: assignments.clone(),
                force,
                pipes: (mine.0.filter(|_| !reads), mine.1),
                stdin: (!reads).then(|| stdin.clone()),
            };
            // A child shell sees only what was exported: a variable set earlier in the line may
            // or may not be, so there its value is unknown (the command's own prefix
            // assignments still pass in, through `inner`).
            let nested = State {
                cwd: cwd.clone(),
                known,
                stack: Vec::new(),
                vars: st.vars.keys().map(|k| (k.clone(), None)).collect(),
                ..st.clone()
            };
            let mut unknown = force.unwrap_or(Unknown::Eval);
            if let Stdin::Text(text) = &source {
                if self.nested(text, s.depth, nested, &inner)? {
                    return Ok(None);
                }
                unknown = Unknown::Unreadable;
            }
            self.written.clone_from(&st.written);
            let mut argv = argv;
            if let (Stdin::Text(text), Unknown::Unreadable) = (&source, unknown) {
                argv.push(Arg::plain(text));
            }
            self.pipes = mine;

            self.emit(argv, assignments, cwd, known, redirects, Some(unknown));
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
                pipes: mine,
                stdin: Some(stdin.clone()),
            };
            // `eval` runs in this shell: what its text changes (`cd`, variables, the directory
            // stack) holds for the rest of the line.
            let mut nested = State {
                cwd: cwd.clone(),
                known,
                ..st.clone()
            };
            if self.nested_in(&text, s.depth, &mut nested, &inner)? {
                *st = nested;
            } else {
                self.pipes = mine;

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
        // Commands a program runs from its arguments (`find -exec`, `git rebase -x`, `watch`).
        let read = |p: &Path| sources::in_reach(p, st);
        let as_written = super::editors::embedded(&argv, &stdin_from, &cwd, &read);
        let written_count = as_written.len();
        for (i, text) in as_written
            .into_iter()
            .chain(effects::embedded(&argv))
            .enumerate()
        {
            // A trap's text and an editor's commands run as written; the others get arguments
            // added when they run.
            let added = (name != "trap" && i >= written_count).then_some(Unknown::Xargs);
            let inner = Inherit {
                assigns: assignments.clone(),
                force: added.or(force),
                pipes: mine,
                stdin: Some(stdin.clone()),
            };
            let nested = State {
                cwd: cwd.clone(),
                known,
                ..st.clone()
            };
            if !self.nested(&text, s.depth, nested, &inner)? {
                let v = vec![Arg::plain("sh"), Arg::plain("-c"), Arg::plain(&text)];
                self.pipes = mine;

                self.emit(
                    v,
                    assignments.clone(),
                    cwd.clone(),
                    known,
                    Vec::new(),
                    Some(Unknown::Unreadable),
                );
            }
        }
        // (`.`/`source` of a file that does not exist runs nothing.)
        let unknown = force
            .or(argv.iter().any(|a| a.cut).then_some(Unknown::Glob))
            .or(argv
                .iter()
                .any(|a| a.cmdsub)
                .then_some(Unknown::CommandSubstitution))
            .or(argv.iter().any(|a| a.var).then_some(Unknown::Variable))
            .or(effects::through_made(&argv, &cwd, &st.made).then_some(Unknown::Made));
        let output = literal_output(&argv, unknown.is_none(), &s.redirs).or_else(|| {
            let texts: Vec<String> = argv.iter().map(|a| a.text.clone()).collect();
            (unknown.is_none() && known)
                .then(|| (self.resolver)(&texts, &cwd))
                .flatten()
        });
        // A directory change, a variable or an option applies after the command itself.
        if !peeled.external {
            change_dir(&argv, st, self.home);
            effects::builtin(&argv, st);
        }
        effects::note_made(&argv, &cwd, st);
        self.written.clone_from(&st.written);
        sources::note_written(&argv, &redirects, output.as_deref(), &stdin, &cwd, st);
        self.pipes = mine;
        self.emit(argv, assignments, cwd, known, redirects, unknown);
        if let Some(last) = self.out.last_mut() {
            last.input = input;
            last.stdin = stdin_from;
            last.stdin_path = stdin_path;
        }
        Ok(output)
    }
}
