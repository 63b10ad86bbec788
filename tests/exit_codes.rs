//! One table of exit codes for every subcommand (0 yes or done, 1 refused or no, 2 error; `check`
//! adds 3 for "ask"; the agent hook always 0), walked through the real binary on one real
//! repository: each subcommand's yes, its refusal or no where it has one, and its errors (bad
//! input, outside a repository). Every case that takes `--json` runs again with it (one JSON
//! document on stdout for 0 and 1, nothing on stdout for 2) and with `-q` (nothing on stdout,
//! the same code). The subcommands are read from `-h`, so a new one without a row fails here.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::*;
use serde_json::Value;

const HOLDER: &str = "holder-1111";
const OTHER: &str = "other-2222";

/// Where a case runs.
#[derive(Clone, Copy)]
enum Dir {
    Repo,
    Outside,
}

struct Case {
    args: &'static [&'static str],
    session: Option<&'static str>,
    dir: Dir,
    stdin: &'static str,
    code: i32,
}

const fn case(args: &'static [&'static str], code: i32) -> Case {
    Case {
        args,
        session: Some(OTHER),
        dir: Dir::Repo,
        stdin: "",
        code,
    }
}

const fn outside(args: &'static [&'static str]) -> Case {
    Case {
        args,
        session: Some(OTHER),
        dir: Dir::Outside,
        stdin: "",
        code: 2,
    }
}

fn cases() -> Vec<Case> {
    vec![
        // hook: always 0, whatever it is given.
        Case {
            stdin: "",
            ..case(&["hook"], 0)
        },
        Case {
            stdin: "not json",
            ..case(&["hook", "--host", "codex"], 0)
        },
        case(&["status"], 0),
        case(&["status", "src/lib.rs"], 0),
        case(&["status", "README.md"], 1),
        case(&["status", "--nope"], 2),
        outside(&["status"]),
        case(&["claim", "record:8"], 0),
        case(&["claim", "record:7"], 1),
        case(&["claim", "missing.rs"], 2),
        case(&["claim", "record:9", "--ttl", "0s"], 2),
        outside(&["claim", "record:1"]),
        case(&["release", "record:8"], 0),
        case(&["release", "--session", HOLDER, "record:7"], 1),
        case(&["release", "--session", HOLDER, "--all", "--force"], 1),
        case(&["release", "--session", "nosuch-session"], 2),
        outside(&["release", "--all"]),
        case(&["install", "--dry-run"], 0),
        case(&["install", "--local", "--user"], 2),
        outside(&["install"]),
        case(&["uninstall", "--dry-run"], 0),
        outside(&["uninstall"]),
        case(&["audit"], 0),
        case(&["audit", "--verdict", "maybe"], 2),
        case(&["audit", "--since", "soon"], 2),
        outside(&["audit"]),
        case(&["check", "--", "ls"], 0),
        case(&["check", "--", "git", "stash"], 1),
        case(&["check", "--", "sh", "-c", "cat list | xargs rm"], 3),
        case(&["check"], 2),
        // doctor answers "problems found" with 1 (a fresh clone has one: `claude -w` worktrees
        // are unguarded without the plugin); conventions.rs ties its code to its count.
        case(&["doctor"], 1),
        case(&["doctor", "--nope"], 2),
        case(&["lane"], 2),
        case(&["lane", "new", "fresh"], 0),
        case(&["lane", "new", "stale", "--base", "main"], 1),
        case(&["lane", "new", "bad name"], 2),
        outside(&["lane", "new"]),
        case(&["lane", "list"], 0),
        outside(&["lane", "list"]),
        case(&["lane", "land", "fresh"], 0),
        case(&["lane", "land", "dirty"], 1),
        case(&["lane", "land", "nosuch"], 2),
        case(&["lane", "prune", "--dry-run"], 0),
        outside(&["lane", "prune"]),
        case(&["lane", "retain", "main"], 0),
        case(&["lane", "retain", "nosuch"], 2),
        outside(&["lane", "retain"]),
        case(&["landed", "main", "--offline"], 0),
        case(&["landed", "lane/dirty", "--offline"], 1),
        case(&["landed", "nosuch", "--offline"], 2),
        outside(&["landed", "main"]),
        case(&["sync"], 0),
        case(&["sync", "nosuch"], 2),
        outside(&["sync"]),
        case(&["recover"], 0),
        case(&["recover", "README.md"], 1),
        case(&["recover", "--at", "bogus"], 2),
        outside(&["recover"]),
        case(&["man"], 0),
        case(&["man", "--dir", "x"], 2),
        case(&["completions", "bash"], 0),
        case(&["completions", "tcsh"], 2),
        case(&["help"], 0),
        case(&["bogus"], 2),
    ]
}

