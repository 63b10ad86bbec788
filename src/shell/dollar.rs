//! The `$` forms inside words as the tokenizer reads them: `$'...'`, `$name`, `${...}`,
//! `$(...)` (and process substitution), `$((...))`, and the raw text kept for each.

use super::ParseError;
use super::ast::{WChar, Word};
use super::lex::{Op, Parser, Tok, syntax};

impl Parser {
    /// A `$` expansion; `pos` is at the `$`.
    pub(super) fn dollar(&mut self, w: &mut Word, in_dquote: bool) -> Result<(), ParseError> {
        let start = self.pos;
        match self.at(self.pos + 1) {
            Some('\'') if !in_dquote => {
                self.pos += 2;
                w.any_quote = true;
                self.ansi_c(w)
            }
            Some('"') if !in_dquote => {
                self.pos += 2;
                self.dquote(w)
            }
            Some('(')
                if self.at(self.pos + 2) == Some('(')
                    && let Some(end) = self.arithmetic_end(self.pos + 3) =>
            {
                self.pos = end;
                w.has_var = true;
                w.opaque = true;
                w.bare |= !in_dquote;
                self.arith_subs(w, start + 3, end.saturating_sub(2))?;
                self.push_raw(w, start);
                Ok(())
            }
            Some('(') => {
                self.pos += 2;
                self.command_sub(w, "$(")
            }
            Some('{') => {
                self.pos += 2;
                self.enter()?;
                let mut scratch = Word::default();
                let mut depth = 0usize;
                loop {
                    match self.cur() {
                        None => return Err(syntax("unterminated ${")),
                        Some('}') if depth == 0 => {
                            self.pos += 1;
                            break;
                        }
                        Some('}') => {
                            depth -= 1;
                            self.pos += 1;
                        }
                        Some('{') => {
                            depth += 1;
                            self.pos += 1;
                        }
                        Some('\\') => self.pos += 2,
                        Some('\'') if !in_dquote => {
                            self.pos += 1;
                            while self.cur().is_some_and(|c| c != '\'') {
                                self.pos += 1;
                            }
                            self.pos += 1;
                        }
                        Some('"') => {
                            self.pos += 1;
                            self.dquote(&mut scratch)?;
                        }
                        Some('$') => self.dollar(&mut scratch, in_dquote)?,
                        Some('`') => self.backtick(&mut scratch)?,
                        Some(_) => self.pos += 1,
                    }
                }
                self.leave();
                self.pos = self.pos.min(self.src.len());
                let inner: String = self.src[start + 2..self.pos.saturating_sub(1).max(start + 2)]
                    .iter()
                    .collect();
                let plain = !inner.is_empty()
                    && inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && !inner.starts_with(|c: char| c.is_ascii_digit());
                let from = w.chars.len();
                if plain {
                    let to = from + (self.pos - start);
                    w.vars.push((from, to, inner, in_dquote));
                } else {
                    w.opaque = true;
                }
                w.bare |= !in_dquote;
                w.has_var = true;
                w.has_cmdsub |= scratch.has_cmdsub;
                w.spans.extend(scratch.subs.iter().map(|_| None));
                w.subs.append(&mut scratch.subs);
                self.push_raw(w, start);
                Ok(())
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                self.pos += 1;
                while self
                    .cur()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    self.pos += 1;
                }
                w.has_var = true;
                w.bare |= !in_dquote;
                let name: String = self.src[start + 1..self.pos].iter().collect();
                let from = w.chars.len();
                w.vars
                    .push((from, from + (self.pos - start), name, in_dquote));
                self.push_raw(w, start);
                Ok(())
            }
            Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => {
                self.pos += 2;
                w.has_var = true;
                w.opaque = true;
                w.bare |= !in_dquote;
                self.push_raw(w, start);
                Ok(())
            }
            _ => {
                w.push('$', in_dquote);
                self.pos += 1;
                Ok(())
            }
        }
    }

    pub(super) fn push_raw(&self, w: &mut Word, start: usize) {
        let end = self.pos.min(self.src.len());
        w.chars.extend(
            self.src[start..end]
                .iter()
                .map(|&c| WChar { c, quoted: true }),
        );
    }

    /// `$(...)`, `<(...)` or `>(...)`; `pos` is just after the opening parenthesis.
    pub(super) fn command_sub(&mut self, w: &mut Word, opener: &str) -> Result<(), ParseError> {
        let start = self.pos;
        let saved = self.peeked.take();
        let quoted = std::mem::replace(&mut self.in_dquote, false);
        let list = self.parse_compound_list()?;
        self.in_dquote = quoted;
        match self.next_tok()? {
            Tok::Op(Op::RParen) => {}
            t => {
                return Err(ParseError::Syntax(format!(
                    "expected `)` to close `{opener}`, found {}",
                    t.describe()
                )));
            }
        }
        self.peeked = saved;
        w.has_cmdsub = true;
        w.bare |= !quoted;
        let from = w.chars.len();
        w.push_str(opener, true);
        self.push_raw(w, start);
        w.spans.push(Some((from, w.chars.len(), quoted)));
        w.subs.push(list);
        Ok(())
    }
}
