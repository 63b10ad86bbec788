//! Nested shell text run in the evaluator's current state, and the simple commands it emits.

use std::path::PathBuf;

use super::eval::{Ev, Inherit};
use super::expand::Arg;
use super::lex::Parser;
use super::state::State;
use super::{Input, ParseError, Redirect, SimpleCommand, Unknown};

impl Ev<'_> {
    /// Parse and run nested shell text; false when it is not valid syntax.
    pub(super) fn nested(
        &mut self,
        text: &str,
        depth: u32,
        mut st: State,
        inh: &Inherit,
    ) -> Result<bool, ParseError> {
        self.nested_in(text, depth, &mut st, inh)
    }

    /// Commands in `text`, run in the shell whose state is `st` (as `eval` does: a `cd` or an
    /// assignment there holds for what follows).
    pub(super) fn nested_in(
        &mut self,
        text: &str,
        depth: u32,
        st: &mut State,
        inh: &Inherit,
    ) -> Result<bool, ParseError> {
        let posix = std::mem::take(&mut self.posix);
        match Parser::new(text, depth + 1)
            .for_posix(posix)
            .parse_program()
        {
            Ok(list) => {
                self.list(&list, st, inh)?;
                Ok(true)
            }
            Err(ParseError::Syntax(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    pub(super) fn emit(
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
        let dynamic = argv.iter().map(|a| a.bare && (a.var || a.cmdsub)).collect();
        self.out.push(SimpleCommand {
            dynamic,
            input: None,
            stdin: Input::Inherited,
            written: self.written.clone(),
            pipe_in: self.pipes.0,
            pipe_out: self.pipes.1,
            stdin_path: None,
            runner: None,
            argv: argv.into_iter().map(|a| a.text).collect(),
            assignments,
            cwd,
            cwd_known,
            redirects,
            unknown,
        });
    }
}
