//! The rest of the tokenizer: backticks, `$'...'` escapes, heredoc bodies, and where
//! arithmetic ends and which substitutions run inside it.

use super::ParseError;
use super::ast::{HereDoc, List, Word};
use super::lex::{Parser, syntax};

impl Parser {
    /// A backtick substitution; `pos` is at the opening backtick.
    pub(super) fn backtick(&mut self, w: &mut Word) -> Result<(), ParseError> {
        let start = self.pos;
        self.pos += 1;
        let mut inner = String::new();
        loop {
            match self.cur() {
                None => return Err(syntax("unterminated backtick")),
                Some('`') => break,
                Some('\\') => {
                    match self.at(self.pos + 1) {
                        Some(n @ ('`' | '$' | '\\')) => inner.push(n),
                        Some(n) => {
                            inner.push('\\');
                            inner.push(n);
                        }
                        None => inner.push('\\'),
                    }
                    self.pos += 2;
                }
                Some(c) => {
                    inner.push(c);
                    self.pos += 1;
                }
            }
        }
        self.pos += 1;
        let list = Parser::new(&inner, self.depth + 1)
            .for_posix(self.posix)
            .parse_program()?;
        w.has_cmdsub = true;
        w.bare |= !self.in_dquote;
        let from = w.chars.len();
        self.push_raw(w, start);
        w.spans.push(Some((from, w.chars.len(), self.in_dquote)));
        w.subs.push(list);
        Ok(())
    }

    /// The inside of `$'...'`; `pos` is just after the opening quote.
    pub(super) fn ansi_c(&mut self, w: &mut Word) -> Result<(), ParseError> {
        loop {
            let Some(c) = self.cur() else {
                return Err(syntax("unterminated $'...'"));
            };
            self.pos += 1;
            match c {
                '\'' => return Ok(()),
                '\\' => {
                    let Some(e) = self.cur() else { continue };
                    self.pos += 1;
                    let out = match e {
                        'n' => Some('\n'),
                        't' => Some('\t'),
                        'r' => Some('\r'),
                        'a' => Some('\x07'),
                        'b' => Some('\x08'),
                        'e' | 'E' => Some('\x1b'),
                        'f' => Some('\x0c'),
                        'v' => Some('\x0b'),
                        'c' => self.cur().map(|x| {
                            self.pos += 1;
                            char::from((x as u32 & 0x1f) as u8)
                        }),
                        'x' => self.radix_escape(16, 2),
                        'u' => self.radix_escape(16, 4),
                        'U' => self.radix_escape(16, 8),
                        '0'..='7' => {
                            self.pos -= 1;
                            self.radix_escape(8, 3)
                        }
                        other => Some(other),
                    };
                    if let Some(o) = out {
                        w.push(o, true);
                    }
                }
                c => w.push(c, true),
            }
        }
    }

    fn radix_escape(&mut self, radix: u32, max: usize) -> Option<char> {
        let mut v: u32 = 0;
        let mut n = 0;
        while n < max {
            let Some(d) = self.cur().and_then(|c| c.to_digit(radix)) else {
                break;
            };
            v = v.saturating_mul(radix).saturating_add(d);
            self.pos += 1;
            n += 1;
        }
        if n == 0 { None } else { char::from_u32(v) }
    }

    /// Read the bodies of the heredocs registered on the line just ended.
    pub(super) fn read_heredocs(&mut self) -> Result<(), ParseError> {
        for p in std::mem::take(&mut self.pending) {
            let mut body = String::new();
            while self.pos < self.src.len() {
                let end = self.src[self.pos..]
                    .iter()
                    .position(|&c| c == '\n')
                    .map_or(self.src.len(), |i| self.pos + i);
                let mut line: &[char] = &self.src[self.pos..end];
                if p.strip_tabs {
                    while line.first() == Some(&'\t') {
                        line = &line[1..];
                    }
                }
                self.pos = (end + 1).min(self.src.len());
                if line.iter().copied().eq(p.delim.chars()) {
                    break;
                }
                body.extend(line.iter());
                body.push('\n');
            }
            let subs = if p.quoted {
                Vec::new()
            } else {
                Parser::new(&body, self.depth + 1).heredoc_subs()?
            };
            let expands = !p.quoted && body.contains(['$', '`']);
            *p.doc.borrow_mut() = HereDoc {
                body,
                subs,
                expands,
            };
        }
        Ok(())
    }

    /// The command substitutions of an unquoted heredoc body.
    pub(super) fn heredoc_subs(&mut self) -> Result<Vec<List>, ParseError> {
        // Arithmetic inside arithmetic (`$(( $(( … )) ))`) comes back here, one level down
        // each time: bounded like every other nesting.
        if self.depth > super::MAX_DEPTH {
            return Err(ParseError::TooDeep);
        }
        let mut w = Word::default();
        while let Some(c) = self.cur() {
            match c {
                '\\' => self.pos += 2,
                '$' => self.dollar(&mut w, true)?,
                '`' => self.backtick(&mut w)?,
                _ => self.pos += 1,
            }
        }
        Ok(w.subs)
    }

    /// Where `$((...))` / `((...))` ends, given the index just after the two opening
    /// parentheses; `None` if they do not close as `))`. Linear overall: the matching table is
    /// built once.
    pub(super) fn arithmetic_end(&mut self, i: usize) -> Option<usize> {
        let src = &self.src;
        let table = self.parens.get_or_insert_with(|| {
            let mut t = vec![u32::MAX; src.len()];
            let mut stack = Vec::new();
            for (k, &c) in src.iter().enumerate() {
                match c {
                    '(' => stack.push(k),
                    ')' => {
                        if let Some(o) = stack.pop() {
                            t[o] = k as u32;
                        }
                    }
                    _ => {}
                }
            }
            t
        });
        let inner = *table.get(i.checked_sub(1)?)?;
        let outer = *table.get(i.checked_sub(2)?)?;
        (inner != u32::MAX && inner as usize + 1 == outer as usize).then_some(outer as usize + 1)
    }

    /// The substitutions inside `src[from..to]` (arithmetic, an array's elements): they run
    /// when the word expands, though the text itself stays data.
    pub(super) fn arith_subs(
        &self,
        w: &mut Word,
        from: usize,
        to: usize,
    ) -> Result<(), ParseError> {
        let inner: String = self.src[from.min(to)..to.min(self.src.len())]
            .iter()
            .collect();
        if !inner.contains(['$', '`']) {
            return Ok(());
        }
        let subs = Parser::new(&inner, self.depth + 1).heredoc_subs()?;
        w.has_cmdsub |= !subs.is_empty();
        w.spans.extend(subs.iter().map(|_| None));
        w.subs.extend(subs);
        Ok(())
    }
}
