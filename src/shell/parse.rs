//! The recursive-descent grammar: lists, pipelines, compound commands, function definitions.

use super::ParseError;
use super::ast::{AndOr, Command, List, Pipeline, Redir, RedirOp, Simple, Word};
use super::lex::{Op, Parser, Tok};

const CLOSERS: &[&str] = &["then", "else", "elif", "fi", "do", "done", "esac", "}"];

fn unexpected(t: &Tok) -> ParseError {
    ParseError::Syntax(format!("unexpected {}", t.describe()))
}

impl Parser {
    /// A whole command line.
    pub(super) fn parse_program(&mut self) -> Result<List, ParseError> {
        if self.depth > super::MAX_DEPTH {
            return Err(ParseError::TooDeep);
        }
        let list = self.parse_compound_list()?;
        match self.next_tok()? {
            Tok::Eof => Ok(list),
            t => Err(unexpected(&t)),
        }
    }

    fn skip_newlines(&mut self) -> Result<(), ParseError> {
        while matches!(self.peek()?, Tok::Newline) {
            self.next_tok()?;
        }
        Ok(())
    }

    fn peek_is(&mut self, word: &str) -> Result<bool, ParseError> {
        Ok(matches!(self.peek()?, Tok::Word(w) if w.is_plain(word)))
    }

    fn expect(&mut self, word: &str) -> Result<(), ParseError> {
        match self.next_tok()? {
            Tok::Word(w) if w.is_plain(word) => Ok(()),
            t => Err(ParseError::Syntax(format!(
                "expected `{word}`, found {}",
                t.describe()
            ))),
        }
    }

    fn expect_op(&mut self, op: Op) -> Result<(), ParseError> {
        match self.next_tok()? {
            Tok::Op(o) if o == op => Ok(()),
            t => Err(ParseError::Syntax(format!(
                "expected {op:?}, found {}",
                t.describe()
            ))),
        }
    }

    fn starts_command(&mut self) -> Result<bool, ParseError> {
        Ok(match self.peek()? {
            Tok::Word(w) => !CLOSERS.iter().any(|k| w.is_plain(k)),
            Tok::IoNum(_) | Tok::Op(Op::LParen | Op::Redir(..)) => true,
            _ => false,
        })
    }

    /// A list of and-or lists, up to a token that cannot start a command (left unconsumed).
    pub(super) fn parse_compound_list(&mut self) -> Result<List, ParseError> {
        self.enter()?;
        let mut list = List::default();
        loop {
            self.skip_newlines()?;
            if !self.starts_command()? {
                break;
            }
            let ao = self.parse_and_or()?;
            match self.peek()? {
                Tok::Op(Op::Semi) | Tok::Newline => {
                    self.next_tok()?;
                    list.items.push((ao, false));
                }
                Tok::Op(Op::Amp) => {
                    self.next_tok()?;
                    list.items.push((ao, true));
                }
                _ => {
                    list.items.push((ao, false));
                    break;
                }
            }
        }
        self.leave();
        Ok(list)
    }

    fn parse_and_or(&mut self) -> Result<AndOr, ParseError> {
        let mut ao = AndOr::default();
        loop {
            ao.pipelines.push(self.parse_pipeline()?);
            if let Tok::Op(op @ (Op::AndIf | Op::OrIf)) = self.peek()? {
                ao.ors.push(matches!(op, Op::OrIf));
                self.next_tok()?;
                self.skip_newlines()?;
            } else {
                return Ok(ao);
            }
        }
    }

    fn parse_pipeline(&mut self) -> Result<Pipeline, ParseError> {
        let mut p = Pipeline::default();
        // `!` and the `time [-p]` keyword prefix a whole pipeline.
        loop {
            if self.peek_is("!")? {
                self.next_tok()?;
            } else if self.peek_is("time")? {
                self.next_tok()?;
                if self.peek_is("-p")? {
                    self.next_tok()?;
                }
            } else {
                break;
            }
        }
        if !self.starts_command()? {
            return Ok(p);
        }
        loop {
            p.cmds.push(self.parse_command()?);
            if matches!(self.peek()?, Tok::Op(Op::Pipe)) {
                self.next_tok()?;
                self.skip_newlines()?;
            } else {
                return Ok(p);
            }
        }
    }

    fn parse_command(&mut self) -> Result<Command, ParseError> {
        let compound = match self.peek()? {
            Tok::Op(Op::LParen) => true,
            Tok::Word(w) => ["{", "if", "while", "until", "for", "select", "case", "[["]
                .iter()
                .any(|k| w.is_plain(k)),
            _ => false,
        };
        if compound {
            return self.parse_compound();
        }
        if self.peek_is("function")? {
            self.next_tok()?;
            match self.next_tok()? {
                Tok::Word(_) => {}
                t => return Err(unexpected(&t)),
            }
            if matches!(self.peek()?, Tok::Op(Op::LParen)) {
                self.next_tok()?;
                self.expect_op(Op::RParen)?;
            }
            return self.parse_function_body();
        }
        self.parse_simple()
    }

