//! The shell parser against real bash: for generated command lines, every command bash really
//! runs (each program replaced by a function that logs its directory and argv, exported into
//! nested shells) must be among the simple commands the parser saw, with the same argv and
//! directory, unless the parser marked that part unknown. A command the guard never saw is a
//! command it could not stop. Each record is appended with one write, so the commands of a
//! pipeline, which run at the same time, cannot interleave their records.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use git_dibs::shell::{SimpleCommand, Unknown, parse_with_home};
use proptest::prelude::*;

const LOGGED: &[&str] = &["git", "rm", "ls"];

const PRELUDE: &str = r#"
__log() { local r; r=$(printf '%s\037' "$PWD" "$@"); printf '%s\036' "$r" >> "$LOG"; }
git() { __log git "$@"; }
rm() { __log rm "$@"; }
ls() { __log ls "$@"; }
export -f __log git rm ls
export LOG
"#;

/// What bash ran: (directory, argv) of each logged program, in order.
fn bash_ran(root: &Path, line: &str) -> Option<Vec<(PathBuf, Vec<String>)>> {
    let log = root.join("log");
    let _ = fs::remove_file(&log);
    let status = Command::new("bash")
        .args(["--norc", "--noprofile", "-c"])
        .arg(format!("{PRELUDE}\n{line}"))
        .current_dir(root.join("w"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", root.join("home"))
        .env("LOG", &log)
        .output()
        .ok()?;
    let _ = status;
    let text = fs::read_to_string(&log).unwrap_or_default();
    Some(
        text.split('\u{1e}')
            .filter(|r| !r.is_empty())
            .map(|r| {
                let mut f: Vec<String> = r.split('\u{1f}').map(str::to_owned).collect();
                f.pop();
                let dir = PathBuf::from(f.remove(0));
                (dir, f)
            })
            .collect(),
    )
}

fn covers(seen: &SimpleCommand, dir: &Path, argv: &[String]) -> bool {
    // Code the parser says it cannot know (`eval` of a text that holds an unknown value) may
    // run anything: that answer is honest, and the guard fails closed on it.
    if seen.unknown == Some(Unknown::Eval) {
        return true;
    }
    if seen.argv.first() != argv.first() {
        return false;
    }
    let argv_ok = seen.unknown.is_some() || seen.argv == argv;
    let dir_ok = !seen.cwd_known || seen.cwd == dir;
    argv_ok && dir_ok
}

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "x",
        "-rf",
        "-D",
        "topic",
        "'a b'",
        "\"$v\"",
        "$v",
        "\"$d\"",
        "a*",
        "'*'",
        "{x,y}",
        "\"$(echo q)\"",
        "~",
        "~+",
        "~+/a",
        "--",
        "-C",
        "a",
    ])
    .prop_map(str::to_owned)
}

fn simple() -> impl Strategy<Value = String> {
    prop_oneof![
        (
            prop::sample::select(LOGGED.to_vec()),
            prop::collection::vec(word(), 0..4)
        )
            .prop_map(|(n, w)| format!("{n} {}", w.join(" "))),
        prop::sample::select(vec![
            "cd a",
            "cd b",
            "cd ..",
            "cd a/c",
            "cd \"$d\"",
            "cd",
            "cd ~",
            "v=x",
            "v='p q'",
            "v=p_q",
            "IFS=_",
            "d=a",
            "d=b",
            "true",
            "false",
            "echo hi",
            "pushd a >/dev/null",
            "popd >/dev/null",
        ])
        .prop_map(str::to_owned),
    ]
}

fn line() -> impl Strategy<Value = String> {
    simple().prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} && {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} || {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a}; {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} | {b}")),
            inner.clone().prop_map(|a| format!("( {a} )")),
            inner.clone().prop_map(|a| format!("{{ {a}; }}")),
            inner
                .clone()
                .prop_filter("no single quote", |a| !a.contains('\''))
                .prop_map(|a| format!("bash -c '{a}'")),
            inner
                .clone()
                .prop_map(|a| format!("for v in x y; do {a}; done")),
            inner.clone().prop_map(|a| format!("if true; then {a}; fi")),
            inner
                .clone()
                .prop_map(|a| format!("eval \"{}\"", a.replace('"', "\\\""))),
            // Shell text on standard input, from a process substitution, or from a script
            // written earlier on the line.
            inner
                .clone()
                .prop_filter("no double quote", |a| !a.contains('"'))
                .prop_map(|a| format!("echo \"{a}\" | bash")),
            inner
                .clone()
                .prop_filter("no single quote", |a| !a.contains('\''))
                .prop_map(|a| format!("bash <(echo '{a}')")),
            inner
                .clone()
                .prop_filter("no single quote", |a| !a.contains('\''))
                .prop_map(|a| format!("source <(echo '{a}')")),
            inner
                .prop_filter("no single quote", |a| !a.contains('\''))
                .prop_map(|a| format!("echo '{a}' > s.sh; bash s.sh")),
        ]
    })
}

fn tree() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    for d in ["w/a/c", "w/b", "home"] {
        fs::create_dir_all(t.path().join(d)).unwrap();
    }
    fs::write(t.path().join("w/a1"), "").unwrap();
    t
}

/// `None` when every program bash ran for `line` is among what the parser saw, else what differs.
fn unseen(line: &str) -> Option<String> {
    let t = tree();
    let root = t.path().canonicalize().unwrap();
    let ran = bash_ran(&root, line)?;
    // Unreadable: the guard asks (fail closed); nothing to compare.
    let seen = parse_with_home(line, &root.join("w"), Some(&root.join("home"))).ok()?;
    let (dir, argv) = ran
        .iter()
        .find(|(dir, argv)| !seen.iter().any(|s| covers(s, dir, argv)))?;
    Some(format!(
        "bash ran {argv:?} in {dir:?}; the parser saw {:#?}",
        seen.iter()
            .map(|s| (&s.argv, &s.cwd, s.cwd_known, s.unknown))
            .collect::<Vec<_>>()
    ))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn every_command_bash_runs_is_one_the_parser_saw(line in line()) {
        let missed = unseen(&line);
        prop_assert!(missed.is_none(), "{}", missed.unwrap_or_default());
    }
}

/// Lines the generator found once, kept: `eval` runs in this shell; after `||` (and at the end
/// of any and-or list) only what every path agrees on is known; a child shell does not see
/// unexported variables; a glob in an unknown directory matches what is not known; the
/// commands of a pipeline log at the same time; an `eval` of text holding an unknown value is
/// unknown code.
#[test]
fn lines_the_generator_found() {
    for line in [
        "eval \"cd a\" && git ",
        "bash -c 'popd >/dev/null' && cd a || git ",
        "ls  || eval \"cd a\"; git ",
        "false && cd a || git a*",
        "d=a || cd a && git a*",
        "for v in x y; do bash -c 'git \"$v\"'; done",
        "for v in x y; do rm '*' | git \"$d\" -D --; done",
        "git \"$v\"; git ",
        "git x; cd a; git x",
        "git  || d=a; git \"$d\"",
        "eval \"eval \\\"git \\\\\"$v\\\\\"\\\"\"",
    ] {
        assert_eq!(unseen(line), None, "{line}");
    }
}

#[test]
fn the_harness_sees_what_bash_runs() {
    let t = tree();
    let root = t.path().canonicalize().unwrap();
    let ran = bash_ran(&root, "cd a && git status; bash -c 'rm -rf x'").unwrap();
    assert_eq!(ran.len(), 2, "{ran:?}");
    assert_eq!(ran[0].0, root.join("w/a"));
    assert_eq!(ran[1].1, ["rm", "-rf", "x"]);
}
