//! A submodule keeps its snapshots in its own repository (`.git/modules/<name>`), and in the
//! superproject's too (a nested repository's are): `recover` in the superproject lists them
//! and names the submodule, and `recover PATH` of a file inside it brings the file back from
//! the submodule's snapshots.

mod common;
mod recover_support;

use common::*;
use recover_support::*;

#[test]
fn a_submodules_files_are_named_from_the_superproject_and_come_back_by_path() {
    let repo = TestRepo::new();
    let lib_src = TestRepo::new();
    sh(
        &repo.root,
        &format!(
            "git -c protocol.file.allow=always submodule add -q {} lib && git commit -qm sub",
            lib_src.root.display()
        ),
    );
    let agent = Agent::new("sub-agent", &repo.root);
    let made = agent.write("lib/new.txt", b"in the submodule\n");
    let edited = agent.write("lib/src/lib.rs", b"pub fn sub() {}\n");
    Agent::new("sub-peer", &repo.root)
        .bash("git submodule foreach -q 'git reset -q --hard && git clean -fdq'");
    assert!(!made.exists());

    let (code, out, err) = recover(&repo.root, &[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("submodule lib keeps snapshots"), "{out}");
    assert!(out.contains("/lib\n") && out.contains("new.txt"), "{out}");
    let (code, out, err) = recover(&repo.root, &["lib/new.txt"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_recovers(
        &repo.root.join("lib"),
        &["src/lib.rs"],
        &[
            (made, b"in the submodule\n".to_vec()),
            (edited, b"pub fn sub() {}\n".to_vec()),
        ],
    );
}