    fn parse_function_body(&mut self) -> Result<Command, ParseError> {
        self.skip_newlines()?;
        let ok = match self.peek()? {
            Tok::Op(Op::LParen) => true,
            Tok::Word(w) => ["{", "if", "while", "until", "for", "select", "case", "[["]
                .iter()
                .any(|k| w.is_plain(k)),
            _ => false,
        };
        if !ok {
            let t = self.next_tok()?;
            return Err(ParseError::Syntax(format!(
                "a function body must be a compound command, found {}",
                t.describe()
            )));
        }
        Ok(Command::FuncDef(Box::new(self.parse_compound()?)))
    }

    fn parse_compound(&mut self) -> Result<Command, ParseError> {
        let cmd = match self.next_tok()? {
            Tok::Op(Op::LParen) => {
                // `((expr))` is arithmetic when it closes with `))`; otherwise a subshell. A
                // POSIX shell (dash) has no `((`: there it is two subshells.
                let start = self.pos;
                if !self.posix
                    && self.src.get(start) == Some(&'(')
                    && let Some(end) = self.arithmetic_end(start + 1)
                {
                    self.pos = end;
                    let raw: String = self.src[start - 1..end].iter().collect();
                    let mut w = Word::default();
                    self.arith_subs(&mut w, start + 1, end.saturating_sub(2))?;
                    w.push_str(&raw, true);
                    w.has_var = true;
                    w.opaque = true;
                    let redirs = self.parse_redirs()?;
                    return Ok(Command::Test(vec![w], redirs));
                }
                let list = self.parse_compound_list()?;
                self.expect_op(Op::RParen)?;
                Command::Subshell(list, Vec::new())
            }
            Tok::Word(w) if w.is_plain("{") => {
                let list = self.parse_compound_list()?;
                self.expect("}")?;
                Command::Group(list, Vec::new())
            }
            Tok::Word(w) if w.is_plain("if") => {
                let mut arms = Vec::new();
                let mut otherwise = None;
                loop {
                    let cond = self.parse_compound_list()?;
                    self.expect("then")?;
                    let body = self.parse_compound_list()?;
                    arms.push((cond, body));
                    if self.peek_is("elif")? {
                        self.next_tok()?;
                        continue;
                    }
                    if self.peek_is("else")? {
                        self.next_tok()?;
                        otherwise = Some(self.parse_compound_list()?);
                    }
                    self.expect("fi")?;
                    break;
                }
                Command::If {
                    arms,
                    otherwise,
                    redirs: Vec::new(),
                }
            }
            Tok::Word(w) if w.is_plain("while") || w.is_plain("until") => {
                let cond = self.parse_compound_list()?;
                let body = self.parse_do_group()?;
                Command::Loop {
                    cond,
                    body,
                    redirs: Vec::new(),
                }
            }
            Tok::Word(w) if w.is_plain("for") || w.is_plain("select") => self.parse_for()?,
            Tok::Word(w) if w.is_plain("case") => self.parse_case()?,
            Tok::Word(w) if w.is_plain("[[") => {
                let mut words = Vec::new();
                loop {
                    match self.next_tok()? {
                        Tok::Word(w) if w.is_plain("]]") => break,
                        Tok::Word(w) => words.push(w),
                        Tok::Eof => return Err(ParseError::Syntax("unterminated `[[`".into())),
                        _ => {}
                    }
                }
                Command::Test(words, Vec::new())
            }
            t => return Err(unexpected(&t)),
        };
        let more = self.parse_redirs()?;
        Ok(match cmd {
            Command::Subshell(l, _) => Command::Subshell(l, more),
            Command::Group(l, _) => Command::Group(l, more),
            Command::If {
                arms, otherwise, ..
            } => Command::If {
                arms,
                otherwise,
                redirs: more,
            },
            Command::Loop { cond, body, .. } => Command::Loop {
                cond,
                body,
                redirs: more,
            },
            Command::For {
                var, words, body, ..
            } => Command::For {
                var,
                words,
                body,
                redirs: more,
            },
            Command::Case { word, arms, .. } => Command::Case {
                word,
                arms,
                redirs: more,
            },
            Command::Test(w, _) => Command::Test(w, more),
            other => other,
        })
    }

    fn parse_do_group(&mut self) -> Result<List, ParseError> {
        self.skip_newlines()?;
        if self.peek_is("{")? {
            self.next_tok()?;
            let body = self.parse_compound_list()?;
            self.expect("}")?;
            return Ok(body);
        }
        self.expect("do")?;
        let body = self.parse_compound_list()?;
        self.expect("done")?;
        Ok(body)
    }

