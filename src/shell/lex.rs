//! The tokenizer: words (with quote removal and substitutions), operators and heredoc bodies.

use std::cell::RefCell;
use std::rc::Rc;

use super::ast::{HereDoc, Word};
use super::{MAX_DEPTH, ParseError};

/// Operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op {
    AndIf,
    OrIf,
    Semi,
    /// `;;`, `;&` and `;;&`
    CaseEnd,
    Amp,
    Pipe,
    LParen,
    RParen,
    /// A redirection operator.
    Redir(super::ast::RedirOp, bool),
}

/// Tokens.
#[derive(Clone, Debug)]
pub(super) enum Tok {
    Word(Word),
    IoNum(u32),
    Op(Op),
    Newline,
    Eof,
}

impl Tok {
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Word(w) => format!("word `{}`", w.text()),
            Tok::IoNum(n) => format!("`{n}`"),
            Tok::Op(op) => format!("operator {op:?}"),
            Tok::Newline => "newline".into(),
            Tok::Eof => "end of input".into(),
        }
    }
}

pub(super) struct Pending {
    pub(super) doc: Rc<RefCell<HereDoc>>,
    pub(super) delim: String,
    pub(super) strip_tabs: bool,
    pub(super) quoted: bool,
}

/// Lexer and parser state over one piece of shell text.
pub(super) struct Parser {
    pub(super) src: Vec<char>,
    pub(super) pos: usize,
    pub(super) depth: u32,
    pub(super) peeked: Option<Tok>,
    pub(super) pending: Vec<Pending>,
    /// For each `(`, the index of its matching `)` by plain counting (built on first use).
    pub(super) parens: Option<Vec<u32>>,
    /// Inside a double-quoted string (of the current substitution level).
    pub(super) in_dquote: bool,
    /// The text is for a POSIX shell (sh, dash, ash, posh): `((` opens two subshells there,
    /// never arithmetic.
    pub(super) posix: bool,
}

fn is_meta(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>'
    )
}

pub(super) fn syntax(msg: &str) -> ParseError {
    ParseError::Syntax(msg.to_string())
}

impl Parser {
    pub(crate) fn new(text: &str, depth: u32) -> Self {
        Parser {
            src: text.chars().collect(),
            pos: 0,
            depth,
            peeked: None,
            pending: Vec::new(),
            parens: None,
            in_dquote: false,
            posix: false,
        }
    }

    /// The same parser for a POSIX shell's text (see [`Parser::posix`]).
    pub(crate) fn for_posix(mut self, posix: bool) -> Self {
        self.posix = posix;
        self
    }

