//! A remote name is data, never an option: `git dibs sync REMOTE`, the `dibs.remote` setting
//! (read by `sync`, by `claim --exclusive` under `dibs.sync=true`, and by `doctor`) and the
//! only remote configured are refused when git would read them as something else (a leading
//! `-`, empty, a control character), with a message naming the value and what to do, and
//! never run: `--upload-pack=CMD` does not run CMD.

mod common;

use common::snap::*;
use common::*;

const A: &str = "aaaaaaaa-1111-4111-8111-111111111111";

#[test]
fn a_remote_that_git_would_read_as_an_option_is_refused_and_never_run() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let ran = repo.tmp.path().join("RAN");
    let inject = format!("--upload-pack=touch {};false", ran.display());
    let inject: &'static str = Box::leak(inject.into_boxed_str());
    let mut runs = Vec::new();
    let lines: [&'static [&'static str]; 5] = [
        Box::leak(Box::new(["sync", "--", inject])),
        &["sync", "--", "-x"],
        &["sync", ""],
        &["sync", "orig\nin"],
        Box::leak(Box::new(["sync", "--json", "--", inject])),
    ];
    for args in lines {
        let out = step(&mut runs, root, None, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
    }
    // The setting, read by sync, by an exclusive claim with sync on, and by doctor.
    git(root, &["config", "dibs.remote", inject]);
    step(&mut runs, root, None, &["sync"]);
    git(root, &["config", "dibs.sync", "true"]);
    let claim = step(
        &mut runs,
        root,
        Some(A),
        &["claim", "--exclusive", "src/lib.rs"],
    );
    assert_ne!(claim.status.code(), Some(0), "{claim:?}");
    let doctor = cli(root, None, &["doctor"]);
    let doctor_text = out_text(&doctor);
    assert!(
        doctor_text.contains("the setting dibs.remote"),
        "{doctor_text}"
    );
    assert!(!ran.exists(), "a remote name was run as a git option");
    let text = transcript(&repo, &runs).replace(
        repo.tmp.path().canonicalize().unwrap().to_str().unwrap(),
        "[TMP]",
    );
    // No message tells the user to run the injected line again.
    assert!(!text.contains("ls-remote --upload-pack"), "{text}");
    insta::assert_snapshot!("bad_remote_names", text);
}

#[test]
fn the_only_remote_configured_with_a_dash_name_is_refused() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let ran = repo.tmp.path().join("RAN");
    git(root, &["remote", "remove", "origin"]);
    git(
        root,
        &[
            "config",
            &format!("remote.--upload-pack=touch {};false.url", ran.display()),
            repo.remote.to_str().unwrap(),
        ],
    );
    let out = cli(root, None, &["sync"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        out_text(&out).contains("the remote configured here as"),
        "{out:?}"
    );
    assert!(!ran.exists(), "a remote name was run as a git option");
}

#[test]
fn a_plain_remote_and_a_path_still_sync() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let out = cli(root, None, &["sync", "origin"]);
    assert!(out.status.success(), "{out:?}");
    let out = cli(root, None, &["sync", repo.remote.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
}
