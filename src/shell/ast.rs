//! The syntax tree the parser builds and the evaluator walks.

use std::cell::RefCell;
use std::rc::Rc;

/// One character of a word, and whether quoting (or an expansion) protects it from brace
/// expansion, tilde expansion and globbing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct WChar {
    pub(crate) c: char,
    pub(crate) quoted: bool,
}

/// A word after quote removal; expansions are kept as their literal text (marked quoted).
#[derive(Clone, Debug, Default)]
pub(super) struct Word {
    pub(crate) chars: Vec<WChar>,
    /// A `$name`, `${...}` or `$((...))` appears in the word.
    pub(crate) has_var: bool,
    /// A `$(...)`, backtick or process substitution appears in the word.
    pub(crate) has_cmdsub: bool,
    /// Some quoting character appeared (a quoted heredoc delimiter disables expansion).
    pub(crate) any_quote: bool,
    /// The command lists of the substitutions in this word; they run when the word expands.
    pub(crate) subs: Vec<List>,
    /// For each of `subs`, where its text sits in `chars` and whether it was double-quoted;
    /// `None` when it cannot be replaced by its output (inside `${...}`).
    pub(crate) spans: Vec<Option<(usize, usize, bool)>>,
    /// Plain `$NAME` / `${NAME}` references: where their text sits in `chars`, the name, and
    /// whether they were double-quoted.
    pub(crate) vars: Vec<(usize, usize, String, bool)>,
    /// An expansion whose value cannot be computed here (`$1`, `${x:-y}`, `$((...))`).
    pub(crate) opaque: bool,
    /// Some expansion stands outside double quotes (its value may split into several words).
    pub(crate) bare: bool,
}

impl Word {
    pub(crate) fn push(&mut self, c: char, quoted: bool) {
        self.chars.push(WChar { c, quoted });
    }

    pub(crate) fn push_str(&mut self, s: &str, quoted: bool) {
        self.chars.extend(s.chars().map(|c| WChar { c, quoted }));
    }

    /// The text after quote removal.
    pub(crate) fn text(&self) -> String {
        self.chars.iter().map(|w| w.c).collect()
    }

    /// True when the word is exactly `s`, unquoted and without expansions (a reserved word).
    pub(crate) fn is_plain(&self, s: &str) -> bool {
        !self.any_quote
            && !self.has_var
            && !self.has_cmdsub
            && self.chars.iter().all(|w| !w.quoted)
            && self.chars.iter().map(|w| w.c).eq(s.chars())
    }

    /// Split a leading `NAME=value` (or `NAME+=value`) assignment.
    pub(crate) fn assignment(&self) -> Option<(String, Word)> {
        let eq = self.chars.iter().position(|w| w.c == '=' && !w.quoted)?;
        let name_end = if eq > 0 && self.chars[eq - 1].c == '+' {
            eq - 1
        } else {
            eq
        };
        let name = &self.chars[..name_end];
        let first = name.first()?;
        if first.quoted || !(first.c.is_ascii_alphabetic() || first.c == '_') {
            return None;
        }
        if !name
            .iter()
            .all(|w| !w.quoted && (w.c.is_ascii_alphanumeric() || w.c == '_'))
        {
            return None;
        }
        let shift = eq + 1;
        let value = Word {
            chars: self.chars[shift..].to_vec(),
            has_var: self.has_var,
            has_cmdsub: self.has_cmdsub,
            any_quote: self.any_quote,
            subs: self.subs.clone(),
            spans: self
                .spans
                .iter()
                .map(|s| s.and_then(|(a, b, q)| (a >= shift).then(|| (a - shift, b - shift, q))))
                .collect(),
            vars: self
                .vars
                .iter()
                .filter(|v| v.0 >= shift)
                .map(|(a, b, n, q)| (a - shift, b - shift, n.clone(), *q))
                .collect(),
            opaque: self.opaque || self.vars.iter().any(|v| v.0 < shift),
            bare: self.bare,
        };
        Some((name.iter().map(|w| w.c).collect(), value))
    }
}

/// A heredoc body, filled in when the parser reaches the end of the line.
#[derive(Clone, Debug, Default)]
pub(super) struct HereDoc {
    pub(crate) body: String,
    /// Substitutions in an unquoted heredoc body; they run.
    pub(crate) subs: Vec<List>,
    /// An unquoted body with an expansion in it: what the command reads is only known when
    /// it runs.
    pub(crate) expands: bool,
}

/// Redirection operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RedirOp {
    /// `<`
    In,
    /// `>`
    Out,
    /// `>>`
    Append,
    /// `>|`
    Clobber,
    /// `<<` and `<<-`
    HereDoc,
    /// `<<<`
    HereString,
    /// `<&`
    DupIn,
    /// `>&`
    DupOut,
    /// `<>`
    ReadWrite,
    /// `&>`
    All,
    /// `&>>`
    AllAppend,
}

/// One redirection.
#[derive(Clone, Debug)]
pub(super) struct Redir {
    pub(crate) fd: Option<u32>,
    pub(crate) op: RedirOp,
    pub(crate) target: Word,
    pub(crate) heredoc: Option<Rc<RefCell<HereDoc>>>,
}

/// A simple command before expansion.
#[derive(Clone, Debug, Default)]
pub(super) struct Simple {
    pub(crate) assigns: Vec<Word>,
    pub(crate) words: Vec<Word>,
    pub(crate) redirs: Vec<Redir>,
    /// Parser nesting depth where the command appeared (a nested shell starts one deeper).
    pub(crate) depth: u32,
}

/// A command: simple or compound.
#[derive(Clone, Debug)]
pub(super) enum Command {
    Simple(Simple),
    Subshell(List, Vec<Redir>),
    Group(List, Vec<Redir>),
    If {
        arms: Vec<(List, List)>,
        otherwise: Option<List>,
        redirs: Vec<Redir>,
    },
    Loop {
        cond: List,
        body: List,
        redirs: Vec<Redir>,
    },
    For {
        /// The loop variable (`None` for `for ((...))`).
        var: Option<String>,
        words: Vec<Word>,
        body: List,
        redirs: Vec<Redir>,
    },
    Case {
        word: Word,
        arms: Vec<(Vec<Word>, List)>,
        redirs: Vec<Redir>,
    },
    /// `[[ ... ]]` or `(( ... ))`: data, though substitutions inside run.
    Test(Vec<Word>, Vec<Redir>),
    FuncDef(Box<Command>),
}

/// Commands joined by `|` or `|&`.
#[derive(Clone, Debug, Default)]
pub(super) struct Pipeline {
    pub(crate) cmds: Vec<Command>,
}

/// Pipelines joined by `&&` and `||`.
#[derive(Clone, Debug, Default)]
pub(super) struct AndOr {
    pub(crate) pipelines: Vec<Pipeline>,
    /// The operator after each pipeline but the last: `true` for `||`, `false` for `&&`.
    pub(crate) ors: Vec<bool>,
}

/// And-or lists separated by `;`, `&` or newlines; the flag is true for `&` (background).
#[derive(Clone, Debug, Default)]
pub(super) struct List {
    pub(crate) items: Vec<(AndOr, bool)>,
}