    /// Enter one nesting level.
    pub(super) fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::TooDeep);
        }
        Ok(())
    }

    pub(super) fn leave(&mut self) {
        self.depth -= 1;
    }

    pub(super) fn at(&self, i: usize) -> Option<char> {
        self.src.get(i).copied()
    }

    pub(super) fn cur(&self) -> Option<char> {
        self.at(self.pos)
    }

    pub(super) fn peek(&mut self) -> Result<&Tok, ParseError> {
        if self.peeked.is_none() {
            let t = self.lex()?;
            self.peeked = Some(t);
        }
        Ok(self.peeked.as_ref().unwrap_or(&Tok::Eof))
    }

    pub(super) fn next_tok(&mut self) -> Result<Tok, ParseError> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.lex(),
        }
    }

    /// Register a heredoc whose body starts after the next newline.
    pub(super) fn add_heredoc(&mut self, delim: &Word, strip_tabs: bool) -> Rc<RefCell<HereDoc>> {
        let doc = Rc::new(RefCell::new(HereDoc::default()));
        self.pending.push(Pending {
            doc: doc.clone(),
            delim: delim.text(),
            strip_tabs,
            quoted: delim.any_quote,
        });
        doc
    }

    fn lex(&mut self) -> Result<Tok, ParseError> {
        loop {
            match self.cur() {
                None => {
                    self.read_heredocs()?;
                    return Ok(Tok::Eof);
                }
                Some(' ' | '\t' | '\r') => self.pos += 1,
                Some('\\') if self.at(self.pos + 1) == Some('\n') => self.pos += 2,
                Some('#') => {
                    while let Some(c) = self.cur() {
                        if c == '\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                Some('\n') => {
                    self.pos += 1;
                    self.read_heredocs()?;
                    return Ok(Tok::Newline);
                }
                Some(c @ ('<' | '>')) if self.at(self.pos + 1) == Some('(') => {
                    let mut w = Word::default();
                    self.pos += 2;
                    self.command_sub(&mut w, &format!("{c}("))?;
                    return self.scan_word(w);
                }
                Some(c) if is_meta(c) => return Ok(Tok::Op(self.operator(c))),
                Some(_) => return self.scan_word(Word::default()),
            }
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        let n = s.chars().count();
        if self.src.len() >= self.pos + n
            && self.src[self.pos..self.pos + n]
                .iter()
                .copied()
                .eq(s.chars())
        {
            self.pos += n;
            true
        } else {
            false
        }
    }

    fn operator(&mut self, c: char) -> Op {
        use super::ast::RedirOp as R;
        let table: &[(&str, Op)] = match c {
            '&' => &[
                ("&&", Op::AndIf),
                ("&>>", Op::Redir(R::AllAppend, false)),
                ("&>", Op::Redir(R::All, false)),
                ("&", Op::Amp),
            ],
            '|' => &[("||", Op::OrIf), ("|&", Op::Pipe), ("|", Op::Pipe)],
            ';' => &[
                (";;&", Op::CaseEnd),
                (";;", Op::CaseEnd),
                (";&", Op::CaseEnd),
                (";", Op::Semi),
            ],
            '(' => &[("(", Op::LParen)],
            ')' => &[(")", Op::RParen)],
            '<' => &[
                ("<<<", Op::Redir(R::HereString, false)),
                ("<<-", Op::Redir(R::HereDoc, true)),
                ("<<", Op::Redir(R::HereDoc, false)),
                ("<&", Op::Redir(R::DupIn, false)),
                ("<>", Op::Redir(R::ReadWrite, false)),
                ("<", Op::Redir(R::In, false)),
            ],
            _ => &[
                (">>", Op::Redir(R::Append, false)),
                (">|", Op::Redir(R::Clobber, false)),
                (">&", Op::Redir(R::DupOut, false)),
                (">", Op::Redir(R::Out, false)),
            ],
        };
        for (s, op) in table {
            if self.eat(s) {
                return *op;
            }
        }
        // Unreachable for the characters `is_meta` accepts; consume it anyway.
        self.pos += 1;
        Op::Semi
    }

    fn scan_word(&mut self, mut w: Word) -> Result<Tok, ParseError> {
        while let Some(c) = self.cur() {
            match c {
                '\\' => {
                    w.any_quote = true;
                    match self.at(self.pos + 1) {
                        Some('\n') => self.pos += 2,
                        Some(n) => {
                            w.push(n, true);
                            self.pos += 2;
                        }
                        None => {
                            w.push('\\', true);
                            self.pos += 1;
                        }
                    }
                }
                '\'' => {
                    w.any_quote = true;
                    self.pos += 1;
                    loop {
                        match self.cur() {
                            None => return Err(syntax("unterminated single quote")),
                            Some('\'') => break,
                            Some(c) => w.push(c, true),
                        }
                        self.pos += 1;
                    }
                    self.pos += 1;
                }
                '"' => {
                    self.pos += 1;
                    self.dquote(&mut w)?;
                }
                '$' => self.dollar(&mut w, false)?,
                '`' => self.backtick(&mut w)?,
                '(' if w.assignment().is_some_and(|(_, v)| v.chars.is_empty()) => {
                    let start = self.pos;
                    self.skip_balanced_parens()?;
                    self.arith_subs(&mut w, start, self.pos)?;
                    w.opaque = true;
                    let raw: String = self.src[start..self.pos].iter().collect();
                    w.push_str(&raw, true);
                }
                // `<(...)` / `>(...)` inside a word is a process substitution there too
                // (`BASH_ENV=<(...)`, `a<(...)`).
                c @ ('<' | '>') if self.at(self.pos + 1) == Some('(') => {
                    self.pos += 2;
                    self.command_sub(&mut w, &format!("{c}("))?;
                }
                c if is_meta(c) => break,
                c => {
                    w.push(c, false);
                    self.pos += 1;
                }
            }
        }
        if !w.chars.is_empty()
            && !w.any_quote
            && !w.has_var
            && !w.has_cmdsub
            && w.chars.iter().all(|x| x.c.is_ascii_digit())
            && matches!(self.cur(), Some('<' | '>'))
        {
            let n: u32 = w.text().parse().unwrap_or(u32::MAX);
            return Ok(Tok::IoNum(n));
        }
        Ok(Tok::Word(w))
    }

    /// `(a b c)` of an array assignment, kept as data.
    fn skip_balanced_parens(&mut self) -> Result<(), ParseError> {
        let mut depth = 0usize;
        while let Some(c) = self.cur() {
            self.pos += 1;
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                '\\' => self.pos += 1,
                '\'' => {
                    while self.cur().is_some_and(|c| c != '\'') {
                        self.pos += 1;
                    }
                    self.pos += 1;
                }
                '"' => {
                    let mut scratch = Word::default();
                    self.dquote(&mut scratch)?;
                }
                _ => {}
            }
        }
        Err(syntax("unterminated array assignment"))
    }

    /// The inside of a double-quoted string; `pos` is just after the opening quote.
    pub(super) fn dquote(&mut self, w: &mut Word) -> Result<(), ParseError> {
        let outer = std::mem::replace(&mut self.in_dquote, true);
        let r = self.dquote_inner(w);
        self.in_dquote = outer;
        r
    }

    fn dquote_inner(&mut self, w: &mut Word) -> Result<(), ParseError> {
        w.any_quote = true;
        loop {
            match self.cur() {
                None => return Err(syntax("unterminated double quote")),
                Some('"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => match self.at(self.pos + 1) {
                    Some('\n') => self.pos += 2,
                    Some(n @ ('$' | '`' | '"' | '\\')) => {
                        w.push(n, true);
                        self.pos += 2;
                    }
                    _ => {
                        w.push('\\', true);
                        self.pos += 1;
                    }
                },
                Some('$') => self.dollar(w, true)?,
                Some('`') => self.backtick(w)?,
                Some(c) => {
                    w.push(c, true);
                    self.pos += 1;
                }
            }
        }
    }
}