/// The subcommands `-h` lists (with `lane`'s own), as `lane land` etc.
fn listed(repo: &TestRepo) -> BTreeSet<String> {
    let names = |args: &[&str]| -> Vec<String> {
        let out = dibs(&repo.root, args);
        let help = String::from_utf8_lossy(&out.stdout).into_owned();
        help.split("Commands:")
            .nth(1)
            .unwrap()
            .split("\n\n")
            .next()
            .unwrap()
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .map(str::to_owned)
            .collect()
    };
    let mut all: BTreeSet<String> = names(&["-h"]).into_iter().collect();
    for sub in names(&["lane", "-h"]) {
        all.insert(format!("lane {sub}"));
    }
    all
}

/// The command a case names: `lane land` for lane cases, else the first word.
fn command_of(args: &[&str]) -> String {
    match args {
        ["lane", sub, ..] => format!("lane {sub}"),
        [first, ..] => (*first).to_owned(),
        [] => String::new(),
    }
}

fn run(dir: &Path, session: Option<&str>, args: &[String], stdin: &str) -> Output {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env("USER", "sam")
        .env_remove("DIBS_SESSION")
        .env_remove("CLAUDE_CODE_SESSION_ID")
        .env_remove("WT_GUARD_BYPASS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(s) = session {
        cmd.env("DIBS_SESSION", s);
    }
    let mut child = cmd.spawn().expect("git-dibs runs");
    {
        use std::io::Write;
        let mut input = child.stdin.take().unwrap();
        let _ = input.write_all(stdin.as_bytes());
    }
    child.wait_with_output().unwrap()
}

/// The repository every case runs in: `HOLDER` holds `record:7` exclusively and has
/// uncommitted changes to `src/lib.rs` (snapshotted); a lane `dirty` holds an unlanded commit
/// and an uncommitted file; `README.md` has uncommitted changes nobody holds (so a lane from the
/// local `main` is refused); `list` exists for the `xargs rm` question.
fn setup() -> (TestRepo, PathBuf) {
    let repo = TestRepo::new();
    let ok = |out: Output| assert!(out.status.success(), "{}", out_text(&out));
    ok(run(
        &repo.root,
        Some(HOLDER),
        &["claim", "record:7", "--exclusive"].map(String::from),
        "",
    ));
    hook(&repo.root, &repo.pre_edit(HOLDER, "src/lib.rs"));
    repo.write(&repo.root, "src/lib.rs", "pub fn holders() {}\n");
    let post = edit_event(
        "PostToolUse",
        "Edit",
        HOLDER,
        &repo.root,
        &repo.root.join("src/lib.rs"),
    );
    hook(&repo.root, &post);
    let lane = run(
        &repo.root,
        Some(HOLDER),
        &["lane", "new", "dirty", "--json"].map(String::from),
        "",
    );
    let v: Value = serde_json::from_slice(&lane.stdout).expect("lane new --json");
    let lane = PathBuf::from(v["path"].as_str().unwrap());
    repo.write(&lane, "work.txt", "lane work\n");
    git(&lane, &["add", "work.txt"]);
    git(&lane, &["commit", "-qm", "lane work"]);
    repo.write(&lane, "half.txt", "not yet\n");
    repo.write(&repo.root, "list", "nothing\n");
    git(&repo.root, &["add", "list"]);
    git(&repo.root, &["commit", "-qm", "list"]);
    git(&repo.root, &["push", "-q", "origin", "main"]);
    repo.write(&repo.root, "README.md", "changed by a person\n");
    let outside = repo.tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    (repo, outside)
}

/// Whether `command` takes `--json`, from its own help.
fn takes_json(repo: &TestRepo, command: &str) -> bool {
    let mut args: Vec<&str> = command.split(' ').collect();
    args.push("-h");
    String::from_utf8_lossy(&dibs(&repo.root, &args).stdout).contains("--json")
}

