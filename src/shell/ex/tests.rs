//! The Ex reader's table tests: shell text, writes and other code, from every source.

use super::*;

fn words(line: &str) -> Vec<String> {
    let cmds = crate::shell::parse_with_home(line, Path::new("/nonexistent"), None).unwrap();
    cmds.into_iter().last().unwrap().argv
}

fn of(line: &str, stdin: &Input) -> Ex {
    let files = |p: &Path| match p.file_name().and_then(|n| n.to_str()) {
        Some("cmds.vim") => Some(Some("\" a comment\n!rm new.txt\nq\n".to_owned())),
        Some("big.vim") => Some(None),
        _ => None,
    };
    judge(&words(line), stdin, Path::new("/w"), &files).unwrap()
}

fn text(t: &str) -> Input {
    Input::Text(t.to_owned())
}

#[test]
fn shell_text_from_every_source() {
    let none = Input::Inherited;
    let cases: &[(&str, &Input, &[&str])] = &[
        ("vim -es -c '!rm new.txt' -c q", &none, &["rm new.txt"]),
        ("ex -s", &text("!rm new.txt\nq\n"), &["rm new.txt"]),
        ("vim -es", &text(":silent !git stash\n"), &["git stash"]),
        ("vi -e", &text("%!sort\nwq\n"), &["sort"]),
        ("vim", &text(":!rm x\n:q\n"), &["rm x"]),
        ("vim -es -S cmds.vim", &none, &["rm new.txt"]),
        ("vim -u cmds.vim -es", &none, &["rm new.txt"]),
        ("nvim --headless -S cmds.vim", &none, &["rm new.txt"]),
        ("vim -s cmds.vim f", &none, &["rm new.txt"]),
        ("ex -s", &Input::File("/w/cmds.vim".into()), &["rm new.txt"]),
        ("vim.tiny -es", &text("!rm x"), &["rm x"]),
        ("vim.basic -es", &text("!rm x"), &["rm x"]),
        ("nvi -e", &text("!rm x"), &["rm x"]),
        ("ex -s +'!rm x' +q", &none, &["rm x"]),
        ("view -es", &text("!rm x"), &["rm x"]),
        ("vim -es -c 'set ai|!rm x' -c q", &none, &["rm x"]),
        (
            "vim -es -c 'g/x/!rm new.txt' -c q f",
            &none,
            &["rm new.txt"],
        ),
        ("vim -es -c 'r !rm x' -c q", &none, &["rm x"]),
        ("vim -es -c 'r!rm x' -c q", &none, &["rm x"]),
        ("vim -es -c 'w !rm x' -c q", &none, &["rm x"]),
        ("vim -es -c 'e `rm x`' -c q", &none, &["rm x"]),
        ("vim -es -c 'make clean' -c q", &none, &["make clean"]),
        ("vim -es -c 'bufdo !rm x' -c q", &none, &["rm x"]),
        // Input after a quit is never read; `-` is text to edit; nvim reads piped text.
        ("ex -s -c q", &text("!rm x"), &[]),
        ("vim -", &text("!rm x"), &[]),
        ("nvim --headless", &text("!rm x"), &[]),
        ("vim -es -c 'w! f' -c q", &none, &[]),
        ("vim -es -c 'g/x/p' -c q f", &none, &[]),
        ("vim -es -S missing.vim", &none, &[]),
    ];
    for (line, stdin, expected) in cases {
        assert_eq!(of(line, stdin).shell, *expected, "{line}");
    }
}

#[test]
fn writes_of_named_files() {
    let none = Input::Inherited;
    let cases: &[(&str, &Input, &[&str])] = &[
        ("vim -es -c 'e new.txt' -c '%d' -c wq", &none, &["new.txt"]),
        ("vim -es -c 'e new.txt|%d|wq'", &none, &["new.txt"]),
        ("ex -s", &text("e new.txt\n%d\nx\n"), &["new.txt"]),
        ("ex -s f", &text("%d\nw\nq\n"), &["f"]),
        ("vim -es -c 'sav new.txt' -c q f", &none, &["new.txt"]),
        ("vim -es -c 'saveas! a.txt' -c q", &none, &["a.txt"]),
        ("vim -es -c '%d|w! a.txt' -c q", &none, &["a.txt"]),
        ("vim -es -c 'w >> a.txt' -c q", &none, &["a.txt"]),
        ("vim -es -c '1,5w ++enc=utf8 a.txt' -c q", &none, &["a.txt"]),
        ("vim -es -c 'normal ggdGZZ' f", &none, &["f"]),
        ("vim -es -c 'redir! > a.txt' -c q", &none, &["a.txt"]),
        ("vim -es -c 'redir => x' -c q", &none, &[]),
        ("vim -es -c 'mksession! a.txt' -c q", &none, &["a.txt"]),
        ("vim -es -c 'bufdo %d|w' -c q f g", &none, &["f", "g"]),
        ("ex -sc '%d|x' f", &none, &["f"]),
        ("vim -es -c '%d' -c wq f", &none, &["f"]),
        ("vim -c wq f", &none, &["f"]),
        ("nvim --headless +wq f", &none, &["f"]),
        // Ex mode on an input no one gave it: its commands are not known.
        ("vim -es f", &none, &["f"]),
        // Read-only, or nothing written.
        ("vim f", &none, &[]),
        ("vim -R -es f", &none, &[]),
        ("view -es -c wq f", &none, &[]),
        ("view -es -c 'wq!' f", &none, &["f"]),
        ("vim -es -c 'g/x/p' -c q f", &none, &[]),
        ("ex -s f", &text("q\n"), &[]),
        ("vim -es -c 'e new.txt' -c q", &none, &[]),
        ("vim -es -c 'w !wc' -c q f", &none, &[]),
        ("ex -s f", &Input::File("/dev/null".into()), &[]),
    ];
    for (line, stdin, expected) in cases {
        assert_eq!(of(line, stdin).writes, *expected, "{line}");
    }
}

#[test]
fn code_run_by_other_means_or_unread_is_named() {
    let none = Input::Inherited;
    for (line, stdin) in [
        ("vim -es -c 'call system(\"x\")' -c q", &none),
        ("ex -s", &text("call delete('new.txt')\n")),
        ("ex -s", &Input::Unknown),
        ("ex -s", &Input::File("/w/big.vim".into())),
        ("vim -es -S big.vim", &none),
        ("vim -es -c 'so x.vim' -c q", &none),
        ("vim -es -c 'py3 import os' -c q", &none),
        ("vim -es -c 'exe \"!rm x\"' -c q", &none),
        ("vim -es -c 'set shell=/tmp/x' -c q", &none),
        ("vim -es -c 'e `=system(\"x\")`' -c q", &none),
        ("vim -es -c 'sh' -c q", &none),
        ("nvim -l x.lua", &none),
        ("vim", &Input::Unknown),
    ] {
        assert!(of(line, stdin).opaque.is_some(), "{line}");
    }
    for (line, stdin) in [
        ("vim -es -c 'g/x/p' -c q f", &none),
        ("vim -c 'set ft=python' f", &none),
        ("vim -es -c 'copy 5' -c q f", &none),
        ("ex -s f", &text("%s/a/b/g\nwq\n")),
        ("vim -", &Input::Unknown),
        ("nvim --headless -c q", &Input::Unknown),
        ("ex -s -c q", &Input::Unknown),
    ] {
        assert!(of(line, stdin).opaque.is_none(), "{line}");
    }
}
