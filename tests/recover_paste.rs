//! The commands git-dibs prints for a person to paste are shell-quoted (red-team 3/30): a lane
//! whose path holds a space is brought back by pasting what `recover` says.

mod common;
mod recover_support;

use common::*;
use recover_support::*;

#[test]
fn the_printed_recover_command_works_when_pasted_for_a_path_with_a_space() {
    let repo = TestRepo::new();
    let r = &repo.root;
    sh(r, "git worktree add -q -b lane/one '.worktrees/lane one'");
    let lane = r.join(".worktrees/lane one");
    let agent = Agent::new("s1", &lane);
    let file = agent.write("work.txt", b"lane work\n");
    Agent::new("other", r).bash("WT_GUARD_BYPASS=1 rm -rf '.worktrees/lane one'");
    assert!(!lane.exists());
    let (_, listing, _) = recover(r, &[]);
    let line = listing
        .lines()
        .find_map(|l| l.split("gone: ").nth(1))
        .unwrap_or_else(|| panic!("{listing}"))
        .trim_end_matches(')')
        .to_owned();
    assert!(line.contains('\''), "{line}");
    let out = std::process::Command::new("sh")
        .args(["-c", &line])
        .current_dir(r)
        .env("PATH", path_with_bin())
        .output()
        .unwrap();
    assert!(out.status.success(), "{line}: {}", out_text(&out));
    assert_files(&[(file, b"lane work\n".to_vec())]);
}
