//! Writers killed mid-write: a session's record is overwritten in place, and every touch a
//! hook confirmed (it exited) survives writers of the same session killed at any moment; the
//! record is never read as damaged. Writers of one session running at once lose nothing either.

mod common;

use std::collections::BTreeSet;
use std::io::Write;
use std::time::Instant;

use common::*;
use serde_json::Value;

const A: &str = "aaaaaaaa-0000-4000-8000-000000000001";

/// The files `git dibs status --json --all` lists for session `id`.
fn files_of(repo: &TestRepo, id: &str) -> BTreeSet<String> {
    let out = dibs(&repo.root, &["status", "--json", "--all"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["id"] == id)
        .flat_map(|s| s["files"].as_array().unwrap().clone())
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect()
}

/// What the store set aside as damaged.
fn set_aside(repo: &TestRepo) -> Vec<String> {
    std::fs::read_dir(repo.store_dir().join("sessions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".corrupt-"))
        .collect()
}

#[test]
fn writers_killed_mid_write_lose_no_confirmed_touch() {
    let repo = TestRepo::new();
    // A record of a few pages, so that a kill can land inside its overwrite.
    let mut confirmed = BTreeSet::new();
    for i in 0..40 {
        let rel = format!("src/big/f{i:03}.rs");
        repo.write(&repo.root, &rel, "x\n");
        hook(&repo.root, &repo.pre_edit(A, &rel));
        confirmed.insert(rel);
    }
    let started = Instant::now();
    hook(&repo.root, &repo.pre_edit(A, "src/big/f000.rs"));
    let one = started.elapsed();
    // Kills spread over a whole call and a little past it (a plain LCG: the same every run).
    // A call under load takes longer than the one timed above, so the spread widens while no
    // writer finishes and narrows while none is killed: both must happen for the test to mean
    // anything, on a quiet machine and on a loaded one.
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut spread = 1.2;
    let (mut killed, mut done) = (0, 0);
    let mut j = 0;
    while j < 80 || (killed == 0 || done == 0) && j < 400 {
        let rel = format!("src/k/f{j:03}.rs");
        repo.write(&repo.root, &rel, "x\n");
        let input = format!("{}\n", repo.pre_edit(A, &rel));
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let delay = one.mul_f64((seed >> 33) as f64 / (1u64 << 31) as f64 * spread);
        let mut child = std::process::Command::new(bin())
            .arg("hook")
            .current_dir(&repo.root)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
        std::thread::sleep(delay);
        let _ = child.kill();
        if child.wait().unwrap().success() {
            confirmed.insert(rel);
            done += 1;
        } else {
            killed += 1;
        }
        if j % 10 == 9 {
            let kept = files_of(&repo, A);
            let lost: Vec<_> = confirmed.difference(&kept).collect();
            assert!(lost.is_empty(), "after {j}: lost {lost:?}");
            if done == 0 {
                spread *= 2.0;
            } else if killed == 0 {
                spread /= 2.0;
            }
        }
        j += 1;
    }
    eprintln!(
        "store_kills: {killed} writers killed, {done} finished (a call takes {one:?}, spread {spread}x)"
    );
    assert!(killed > 0 && done > 0, "{killed} killed, {done} done");
    assert_eq!(set_aside(&repo), Vec::<String>::new());
    // The session's next call carries on from what was kept.
    let run = hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    assert_eq!(run.code, 0);
    confirmed.insert("src/lib.rs".to_owned());
    assert!(confirmed.is_subset(&files_of(&repo, A)));
}

#[test]
fn writers_of_one_session_at_once_lose_no_touch() {
    let repo = TestRepo::new();
    let files: Vec<String> = (0..48).map(|i| format!("src/c/f{i:02}.rs")).collect();
    for f in &files {
        repo.write(&repo.root, f, "x\n");
    }
    hook(&repo.root, &repo.pre_edit(A, "src/lib.rs"));
    // Six at a time, each touching its own file of the same session.
    for batch in files.chunks(6) {
        let children: Vec<_> = batch
            .iter()
            .map(|f| {
                spawn_hook(
                    &repo.root,
                    format!("{}\n", repo.pre_edit(A, f)).as_bytes(),
                    &[],
                )
            })
            .collect();
        for c in children {
            assert!(c.wait_with_output().unwrap().status.success());
        }
    }
    let kept = files_of(&repo, A);
    for f in &files {
        assert!(kept.contains(f), "{f} lost: {kept:?}");
    }
    assert_eq!(set_aside(&repo), Vec::<String>::new());
    // And a peer is warned about each of them.
    let run = hook(
        &repo.root,
        &repo.pre_edit("bbbbbbbb-0000-4000-8000-000000000002", &files[47]),
    );
    assert!(run.stdout.contains("aaaaaaaa"), "{run:?}");
}
