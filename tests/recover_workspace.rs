//! A session started in a folder of repositories that is none itself (a workspace holding
//! `api/`, `web/`): what its shell commands write into the repositories below is kept like what
//! they write in the repository they run in (red-team 3/17).

mod common;
mod recover_support;

use common::*;
use recover_support::*;

#[test]
fn a_script_run_from_a_workspace_folder_keeps_what_it_wrote_in_the_repository_below() {
    let repo = TestRepo::new();
    let workspace = repo.root.parent().unwrap().to_path_buf();
    std::fs::write(
        workspace.join("regen.py"),
        "open('repo/src/gen.rs', 'w').write('// generated, then hand-tuned\\n')\n",
    )
    .unwrap();
    let agent = Agent::new("workspace-agent", &workspace);
    agent.bash("python3 regen.py");
    let generated = repo.root.join("src/gen.rs");
    assert!(generated.exists());

    let peer = Agent::new("peer", &repo.root);
    peer.bash("git clean -fdq");
    collect_garbage(&repo.root);
    assert!(!generated.exists());
    assert_recovers(
        &repo.root,
        &["src/gen.rs"],
        &[(generated, b"// generated, then hand-tuned\n".to_vec())],
    );
}

#[test]
fn a_folder_with_no_repository_below_is_left_alone_in_silence() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("notes")).unwrap();
    let agent = Agent::new("nowhere", dir.path());
    agent.pre_bash("echo x > notes/out.txt").assert_silent();
    std::fs::write(dir.path().join("notes/out.txt"), "x\n").unwrap();
    agent.post_bash("echo x > notes/out.txt").assert_silent();
    // Nothing was made to keep it: no repository, no store.
    assert!(!dir.path().join(".git").exists() && !dir.path().join("notes/.git").exists());
}
