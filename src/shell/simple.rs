//! Evaluating one simple command as bash runs it: its assignments, words and redirections
//! expanded, an alias defined earlier in the line, the wrappers peeled off, the nested shell
//! text it runs (`bash -c`, a script, `source`, `eval`, embedded commands such as `find -exec`),
//! and the command itself emitted with the directory, input and effects it has.

use std::path::Path;

use super::ast::Simple;
use super::builtins::{change_dir, literal_output, own_stdio, redirections};
use super::effects;
use super::eval::{Ev, Inherit};
use super::expand::{Arg, expand_word, join_dir};
use super::sources::{self, ProcSubs};
use super::state::{State, Stdin};
use super::vars;
use super::wrappers::{Shell, basename, peel};
use super::{ParseError, Unknown};

impl Ev<'_> {
    /// Evaluate simple command `s` in state `st` (changed by what the command does to the
    /// shell), reading `piped`; emits the commands it runs and returns its literal output when
    /// known.
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
        // Wrappers stacked past the bound leave a wrapper as the command: nothing below it is
        // known, as with nesting past the bound.
        if peeled.exhausted {
            return Err(ParseError::TooDeep);
        }
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
            .or(peeled.rooted.then_some(Unknown::Eval));
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
            let source = match source {
                // A non-POSIX shell's text is judged on its words, with the scripts it names.
                Stdin::Text(t) if peeled.foreign => Stdin::Text(foreign_text(&t, &argv, &cwd)),
                s => s,
            };
            if let Stdin::Text(text) = &source {
                self.posix = name.as_deref().is_some_and(super::wrappers::is_posix_shell);
                if !peeled.foreign && self.nested(text, s.depth, nested, &inner)? {
                    return Ok(None);
                }
                self.posix = false;
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
        let as_written: Vec<String> = as_written
            .into_iter()
            .chain(super::runners::texts(&argv))
            .chain(super::consoles::texts(&argv, &stdin_from, &read))
            .chain(effects::env_texts(&argv, &assignments))
            .collect();
        let written_count = as_written.len();
        // A program not known to run its arguments whose arguments hold a judged program's
        // command line: that command is judged as one it may run.
        let runs = super::runners::fallback(&argv).map(|at| {
            let words: Vec<String> = argv[at..]
                .iter()
                .map(|a| super::quote_word(&a.text))
                .collect();
            words.join(" ")
        });
        let added_args = effects::embedded(&argv);
        let count = written_count + added_args.len();
        let texts = as_written.into_iter().chain(added_args).chain(runs);
        for (i, text) in texts.enumerate() {
            // A trap's text and an editor's commands run as written; the others get arguments
            // added when they run.
            let added = (name != "trap" && i >= written_count).then_some(Unknown::Xargs);
            let runner = (i >= count).then(|| argv[0].text.clone());
            let before = self.out.len();
            let inner = Inherit {
                assigns: assignments.clone(),
                force: match runner {
                    Some(_) => force.or(Some(Unknown::Runner)),
                    None => added.or(force),
                },
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
            if let Some(r) = runner {
                for c in &mut self.out[before..] {
                    c.runner = Some(r.clone());
                }
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

/// What a non-POSIX shell (fish, csh, pwsh, ...) runs, as text to judge on its words: its
/// arguments, and the script files among them.
fn foreign_text(text: &str, argv: &[Arg], cwd: &Path) -> String {
    let mut out = text.to_owned();
    for a in argv.iter().skip(1).filter(|a| !a.text.starts_with('-')) {
        if let Some(t) = effects::read_script(&super::expand::join_dir(cwd, &a.text)) {
            out.push('\n');
            out.push_str(&t);
        }
    }
    out
}
