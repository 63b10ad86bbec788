//! Editors and tools that run shell commands given on their command line: the vim family (read
//! by [`super::ex`]: `-c '!CMD'`, script files, standard input), `less +'!CMD'`, `sqlite3 DB '.shell CMD'`
//! (`.system`), and `emacs --batch --eval` with `(shell-command "CMD")`, `(delete-file "F")`,
//! `(delete-directory "D" t)`, `(rename-file "A" "B")`. The literal commands are read as shell
//! text ([`embedded`]); code in them that runs or deletes by other means is named by
//! [`opaque_code`] for the guard to judge by what is in reach.

use std::path::Path;

use super::Input;
use super::ex::{self, Reader};
use super::expand::Arg;
use super::wrappers::basename;

/// A quoted elisp string at the start of `s` (after blanks), unescaped.
fn elisp_string(s: &str) -> Option<(String, &str)> {
    let s = s.trim_start();
    let mut chars = s.strip_prefix('"')?.char_indices();
    let mut out = String::new();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => out.extend(chars.next().map(|(_, c)| c)),
            '"' => return Some((out, &s[i + 2..])),
            c => out.push(c),
        }
    }
    None
}

/// Elisp calls read as shell text: each `(NAME "ARG" ...)` with literal strings.
const ELISP_CALLS: &[&str] = &[
    "shell-command",
    "shell-command-to-string",
    "call-process-shell-command",
    "process-lines-shell",
    "delete-file",
    "delete-directory",
    "rename-file",
];

/// Elisp that runs programs or deletes, beyond the calls of [`ELISP_CALLS`] with literal
/// strings.
const ELISP_RISKY: &[&str] = &[
    "shell",
    "process",
    "delete",
    "rename",
    "write-region",
    "copy-file",
    "make-symbolic-link",
    "vc-",
    "magit",
    "eval",
    "funcall",
    "apply",
    "load",
    "compile",
    "async",
];

/// The shell text of an elisp expression's literal calls, and whether every risky word in it
/// belongs to such a call.
fn elisp_shell(expr: &str) -> (Vec<String>, bool) {
    let mut out = Vec::new();
    let mut rest_text = expr.to_owned();
    for (at, _) in expr.match_indices('(') {
        let rest = &expr[at + 1..];
        let name_end = rest
            .find(|c: char| c.is_whitespace() || c == ')')
            .unwrap_or(rest.len());
        let name = &rest[..name_end];
        if !ELISP_CALLS.contains(&name) {
            continue;
        }
        let Some((first, after)) = elisp_string(&rest[name_end..]) else {
            continue;
        };
        let q = super::quote_word;
        let text = match name {
            "delete-file" => format!("rm -f {}", q(&first)),
            "delete-directory" if after.trim_start().starts_with(['t', '\'']) => {
                format!("rm -rf {}", q(&first))
            }
            "delete-directory" => format!("rmdir {}", q(&first)),
            "rename-file" => match elisp_string(after) {
                Some((to, _)) => format!("mv -f {} {}", q(&first), q(&to)),
                None => continue,
            },
            _ => first,
        };
        // The call is read: its name no longer counts as risky.
        rest_text.replace_range(at + 1..at + 1 + name_end, &" ".repeat(name_end));
        out.push(text);
    }
    let read = !ELISP_RISKY.iter().any(|w| rest_text.contains(w));
    (out, read)
}

/// emacs's `--eval EXPR` / `-eval EXPR` / `--eval=EXPR` expressions.
fn emacs_evals(args: &[String]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let t = a.as_str();
        if t == "--eval" || t == "-eval" {
            out.extend(it.next().map(String::as_str));
        } else if let Some(v) = t.strip_prefix("--eval=") {
            out.push(v);
        }
    }
    out
}

/// sqlite3's dot-commands that run shell text: `.shell CMD`, `.system CMD`, given as SQL
/// arguments or with `-cmd`.
fn sqlite_shell(text: &str) -> Vec<String> {
    text.lines()
        .flat_map(|l| l.split(';'))
        .filter_map(|l| {
            let l = l.trim_start();
            l.strip_prefix(".shell ")
                .or_else(|| l.strip_prefix(".system "))
                .map(str::to_owned)
        })
        .collect()
}

