//! A shell command that writes more files than one scan takes (512 files, 64 MiB per call):
//! the scans after it go on from where the last one stopped, so every file reaches a snapshot
//! within a few calls, and a command that may destroy while some are in none yet is asked
//! about (`[guard:scan-unfinished]`), never run silently over them.

mod common;
mod recover_support;

use common::*;
use recover_support::*;

/// A command that writes `n` small files under `gen/` (each its own bytes).
fn make_files(n: usize) -> String {
    format!(
        "python3 -c \"import os; os.makedirs('gen', exist_ok=True); \
         [open('gen/f%04d.txt' % i,'w').write('file %d\\n' % i) for i in range({n})]\""
    )
}

/// How many distinct files under `gen/` the listing names. (A file may be listed under two
/// sessions: one whose state dropped it past its 4,096 watched files, and a peer whose scan
/// then took it; neither loses it.)
fn kept(root: &std::path::Path) -> usize {
    let listing = recover_json(root, &[]);
    let paths: std::collections::BTreeSet<&str> = listing["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["path"].as_str())
        .filter(|p| p.starts_with("gen/"))
        .collect();
    paths.len()
}

#[test]
fn more_files_than_the_scans_took_are_asked_about_then_all_come_back_after_rm_rf() {
    let repo = TestRepo::new();
    let agent = Agent::new("many-files", &repo.root);
    // More than the 4,096 files a session's state watches: a scan from the start took the
    // same first files again and never got past them.
    let out = agent.bash(&make_files(4700));
    assert!(out.status.success(), "{out:?}");
    // A command that may destroy them (a peer's too), while some are in no snapshot yet after
    // this call's budgets: asked.
    let peer = Agent::new("a-peer", &repo.root);
    let reason = asked(&peer, "rm -rf gen");
    assert!(reason.contains("[guard:scan-unfinished]"), "{reason}");
    assert!(
        reason.contains(&repo.root.display().to_string()),
        "{reason}"
    );
    let count: usize = reason.split(' ').next().unwrap().parse().expect(&reason);
    assert!(count > 0 && count < 4700 - 4096, "{reason}");
    // Everyday commands while the scan is unfinished stay silent; a read-only one goes on with
    // the scan after it.
    agent.bash_silent("git status --short | head -1");
    agent.bash_silent("ls");
    // Asked again once the scan finished: silent.
    silent(&agent, "rm -rf gen");
    agent.bash("rm -rf gen");
    collect_garbage(&repo.root);
    assert!(!repo.root.join("gen").exists());
    assert_eq!(kept(&repo.root), 4700);
    let files: Vec<_> = (0..4700)
        .map(|i| {
            let p = repo.root.join(format!("gen/f{i:04}.txt"));
            (p, format!("file {i}\n").into_bytes())
        })
        .collect();
    assert_recovers(&repo.root, &["gen/"], &files);
}

#[test]
fn a_few_thousand_files_and_several_commands_then_rm_rf_lose_nothing_and_ask_nothing() {
    let repo = TestRepo::new();
    let agent = Agent::new("some-files", &repo.root);
    let out = agent.bash(&make_files(2000));
    assert!(out.status.success(), "{out:?}");
    for cmd in ["touch a.tmp", "ls", "echo x > b.tmp"] {
        agent.bash_silent(cmd);
    }
    silent(&agent, "rm -rf gen");
    agent.bash("rm -rf gen");
    collect_garbage(&repo.root);
    assert_eq!(kept(&repo.root), 2000);
}
