//! Where an interpreter's code comes from, in every spelling its own option parser accepts:
//! inline (`-e CODE`, `-eCODE`, `-ne`/`-pe`/`-lane` clusters, `--eval=CODE`, python's `-c`
//! after `-S`/`-u`), modules that run at start (`perl -MMod`, `ruby -rlib`, `node -r mod`), a
//! script operand, or standard input (`python3 -`, `echo CODE | perl`, a heredoc, `-i` reading
//! more after the code).

use super::readonly::Lang;

/// One place code comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// Code on the command line.
    Inline(String),
    /// A script file operand, as written.
    Script(String),
    /// Standard input.
    Stdin,
}

/// An interpreter's option grammar.
struct Spec {
    lang: Lang,
    /// Short options whose argument (attached, else the next word) is code.
    code: &'static str,
    /// Long options whose argument is code.
    code_long: &'static [&'static str],
    /// Short options whose argument names a module loaded (and run) first.
    module: &'static str,
    /// Long options of that kind.
    module_long: &'static [&'static str],
    /// Short options that take an argument (attached, else the next word).
    arg: &'static str,
    /// Long options that take the next word when no `=` is given.
    arg_long: &'static [&'static str],
    /// Short options whose argument may only be attached (the rest of the word).
    attached: &'static str,
    /// Short options followed by optional digits (`-l0`, `-0777`).
    digits: &'static str,
    /// A code option's argument is always the next word (`node -pe CODE`).
    next_only: bool,
    /// Option parsing ends after the code (`python -c CODE ARGS`).
    stop_after_code: bool,
    /// Runs a module by name instead (`python -m`): not code in reach of this rule.
    run_module: Option<char>,
    /// Also reads code from standard input after the rest (`python -i`, `node -i`).
    interactive: Option<char>,
    /// Options that run nothing (`--version`, `node --check`).
    no_run: &'static [&'static str],
}

const NONE: &[&str] = &[];

fn spec(stem: &str) -> Option<Spec> {
    let base = Spec {
        lang: Lang::Other,
        code: "",
        code_long: NONE,
        module: "",
        module_long: NONE,
        arg: "",
        arg_long: NONE,
        attached: "",
        digits: "",
        next_only: false,
        stop_after_code: false,
        run_module: None,
        interactive: None,
        no_run: &["--version", "--help", "-V", "-h"],
    };
    Some(match stem {
        "python" | "pypy" => Spec {
            lang: Lang::Python,
            code: "c",
            arg: "WXQ",
            stop_after_code: true,
            run_module: Some('m'),
            interactive: Some('i'),
            ..base
        },
        "perl" => Spec {
            lang: Lang::Perl,
            code: "eE",
            module: "Mm",
            attached: "iIxdDFC",
            digits: "l0",
            no_run: &["--version", "--help", "-v", "-V", "-h"],
            ..base
        },
        "ruby" => Spec {
            lang: Lang::Ruby,
            code: "e",
            module: "r",
            arg: "ICEF",
            arg_long: &["encoding"],
            attached: "ixTKW",
            digits: "0",
            no_run: &["--version", "--help", "-h"],
            ..base
        },
        "node" | "nodejs" | "bun" => Spec {
            lang: Lang::Js,
            code: "ep",
            code_long: &["eval", "print"],
            module: "r",
            module_long: &["require", "import", "loader", "experimental-loader"],
            arg: "C",
            arg_long: &[
                "conditions",
                "title",
                "env-file",
                "input-type",
                "inspect-port",
            ],
            next_only: true,
            interactive: Some('i'),
            no_run: &["--version", "--help", "-v", "-h", "-c", "--check"],
            ..base
        },
        "php" => Spec {
            code: "rBRE",
            arg: "cdzt",
            no_run: &["--version", "--help", "-v", "-h", "-i", "-l", "-m"],
            ..base
        },
        "lua" | "luajit" => Spec {
            code: "e",
            arg: "l",
            ..base
        },
        "Rscript" | "osascript" => Spec { code: "e", ..base },
        "tclsh" | "wish" => base,
        _ => return None,
    })
}