#[test]
fn every_subcommand_follows_the_table_of_exit_codes() {
    let (repo, outside) = setup();
    let cases = cases();
    let covered: BTreeSet<String> = cases.iter().map(|c| command_of(c.args)).collect();
    let missing: Vec<String> = listed(&repo)
        .into_iter()
        .filter(|c| !covered.contains(c) && c != "lane help")
        .collect();
    assert!(missing.is_empty(), "subcommands with no row: {missing:?}");
    let mut wrong = Vec::new();
    for c in &cases {
        let dir = match c.dir {
            Dir::Repo => repo.root.as_path(),
            Dir::Outside => outside.as_path(),
        };
        let command = command_of(c.args);
        let args: Vec<String> = c.args.iter().map(|a| (*a).to_owned()).collect();
        let out = run(dir, c.session, &args, c.stdin);
        let code = out.status.code().unwrap_or(-1);
        if code != c.code {
            wrong.push(format!(
                "{:?}: exit {code}, expected {}:\n{}",
                c.args,
                c.code,
                out_text(&out)
            ));
            continue;
        }
        if c.code == 2 && !matches!(c.args, ["hook", ..]) && out.stderr.is_empty() {
            wrong.push(format!("{:?}: an error with nothing on stderr", c.args));
        }
        // Again with --json, right after the subcommand's name (before any `--`).
        if takes_json(&repo, &command) && command != "lane new" && command != "lane land" {
            let at = command.split(' ').count();
            let mut with = args.clone();
            with.insert(at, "--json".into());
            let out = run(dir, c.session, &with, c.stdin);
            let json_code = out.status.code().unwrap_or(-1);
            let stdout = String::from_utf8_lossy(&out.stdout);
            let parses = if command == "audit" {
                stdout
                    .lines()
                    .all(|l| serde_json::from_str::<Value>(l).is_ok_and(|v| v.is_object()))
            } else {
                serde_json::from_str::<Value>(&stdout).is_ok()
            };
            if json_code != c.code {
                wrong.push(format!("{with:?}: exit {json_code}, expected {}", c.code));
            } else if json_code == 2 && !stdout.is_empty() {
                wrong.push(format!("{with:?}: an error printed on stdout: {stdout}"));
            } else if json_code != 2 && !parses {
                wrong.push(format!("{with:?}: stdout is not JSON:\n{}", out_text(&out)));
            }
        }
        // Again with -q: nothing on stdout, the same code. (`lane new` and `lane land` change
        // the repository, so they run once.)
        if !matches!(command.as_str(), "lane new" | "lane land" | "help") {
            let mut with = vec!["-q".to_owned()];
            with.extend(args.iter().cloned());
            let out = run(dir, c.session, &with, c.stdin);
            let quiet_code = out.status.code().unwrap_or(-1);
            if quiet_code != c.code || !out.stdout.is_empty() {
                wrong.push(format!(
                    "{with:?}: exit {quiet_code} (expected {}), stdout {:?}",
                    c.code,
                    String::from_utf8_lossy(&out.stdout)
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

#[test]
fn lane_new_and_lane_land_answer_in_json_with_their_codes() {
    let (repo, _) = setup();
    for (args, code) in [
        (&["lane", "new", "--json", "fresh"][..], 0),
        (&["lane", "new", "--json", "stale", "--base", "main"], 1),
        (&["lane", "new", "--json", "bad name"], 2),
        (&["lane", "land", "--json", "fresh"], 0),
        (&["lane", "land", "--json", "dirty"], 1),
        (&["lane", "land", "--json", "nosuch"], 2),
    ] {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        let out = run(&repo.root, Some(OTHER), &args, "");
        assert_eq!(
            out.status.code(),
            Some(code),
            "{args:?}: {}",
            out_text(&out)
        );
        if code == 2 {
            assert!(out.stdout.is_empty(), "{args:?}");
        } else {
            serde_json::from_slice::<Value>(&out.stdout)
                .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", out_text(&out)));
        }
    }
    // The git hook refusing a commit is a refusal too: exit 1.
    install_git_hooks(&repo.root);
    git(&repo.root, &["add", "src/lib.rs"]);
    let out = run(
        &repo.root,
        Some(OTHER),
        &["githook", "pre-commit"].map(String::from),
        "",
    );
    assert_eq!(out.status.code(), Some(1), "{}", out_text(&out));
    assert!(out_text(&out).contains(HOLDER.split('-').next().unwrap()));
}
