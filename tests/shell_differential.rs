//! The shell parser against real bash: for generated command lines, every command bash really
//! runs (each program replaced by a function that logs its directory and argv, exported into
//! nested shells) must be among the simple commands the parser saw, with the same argv and
//! directory, unless the parser marked that part unknown. A command the guard never saw is a
//! command it could not stop.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use git_dibs::shell::{SimpleCommand, parse_with_home};
use proptest::prelude::*;

const LOGGED: &[&str] = &["git", "rm", "ls"];

const PRELUDE: &str = r#"
__log() { { printf '%s\037' "$PWD" "$@"; printf '\036'; } >> "$LOG"; }
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
            inner.prop_map(|a| format!("eval \"{}\"", a.replace('"', "\\\""))),
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn every_command_bash_runs_is_one_the_parser_saw(line in line()) {
        let t = tree();
        let root = t.path().canonicalize().unwrap();
        let Some(ran) = bash_ran(&root, &line) else { return Ok(()); };
        let Ok(seen) = parse_with_home(&line, &root.join("w"), Some(&root.join("home"))) else {
            // Unreadable: the guard asks (fail closed); nothing to compare.
            return Ok(());
        };
        for (dir, argv) in &ran {
            prop_assert!(
                seen.iter().any(|s| covers(s, dir, argv)),
                "bash ran {argv:?} in {dir:?}; the parser saw {:#?}",
                seen.iter().map(|s| (&s.argv, &s.cwd, s.cwd_known, s.unknown)).collect::<Vec<_>>()
            );
        }
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
