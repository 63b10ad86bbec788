//! What the evaluator needs to know about a few commands: redirections and standard input,
//! the literal output of `echo`/`printf`/`cat <<EOF`, and `cd`/`pushd`/`popd`.

use std::path::Path;

use super::Redirect;
use super::ast::{Redir, RedirOp};
use super::expand::{Arg, join_dir};
use super::state::{State, Stdin};
use super::wrappers::basename;

/// The output redirections, and where standard input comes from.
pub(super) fn redirections(rs: &[Redir], piped: Stdin, cwd: &Path) -> (Vec<Redirect>, Stdin) {
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
            RedirOp::DupIn => {
                // `<&3`: another descriptor's content is not known here.
                if r.fd.is_none_or(|f| f == 0) && target != "0" && target != "-" {
                    stdin = Stdin::Opaque;
                }
                continue;
            }
            RedirOp::In | RedirOp::ReadWrite => {
                if r.fd.is_none_or(|f| f == 0) {
                    stdin = if r.op == RedirOp::In && !r.target.has_var && !r.target.has_cmdsub {
                        Stdin::File(join_dir(cwd, &target))
                    } else {
                        Stdin::Opaque
                    };
                }
                continue;
            }
            RedirOp::HereDoc | RedirOp::HereString => {
                if r.fd.is_none_or(|f| f == 0) {
                    // Text the shell expands first (`<<< "$CODE"`, `<<EOF` with `$x` in it)
                    // is only known when it runs.
                    stdin = match &r.heredoc {
                        Some(doc) if doc.borrow().expands => Stdin::Opaque,
                        Some(doc) => Stdin::Text(doc.borrow().body.clone()),
                        None if r.target.has_var || r.target.has_cmdsub => Stdin::Opaque,
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
            expands: r.target.has_var || r.target.has_cmdsub,
        });
    }
    (out, stdin)
}

/// Whether redirections give a command (or a compound command) its own standard input, and its
/// own standard output, instead of the pipe it is in.
pub(super) fn own_stdio(rs: &[Redir]) -> (bool, bool) {
    let (mut input, mut output) = (false, false);
    for r in rs {
        let to = |fd: u32| r.fd.is_none_or(|f| f == fd);
        match r.op {
            RedirOp::In | RedirOp::ReadWrite | RedirOp::HereDoc | RedirOp::HereString => {
                input |= to(0);
            }
            RedirOp::DupIn => input |= to(0) && r.target.text() != "0",
            RedirOp::Out | RedirOp::Append | RedirOp::Clobber => output |= to(1),
            RedirOp::All | RedirOp::AllAppend => output = true,
            RedirOp::DupOut => output |= to(1) && r.target.text() != "1",
        }
    }
    (input, output)
}

/// What `echo`, `printf` or `cat <<EOF` print, when that is literal.
pub(super) fn literal_output(argv: &[Arg], known: bool, redirs: &[Redir]) -> Option<String> {
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
            let text = args[n..].join(" ");
            let escapes = args[..n].iter().any(|a| a.contains('e'));
            (!escapes || !text.contains('\\')).then_some(text)
        }
        "printf" => {
            let format = args.first()?.replace("%%", "\u{0}");
            if format.replace("%s", "").contains('%') || format.replace("\\n", "").contains('\\') {
                return None;
            }
            let mut text = format.replace("\\n", "\n");
            for a in &args[1..] {
                match text.find("%s") {
                    Some(i) => text.replace_range(i..i + 2, a),
                    None => return None,
                }
            }
            Some(text.replace("%s", "").replace('\u{0}', "%"))
        }
        "cat" if args.is_empty() => {
            let (_, stdin) = redirections(redirs, Stdin::None, Path::new("/"));
            match stdin {
                Stdin::Text(t) => Some(t),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Follow `cd`, `pushd` and `popd`.
pub(super) fn change_dir(argv: &[Arg], st: &mut State, home: Option<&Path>) {
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
            // With CDPATH, a relative name may be found in another folder.
            let relative = !a.text.starts_with(['/', '.']);
            if relative && st.cdpath() {
                st.known = false;
            }
            st.cwd = join_dir(&st.cwd, &a.text);
            // Through a link or a move made earlier in the line, or into a folder that is not
            // there now (the `cd` fails, or it is made in the line): not known here.
            let missing = st.on_disk && !st.cwd.is_dir();
            if st.made.iter().any(|m| st.cwd.starts_with(m)) || missing {
                st.known = false;
            }
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