/// The language and the code sources of `argv` when it runs an interpreter; `None` when it is
/// no interpreter, or one that runs no code here (`--version`, `python -m pytest`).
pub(crate) fn sources(argv: &[String]) -> Option<(Lang, Vec<Source>)> {
    let name = argv.first()?.rsplit('/').next()?;
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let args = &argv[1..];
    if stem == "deno" {
        return deno(args);
    }
    // `bun install`, `bun build`, `bun test`: bun's own commands, no file of code it is given.
    if stem == "bun"
        && args
            .iter()
            .find(|a| !a.starts_with('-'))
            .is_some_and(|a| a != "run" && super::scripts::BUN_OWN.contains(&a.as_str()))
    {
        return None;
    }
    let spec = spec(stem)?;
    let mut out = Vec::new();
    let mut script = None;
    let mut dash = false;
    let mut interactive = false;
    let mut i = 0;
    'words: while i < args.len() {
        let a = args[i].as_str();
        if spec.no_run.contains(&a) && out.is_empty() {
            return None;
        }
        if a == "--" {
            script = args.get(i + 1).cloned();
            break;
        }
        if a == "-" {
            dash = true;
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (long, None),
            };
            let takes = spec.code_long.contains(&name) || spec.module_long.contains(&name);
            let value = if takes && value.is_none() {
                i += 1;
                args.get(i).cloned()
            } else {
                value
            };
            if spec.code_long.contains(&name) {
                out.push(Source::Inline(value.unwrap_or_default()));
            } else if spec.module_long.contains(&name) {
                out.push(module(spec.lang, &value.unwrap_or_default()));
            } else if spec.arg_long.contains(&name) && value.is_none() {
                i += 1;
            }
            i += 1;
            continue;
        }
        let Some(cluster) = a.strip_prefix('-').filter(|c| !c.is_empty()) else {
            if out.is_empty() {
                script = Some(a.to_owned());
            }
            break;
        };
        let chars: Vec<char> = cluster.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            let rest: String = chars[k + 1..].iter().collect();
            if spec.code.contains(c) || spec.module.contains(c) {
                let next_word = rest.is_empty()
                    || (spec.next_only && rest.chars().all(|r| spec.code.contains(r)));
                let text = if next_word {
                    i += 1;
                    args.get(i).cloned().unwrap_or_default()
                } else {
                    rest
                };
                out.push(if spec.code.contains(c) {
                    Source::Inline(text)
                } else {
                    module(spec.lang, &text)
                });
                if spec.stop_after_code && spec.code.contains(c) {
                    break 'words;
                }
                break;
            }
            if spec.run_module == Some(c) {
                return None;
            }
            if spec.interactive == Some(c) {
                interactive = true;
            }
            if spec.arg.contains(c) {
                if rest.is_empty() {
                    i += 1;
                }
                break;
            }
            if spec.attached.contains(c) {
                break;
            }
            k += 1;
            if spec.digits.contains(c) {
                while k < chars.len() && (chars[k].is_ascii_hexdigit() || chars[k] == 'x') {
                    k += 1;
                }
            }
        }
        i += 1;
    }
    if out.is_empty() {
        match script {
            Some(s) if !dash => out.push(Source::Script(s)),
            _ => out.push(Source::Stdin),
        }
    } else if interactive || dash {
        out.push(Source::Stdin);
    }
    Some((spec.lang, out))
}

/// A module loaded by name before the code runs, as code of its language.
fn module(lang: Lang, name: &str) -> Source {
    Source::Inline(match lang {
        Lang::Js => format!("require('{name}')"),
        Lang::Ruby => format!("require '{name}'"),
        _ => format!("use {}", name.replace(['=', ','], " ")),
    })
}

/// `deno eval CODE`, `deno run FILE` / `deno run -`; other subcommands run no code here.
fn deno(args: &[String]) -> Option<(Lang, Vec<Source>)> {
    let sub = args.iter().position(|a| !a.starts_with('-'))?;
    let operand = args[sub + 1..]
        .iter()
        .find(|a| !a.starts_with('-') || *a == "-");
    let source = match (args[sub].as_str(), operand) {
        ("eval", Some(code)) => Source::Inline(code.clone()),
        ("run", Some(f)) if f == "-" => Source::Stdin,
        ("run", Some(f)) => Source::Script(f.clone()),
        _ => return None,
    };
    Some((Lang::Js, vec![source]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(line: &str) -> Option<Vec<Source>> {
        let argv: Vec<String> = line.split(' ').map(str::to_owned).collect();
        sources(&argv).map(|(_, s)| s)
    }

    #[allow(clippy::unnecessary_wraps)]
    fn inline(t: &str) -> Option<Vec<Source>> {
        Some(vec![Source::Inline(t.to_owned())])
    }

    #[test]
    fn every_spelling_of_inline_code() {
        assert_eq!(of("perl -e X"), inline("X"));
        assert_eq!(of("perl -eX"), inline("X"));
        assert_eq!(of("perl -ne X f"), inline("X"));
        assert_eq!(of("perl -lane X f"), inline("X"));
        assert_eq!(of("perl -pi -e X f"), inline("X"));
        assert_eq!(of("perl -pi.bak -e X f"), inline("X"));
        assert_eq!(of("perl -l0 -nE X"), inline("X"));
        assert_eq!(of("perl -0777 -ne X"), inline("X"));
        assert_eq!(
            of("perl -MFile::Path=rmtree -e X"),
            Some(vec![
                Source::Inline("use File::Path rmtree".into()),
                Source::Inline("X".into())
            ])
        );
        assert_eq!(of("python3 -c X a b"), inline("X"));
        assert_eq!(of("python3 -cX"), inline("X"));
        assert_eq!(of("python3 -Sc X"), inline("X"));
        assert_eq!(of("python3 -W ignore -c X"), inline("X"));
        assert_eq!(of("python3 -m pytest"), None);
        assert_eq!(of("python3 -"), Some(vec![Source::Stdin]));
        assert_eq!(of("python3"), Some(vec![Source::Stdin]));
        assert_eq!(
            of("python3 x.py -c y"),
            Some(vec![Source::Script("x.py".into())])
        );
        assert_eq!(
            of("python3 -i -c X"),
            Some(vec![Source::Inline("X".into()), Source::Stdin])
        );
        assert_eq!(of("node -e X"), inline("X"));
        assert_eq!(of("node -pe X"), inline("X"));
        assert_eq!(of("node --eval X"), inline("X"));
        assert_eq!(of("node --eval=X"), inline("X"));
        assert_eq!(of("node --print=X"), inline("X"));
        assert_eq!(of("node --version"), None);
        assert_eq!(of("node -"), Some(vec![Source::Stdin]));
        assert_eq!(of("ruby -ne X"), inline("X"));
        assert_eq!(of("ruby -eX"), inline("X"));
        assert_eq!(of("php -r X"), inline("X"));
        assert_eq!(of("deno eval X"), inline("X"));
        assert_eq!(of("deno fmt"), None);
        assert_eq!(of("ls -e X"), None);
    }
}