/// Shell text the program in `argv` runs from its own arguments, as written (an editor's
/// also from the script files it reads and its standard input, through `read`).
pub(super) fn embedded(argv: &[Arg], stdin: &Input, cwd: &Path, read: Reader<'_>) -> Vec<String> {
    let Some(first) = argv.first() else {
        return Vec::new();
    };
    let args: Vec<String> = argv[1..].iter().map(|a| a.text.clone()).collect();
    let texts: Vec<String> = argv.iter().map(|a| a.text.clone()).collect();
    if let Some(ex) = ex::judge(&texts, stdin, cwd, read) {
        return ex.shell;
    }
    match basename(&first.text) {
        "less" | "more" => args
            .iter()
            .filter_map(|a| a.strip_prefix('+'))
            .filter_map(ex::shell_of)
            .collect(),
        "sqlite3" | "sqlite" => args
            .iter()
            .filter(|a| !a.starts_with('-'))
            .skip(1)
            .flat_map(|a| sqlite_shell(a))
            .chain(
                args.windows(2)
                    .filter(|w| w[0] == "-cmd")
                    .flat_map(|w| sqlite_shell(&w[1])),
            )
            .collect(),
        "emacs" | "emacsclient" => emacs_evals(&args)
            .into_iter()
            .flat_map(|e| elisp_shell(e).0)
            .collect(),
        _ => Vec::new(),
    }
}

/// Why an editor given code (on its line, in the script files it reads, on its standard
/// input) may run programs or delete files in ways not read as shell text: `None` when all of
/// it was read (or there is none).
pub(crate) fn opaque_code(
    argv: &[String],
    stdin: &Input,
    cwd: &Path,
    read: Reader<'_>,
) -> Option<String> {
    if let Some(ex) = ex::judge(argv, stdin, cwd, read) {
        return ex.opaque;
    }
    let name = basename(argv.first()?);
    let args = &argv[1..];
    match name {
        "emacs" | "emacsclient" => {
            let unread = emacs_evals(args).into_iter().any(|e| !elisp_shell(e).1);
            let script = args
                .iter()
                .any(|a| a == "--script" || a == "-script" || a.starts_with("--script="));
            (unread || script).then(|| format!("`{name}` runs Lisp code that may"))
        }
        _ => super::consoles::opaque(argv, stdin, read),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: &str) -> Vec<String> {
        let argv: Vec<Arg> = crate::shell::parse(line, std::path::Path::new("/nonexistent"))
            .unwrap()
            .pop()
            .unwrap()
            .argv
            .iter()
            .map(|a| Arg::plain(a))
            .collect();
        embedded(&argv, &Input::Inherited, Path::new("/nonexistent"), &|_| {
            None
        })
    }

    #[test]
    fn shell_text_on_editor_lines_is_found() {
        let cases: &[(&str, &[&str])] = &[
            ("vim -es -c '!rm new.txt' -c q", &["rm new.txt"]),
            ("ex -sc '!rm new.txt' -c q", &["rm new.txt"]),
            ("vim +'silent !git reset --hard' +q", &["git reset --hard"]),
            ("vim -c 'r !rm x' f", &["rm x"]),
            ("vim -c '%!sort' f", &["sort"]),
            ("nvim --headless --cmd ':!rm x'", &["rm x"]),
            ("less +'!rm new.txt' f", &["rm new.txt"]),
            ("sqlite3 db.sqlite '.shell rm new.txt'", &["rm new.txt"]),
            ("sqlite3 -cmd '.system rm x' db", &["rm x"]),
            (
                "emacs --batch --eval '(delete-file \"new.txt\")'",
                &["rm -f new.txt"],
            ),
            (
                "emacs -batch -eval '(delete-directory \"src\" t)'",
                &["rm -rf src"],
            ),
            (
                "emacs --batch --eval '(shell-command \"git clean -fd\")'",
                &["git clean -fd"],
            ),
            ("vim -c wq f", &[]),
            ("vim -es -c '%s/a/b/g' -c wq f", &[]),
            ("sqlite3 db 'select 1'", &[]),
            ("less +G f", &[]),
        ];
        for (line, expected) in cases {
            assert_eq!(text(line), *expected, "{line}");
        }
    }

    fn oc(argv: &[String]) -> Option<String> {
        opaque_code(argv, &Input::Inherited, Path::new("/nonexistent"), &|_| {
            None
        })
    }

    #[test]
    fn code_that_is_not_read_is_named() {
        let w = |l: &str| l.split(' ').map(str::to_owned).collect::<Vec<_>>();
        assert!(oc(&["vim".into(), "-c".into(), "call system('x')".into()]).is_some());
        assert!(oc(&["vim".into(), "-c".into(), "set ft=python".into()]).is_none());
        assert!(
            oc(&[
                "emacs".into(),
                "--batch".into(),
                "--eval".into(),
                "(funcall f)".into()
            ])
            .is_some()
        );
        assert!(oc(&["emacs".into(), "--script".into(), "x.el".into()]).is_some());
        assert!(
            oc(&[
                "emacs".into(),
                "--batch".into(),
                "--eval".into(),
                "(delete-file \"x\")".into()
            ])
            .is_none()
        );
        assert!(
            oc(&[
                "emacs".into(),
                "--batch".into(),
                "--eval".into(),
                "(message \"hi\")".into()
            ])
            .is_none()
        );
        assert!(oc(&w("vim -c wq f")).is_none());
        assert!(oc(&w("vim f")).is_none());
    }
}
