//! Small tools that run shell text or remove files in their own syntax (red team 8b/04, 05,
//! 15, 16, 28): GNU `parallel` with literal arguments (`::: ARGS`, or lines of known input;
//! with no command, each argument is a command line), dc's `!CMD`, m4's `syscmd(CMD)` /
//! `esyscmd(CMD)`, and `cmake -E remove|remove_directory|rm|rename` (read as `rm`/`mv`). The
//! literal text is read as shell text; input that cannot be read is named by [`opaque`].

use super::Input;
use super::ex::Reader;
use super::expand::Arg;
use super::wrappers::basename;

/// Most command lines made from parallel's argument groups.
const MAX_JOBS: usize = 64;

/// The shell text `argv` runs, as written.
pub(super) fn texts(argv: &[Arg], stdin: &Input, read: Reader<'_>) -> Vec<String> {
    let Some(first) = argv.first() else {
        return Vec::new();
    };
    let rest: Vec<&str> = argv[1..].iter().map(|a| a.text.as_str()).collect();
    let input = || match stdin {
        Input::Text(t) => Some(t.clone()),
        Input::File(p) => read(p).flatten(),
        _ => None,
    };
    match basename(&first.text) {
        "parallel" => parallel(&rest, input().as_deref()),
        "dc" => dc(&rest, input().as_deref(), read),
        "m4" | "gm4" => m4(&rest, input().as_deref(), read),
        "cmake" => cmake(&rest).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// Why the commands `argv` runs cannot be read, when its input holds them and is not known.
pub(super) fn opaque(argv: &[String], stdin: &Input) -> Option<String> {
    let name = basename(argv.first()?);
    let unknown = matches!(stdin, Input::Unknown);
    match name {
        "parallel" if unknown && parallel_split(&argv[1..]).0.is_empty() => Some(
            "`parallel` runs command lines from an input git-dibs cannot read, which may".into(),
        ),
        "dc" | "m4" | "gm4" if unknown && !argv[1..].iter().any(|a| !a.starts_with('-')) => Some(
            format!("`{name}` runs the commands of an input git-dibs cannot read, which may"),
        ),
        _ => None,
    }
}

/// parallel's words: the command and the argument groups (`:::` literal, `::::` files: `None`).
fn parallel_split<S: AsRef<str>>(rest: &[S]) -> (Vec<&str>, Vec<Option<Vec<&str>>>) {
    const VALUED: &str = "jaSEIdnNPsC";
    const LONG: &[&str] = &[
        "--jobs",
        "--arg-file",
        "--sshlogin",
        "--delimiter",
        "--max-args",
        "--colsep",
        "--joblog",
        "--results",
        "--tmpdir",
        "--timeout",
        "--retries",
        "--workdir",
        "--max-procs",
    ];
    let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
    let mut i = 0;
    while i < rest.len() && rest[i].starts_with('-') && !rest[i].starts_with(":::") {
        let a = rest[i];
        if a == "--" {
            i += 1;
            break;
        }
        let takes = if a.starts_with("--") {
            LONG.contains(&a)
        } else {
            a.len() == 2 && VALUED.contains(&a[1..])
        };
        i += if takes { 2 } else { 1 };
    }
    let mut cmd = Vec::new();
    while i < rest.len() && !rest[i].starts_with(":::") {
        cmd.push(rest[i]);
        i += 1;
    }
    let mut groups: Vec<Option<Vec<&str>>> = Vec::new();
    while i < rest.len() {
        let literal = matches!(rest[i], ":::" | ":::+");
        i += 1;
        let mut g = Vec::new();
        while i < rest.len() && !rest[i].starts_with(":::") {
            g.push(rest[i]);
            i += 1;
        }
        groups.push(literal.then_some(g));
    }
    (cmd, groups)
}

/// GNU parallel's command lines: its command with each literal argument (quoted, in place of
/// `{}` or after it), or with no command each argument as a command line.
fn parallel(rest: &[&str], input: Option<&str>) -> Vec<String> {
    // `--dry-run` prints the command lines and runs none.
    if rest
        .iter()
        .take_while(|w| w.starts_with('-'))
        .any(|w| matches!(*w, "--dry-run" | "--dryrun"))
    {
        return Vec::new();
    }
    let (cmd, groups) = parallel_split(rest);
    let mut jobs: Vec<Vec<String>> = vec![Vec::new()];
    if groups.is_empty() {
        let Some(text) = input else { return Vec::new() };
        jobs = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| vec![l.to_owned()])
            .collect();
    }
    for g in &groups {
        let Some(g) = g else { return Vec::new() };
        let mut next = Vec::new();
        for j in &jobs {
            for a in g {
                let mut j = j.clone();
                j.push((*a).to_owned());
                next.push(j);
            }
        }
        next.truncate(MAX_JOBS);
        jobs = next;
    }
    jobs.into_iter()
        .take(MAX_JOBS)
        .map(|args| {
            if cmd.is_empty() {
                return args.join(" ");
            }
            let quoted: Vec<String> = args.iter().map(|a| super::quote_word(a)).collect();
            let mut used = false;
            let words: Vec<String> = cmd
                .iter()
                .map(|w| {
                    if w.contains("{}") {
                        used = true;
                        w.replace("{}", &quoted.join(" "))
                    } else {
                        super::quote_word(w)
                    }
                })
                .collect();
            let mut line = words.join(" ");
            if !used {
                line = format!("{line} {}", quoted.join(" "));
            }
            line
        })
        .collect()
}

/// The text a program reads: `-e`/`--expression` values (or `flag`), file operands (through
/// `read`), else its input.
fn sources(rest: &[&str], flags: &[&str], input: Option<&str>, read: Reader<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut files = false;
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        if flags.contains(a) {
            out.extend(it.next().map(|s| (*s).to_owned()));
        } else if let Some(v) = flags.iter().find_map(|f| a.strip_prefix(&format!("{f}="))) {
            out.push(v.to_owned());
        } else if !a.starts_with('-') || *a == "-" {
            files = true;
            if *a != "-" {
                out.extend(read(std::path::Path::new(a)).flatten());
            }
        }
    }
    if !files && (out.is_empty() || rest.is_empty()) {
        out.extend(input.map(str::to_owned));
    }
    out
}