    fn parse_for(&mut self) -> Result<Command, ParseError> {
        let mut words = Vec::new();
        let mut var = None;
        match self.next_tok()? {
            Tok::Word(name) => {
                var = Some(name.text());
                self.skip_newlines_or_semi_before_in()?;
                if self.peek_is("in")? {
                    self.next_tok()?;
                    while let Tok::Word(_) = self.peek()? {
                        if let Tok::Word(w) = self.next_tok()? {
                            words.push(w);
                        }
                    }
                } else {
                    // `for x; do`: the positional parameters, unknown here.
                    let mut all = Word::default();
                    all.push_str("$@", true);
                    all.has_var = true;
                    all.opaque = true;
                    words.push(all);
                }
            }
            Tok::Op(Op::LParen) => {
                // for (( init; cond; step ))
                let start = self.pos;
                let end = (self.src.get(start) == Some(&'('))
                    .then(|| self.arithmetic_end(start + 1))
                    .flatten()
                    .ok_or_else(|| ParseError::Syntax("bad `for ((`".into()))?;
                if self.src[start..end].iter().any(|&c| c == '$' || c == '`') {
                    return Err(ParseError::Syntax(
                        "expansions in `for ((...))` are not followed".into(),
                    ));
                }
                self.pos = end;
            }
            t => return Err(unexpected(&t)),
        }
        if matches!(self.peek()?, Tok::Op(Op::Semi)) {
            self.next_tok()?;
        }
        let body = self.parse_do_group()?;
        Ok(Command::For {
            var,
            words,
            body,
            redirs: Vec::new(),
        })
    }

    fn skip_newlines_or_semi_before_in(&mut self) -> Result<(), ParseError> {
        self.skip_newlines()
    }

    fn parse_case(&mut self) -> Result<Command, ParseError> {
        let word = match self.next_tok()? {
            Tok::Word(w) => w,
            t => return Err(unexpected(&t)),
        };
        self.skip_newlines()?;
        self.expect("in")?;
        let mut arms = Vec::new();
        loop {
            self.skip_newlines()?;
            if self.peek_is("esac")? {
                self.next_tok()?;
                break;
            }
            if matches!(self.peek()?, Tok::Op(Op::LParen)) {
                self.next_tok()?;
            }
            let mut patterns = Vec::new();
            loop {
                match self.next_tok()? {
                    Tok::Word(w) => patterns.push(w),
                    t => return Err(unexpected(&t)),
                }
                match self.next_tok()? {
                    Tok::Op(Op::Pipe) => continue,
                    Tok::Op(Op::RParen) => break,
                    t => return Err(unexpected(&t)),
                }
            }
            let body = self.parse_compound_list()?;
            arms.push((patterns, body));
            if matches!(self.peek()?, Tok::Op(Op::CaseEnd)) {
                self.next_tok()?;
            } else if !self.peek_is("esac")? {
                let t = self.next_tok()?;
                return Err(unexpected(&t));
            }
        }
        Ok(Command::Case {
            word,
            arms,
            redirs: Vec::new(),
        })
    }

    fn parse_redirs(&mut self) -> Result<Vec<Redir>, ParseError> {
        let mut out = Vec::new();
        loop {
            match self.peek()? {
                Tok::IoNum(_) | Tok::Op(Op::Redir(..)) => out.push(self.parse_redir()?),
                _ => return Ok(out),
            }
        }
    }

    fn parse_redir(&mut self) -> Result<Redir, ParseError> {
        let mut fd = None;
        if let Tok::IoNum(n) = self.peek()? {
            fd = Some(*n);
            self.next_tok()?;
        }
        let (op, strip) = match self.next_tok()? {
            Tok::Op(Op::Redir(op, strip)) => (op, strip),
            t => return Err(unexpected(&t)),
        };
        let target = match self.next_tok()? {
            Tok::Word(w) => w,
            t => {
                return Err(ParseError::Syntax(format!(
                    "expected a redirection target, found {}",
                    t.describe()
                )));
            }
        };
        let heredoc = (op == RedirOp::HereDoc).then(|| self.add_heredoc(&target, strip));
        Ok(Redir {
            fd,
            op,
            target,
            heredoc,
        })
    }

    fn parse_simple(&mut self) -> Result<Command, ParseError> {
        let mut s = Simple {
            depth: self.depth,
            ..Simple::default()
        };
        loop {
            match self.peek()? {
                Tok::IoNum(_) | Tok::Op(Op::Redir(..)) => s.redirs.push(self.parse_redir()?),
                Tok::Word(_) => {
                    let Tok::Word(w) = self.next_tok()? else {
                        continue;
                    };
                    if s.words.is_empty() && w.assignment().is_some() {
                        s.assigns.push(w);
                        continue;
                    }
                    s.words.push(w);
                    if s.words.len() == 1
                        && s.assigns.is_empty()
                        && s.redirs.is_empty()
                        && matches!(self.peek()?, Tok::Op(Op::LParen))
                    {
                        self.next_tok()?;
                        self.expect_op(Op::RParen)?;
                        return self.parse_function_body();
                    }
                }
                _ => break,
            }
        }
        if s.words.is_empty() && s.assigns.is_empty() && s.redirs.is_empty() {
            let t = self.next_tok()?;
            return Err(unexpected(&t));
        }
        Ok(Command::Simple(s))
    }
}
