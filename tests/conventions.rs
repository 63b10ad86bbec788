//! The conventions git users expect, through the real binary on a real repository: `--json`
//! on refusals too, `status PATH`, `-q`, and the exit codes (0 yes or done, 1 refused or no,
//! 2 error).

mod common;

use std::path::Path;
use std::process::Output;

use common::*;
use serde_json::Value;

fn run(dir: &Path, session: Option<&str>, args: &[&str]) -> Output {
    dibs_env(dir, session, args, &[])
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn a_refused_claim_prints_json_and_exits_1() {
    let repo = TestRepo::new();
    let out = run(
        &repo.root,
        Some("holder-1"),
        &["claim", "README.md", "--exclusive", "--intent", "docs"],
    );
    assert!(out.status.success());
    let out = run(
        &repo.root,
        Some("other-2"),
        &["claim", "README.md", "--json"],
    );
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v[0]["granted"], false, "{v}");
    assert_eq!(v[0]["holder"], "holder-1");
    assert_eq!(v[0]["holder_intent"], "docs");
    let out = run(
        &repo.root,
        Some("other-2"),
        &["claim", "src/lib.rs", "--json"],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json_of(&out)[0]["granted"], true);
}

#[test]
fn status_path_says_who_holds_a_file() {
    let repo = TestRepo::new();
    hook(&repo.root, &repo.pre_edit("aaaaaaaa-1", "src/lib.rs"));
    repo.write(&repo.root, "src/lib.rs", "pub fn changed() {}\n");
    let out = run(&repo.root, None, &["status", "src/lib.rs"]);
    assert_eq!(out.status.code(), Some(0));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("src/lib.rs (uncommitted): held by claude session aaaaaaaa"),
        "{said}"
    );
    let out = run(
        &repo.root.join("src"),
        None,
        &["status", "--json", "lib.rs"],
    );
    let v = json_of(&out);
    assert_eq!(v[0]["path"], "src/lib.rs");
    assert_eq!(v[0]["dirty"], true);
    assert_eq!(v[0]["holders"][0]["id"], "aaaaaaaa-1");
    let out = run(&repo.root, None, &["status", "README.md"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no live session holds it"));
    let out = run(&repo.root, None, &["status", "/"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn quiet_prints_nothing_and_the_exit_code_answers() {
    let repo = TestRepo::new();
    hook(&repo.root, &repo.pre_edit("aaaaaaaa-1", "src/lib.rs"));
    for (args, code) in [
        (&["-q", "status", "src/lib.rs"][..], 0),
        (&["status", "-q", "README.md"], 1),
        (&["-q", "status"], 0),
        (&["-q", "claim", "record:1"], 0),
        (&["-q", "audit"], 0),
    ] {
        let out = run(&repo.root, Some("s1"), args);
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        assert!(
            out.stdout.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let out = run(&repo.root, Some("s1"), &["-q", "claim", "nope.rs"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!out.stderr.is_empty(), "errors still said");
}

#[test]
fn doctor_json_is_one_document_and_its_exit_code_counts_problems() {
    let repo = TestRepo::new();
    let out = run(&repo.root, None, &["doctor", "--json"]);
    let v = json_of(&out);
    let problems = v["problems"].as_u64().unwrap();
    assert_eq!(
        out.status.code(),
        Some(if problems == 0 { 0 } else { 1 }),
        "{v}"
    );
    assert!(
        v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| { ["ok", "repaired", "problem"].contains(&c["status"].as_str().unwrap()) })
    );
}

#[test]
fn release_prints_json() {
    let repo = TestRepo::new();
    assert!(
        run(&repo.root, Some("s1"), &["claim", "record:1", "record:2"])
            .status
            .success()
    );
    let out = run(&repo.root, Some("s1"), &["release", "record:1", "--json"]);
    assert!(out.status.success());
    let v = json_of(&out);
    assert_eq!(v["session"], "s1");
    assert_eq!(v["released"], serde_json::json!(["record:1"]));
}

#[test]
fn a_lane_whose_branch_someone_else_claimed_is_refused_with_exit_1() {
    let repo = TestRepo::new();
    let out = run(
        &repo.root,
        Some("holder-1"),
        &["claim", "branch:lane/x", "--exclusive"],
    );
    assert!(out.status.success(), "{}", out_text(&out));
    let out = run(&repo.root, Some("other-2"), &["lane", "new", "x"]);
    assert_eq!(out.status.code(), Some(1), "{}", out_text(&out));
    assert!(out_text(&out).contains("is held by"), "{}", out_text(&out));
    assert!(!repo.root.join(".worktrees/x").exists(), "rolled back");
}