/// dc's `!CMD` (to the end of the line; `!<`, `!>`, `!=` are comparisons).
fn dc(rest: &[&str], input: Option<&str>, read: Reader<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for text in sources(rest, &["-e", "--expression"], input, read) {
        for line in text.lines() {
            let mut at = 0;
            while let Some(p) = line[at..].find('!') {
                let after = &line[at + p + 1..];
                if after.starts_with(['<', '>', '=']) {
                    at += p + 2;
                    continue;
                }
                let cmd = after.split(']').next().unwrap_or(after).trim();
                if !cmd.is_empty() {
                    out.push(cmd.to_owned());
                }
                break;
            }
        }
    }
    out
}

/// m4's `syscmd(TEXT)` and `esyscmd(TEXT)`: TEXT up to the matching `)`, m4 quotes removed.
fn m4(rest: &[&str], input: Option<&str>, read: Reader<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for text in sources(rest, &[], input, read) {
        let mut at = 0;
        while let Some(p) = text[at..].find("syscmd(") {
            let start = at + p + "syscmd(".len();
            let mut depth = 1;
            let mut end = text.len();
            for (k, c) in text[start..].char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = start + k;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            out.push(text[start..end].replace(['`', '\''], ""));
            at = end.min(text.len());
            if at == text.len() {
                break;
            }
        }
    }
    out
}

/// `cmake -E remove|remove_directory|rm|rename ARGS` as the `rm`/`mv` it is.
fn cmake(rest: &[&str]) -> Option<String> {
    let at = rest.iter().position(|a| *a == "-E")?;
    let (verb, args) = rest[at + 1..].split_first()?;
    let q: Vec<String> = args.iter().map(|a| super::quote_word(a)).collect();
    let q = q.join(" ");
    Some(match *verb {
        "remove" => format!("rm -f -- {}", q.trim_start_matches("-f ")),
        "remove_directory" => format!("rm -rf -- {q}"),
        "rm" => format!("rm {q}"),
        "rename" => format!("mv -f -- {q}"),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(argv: &[&str], stdin: Input) -> Vec<String> {
        let argv: Vec<Arg> = argv.iter().map(|w| Arg::plain(w)).collect();
        texts(&argv, &stdin, &|_| None)
    }

    #[test]
    fn shell_text_of_small_tools_is_found() {
        let none = || Input::Inherited;
        assert_eq!(of(&["parallel", ":::", "rm -f x"], none()), ["rm -f x"]);
        assert_eq!(
            of(&["parallel", "-j1", ":::", "git stash"], none()),
            ["git stash"]
        );
        assert_eq!(
            of(&["parallel", "sh", "-c", ":::", "git stash -u"], none()),
            ["sh -c 'git stash -u'"]
        );
        assert_eq!(
            of(&["parallel", "rm", "{}.bak", ":::", "a", "b"], none()),
            ["rm a.bak", "rm b.bak"]
        );
        assert_eq!(
            of(&["parallel"], Input::Text("rm x\ngit stash\n".into())),
            ["rm x", "git stash"]
        );
        assert!(of(&["parallel", "gzip", "::::", "list"], none()).is_empty());
        assert_eq!(
            of(&["dc", "-e", "!git checkout ."], none()),
            ["git checkout ."]
        );
        assert!(of(&["dc", "-e", "1 2 !<a p"], none()).is_empty());
        assert_eq!(
            of(&["m4"], Input::Text("syscmd(git checkout .)\n".into())),
            ["git checkout ."]
        );
        assert_eq!(of(&["m4"], Input::Text("esyscmd(`rm x')".into())), ["rm x"]);
        assert_eq!(
            of(&["cmake", "-E", "remove", "notes.txt"], none()),
            ["rm -f -- notes.txt"]
        );
        assert_eq!(
            of(&["cmake", "-E", "remove_directory", "../d"], none()),
            ["rm -rf -- ../d"]
        );
        assert!(of(&["cmake", "-E", "echo", "hi"], none()).is_empty());
        assert!(opaque(&["parallel".into()], &Input::Unknown).is_some());
        assert!(opaque(&["m4".into(), "x.m4".into()], &Input::Unknown).is_none());
    }
}
