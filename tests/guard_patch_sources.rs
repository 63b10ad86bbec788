//! Patches git prints from history or the stash, applied in reverse (red team 4, leftovers):
//! `git stash show -p | git apply -R`, `git show X | git apply -R`, `git log -p`, `git
//! format-patch --stdout`, `git diff-tree -p`, through files, `tee`, subshells, nested shells
//! and other directories, over a live peer's uncommitted file. Which of the files it names the
//! patch changes is only known when it runs: a peer's file within its pathspec (anywhere, without
//! one) is asked about; the peer's files outside it, forward applies and looks stay silent.
//! Real repositories, the real binary.

mod common;
mod recover_support;

use common::snap::answer;
use common::*;
use recover_support::{Agent, asked, refused, silent};

const PEER: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const ME: &str = "bbbbbbbb-2222-4222-8222-222222222222";

/// A repository whose last commit changed a.txt and b.txt, with a stash entry of b.txt, and a
/// live peer's uncommitted edit of a.txt.
fn setup() -> (TestRepo, Agent, Agent) {
    let repo = TestRepo::new();
    let r = &repo.root;
    std::fs::create_dir_all(r.join("sub")).unwrap();
    std::fs::write(r.join("sub/keep.txt"), "keep\n").unwrap();
    for (f, t) in [("a.txt", "base a\n"), ("b.txt", "base b\n")] {
        std::fs::write(r.join(f), t).unwrap();
    }
    git(r, &["add", "a.txt", "b.txt", "sub"]);
    git(r, &["commit", "-qm", "base"]);
    for (f, t) in [("a.txt", "changed a\n"), ("b.txt", "changed b\n")] {
        std::fs::write(r.join(f), t).unwrap();
    }
    git(r, &["commit", "-qam", "change"]);
    std::fs::write(r.join("b.txt"), "stashed b\n").unwrap();
    git(r, &["stash", "push", "-q", "--", "b.txt"]);
    let peer = Agent::new(PEER, r);
    let me = Agent::new(ME, r);
    peer.write("a.txt", b"changed a\npeer edit\n");
    (repo, peer, me)
}

#[test]
fn a_reversed_patch_from_history_or_the_stash_over_a_peers_file_is_asked() {
    let (repo, peer, me) = setup();
    let r = &repo.root;
    let tmp = repo.tmp.path().canonicalize().unwrap();
    let p = tmp.join("p.patch");
    let p = p.display();
    let rd = r.display();
    for cmd in [
        "git stash show -p | git apply -R".to_owned(),
        "git stash show -p stash@{0} | git apply -R --index".to_owned(),
        "git stash show --patch | patch -R -p1".to_owned(),
        "git stash show | git apply -R".to_owned(),
        "git stash show -p -R | git apply".to_owned(),
        "git show HEAD | git apply -R".to_owned(),
        "git show | patch -R -p1".to_owned(),
        "git show -R HEAD | git apply".to_owned(),
        "git show HEAD -- a.txt | git apply -R".to_owned(),
        "git log -p -1 | git apply -R".to_owned(),
        "git log -1 --patch | patch -Rp1".to_owned(),
        "git log -1 -u | git apply --reverse".to_owned(),
        "git whatchanged -p -1 | git apply -R".to_owned(),
        "git format-patch -1 --stdout | git apply -R".to_owned(),
        "git format-patch -1 --stdout | patch -R -p1".to_owned(),
        "git diff-tree -p HEAD | git apply -R".to_owned(),
        "git diff-tree -p HEAD~1 HEAD | git apply -R".to_owned(),
        format!("git show HEAD > {p} && git apply -R {p}"),
        format!("git show HEAD > {p}; patch -R -p1 < {p}"),
        format!("git format-patch -1 --stdout > {p}; patch -R -p1 -i {p}"),
        format!("git show HEAD | tee {p} >/dev/null; git apply -R {p}"),
        "git show HEAD | tee /tmp/q | git apply -R".to_owned(),
        "git show HEAD | cat | git apply -R".to_owned(),
        "git show HEAD | (cd . && git apply -R)".to_owned(),
        "git show HEAD | { git apply -R; }".to_owned(),
        "git show HEAD | sh -c 'git apply -R'".to_owned(),
        "git show HEAD | bash -c 'cd sub && git apply -R'".to_owned(),
        format!("git -C {rd} show HEAD | git -C {rd} apply -R"),
        "cd sub && git show HEAD | git apply -R".to_owned(),
        "command git show HEAD | command git apply -R".to_owned(),
        "env GIT_PAGER=cat git show HEAD | exec git apply -R".to_owned(),
        "/usr/bin/git stash show -p | /usr/bin/git apply -R".to_owned(),
        "git -c core.quotepath=off stash show -p | git apply -R".to_owned(),
    ] {
        let reason = asked(&me, &cmd);
        assert!(
            reason.contains("a.txt") && reason.contains(&PEER[..8]),
            "{cmd}: {reason}"
        );
    }
    let run = me.pre_bash("git stash show -p | git apply -R");
    insta::assert_snapshot!("stash_show_reversed", answer(&repo, &run));
    // The worktree's own diff is known: that revert is refused outright.
    let reason = refused(&me, "git diff HEAD | git apply -R --index");
    assert!(reason.contains("a.txt"), "{reason}");
    // A reader only known when it runs: asked, as before.
    asked(&me, "git show -R HEAD | ./apply-it");
    // Looks, forward applies, no patch, the peer's file outside the pathspec, dry runs.
    for cmd in [
        "git stash show -p",
        "git stash show -p | less",
        "git stash show -p | git apply",
        "git stash show -p | git apply --index",
        "git show HEAD",
        "git show HEAD | git apply",
        "git show HEAD | patch -p1",
        "git show HEAD:a.txt | less",
        "git show HEAD -- b.txt | git apply -R",
        "git show HEAD b.txt | patch -R -p1",
        "git log -p | grep -n peer",
        "git log --stat -1 | cat",
        "git format-patch -1 --stdout > /tmp/my.patch",
        "git format-patch -1 --stdout | git apply --check -R",
        "git show HEAD | git apply -R --stat",
        "git stash show -p | patch -R --dry-run -p1",
        "git show --stat HEAD | cat",
        "git diff-tree HEAD | cat",
    ] {
        silent(&me, cmd);
    }
    // The peer reverts a commit over its own file.
    silent(&peer, "git show HEAD -- a.txt | git apply -R");
}

#[test]
fn in_a_linked_worktree_the_reversed_patch_is_judged_there() {
    let (repo, _peer, me) = setup();
    let lane = repo.worktree("lane");
    let lane_peer = Agent::new(PEER, &lane);
    lane_peer.write("a.txt", b"lane edit\n");
    let l = lane.display();
    for cmd in [
        format!("git -C {l} show HEAD | git -C {l} apply -R"),
        format!("cd {l} && git stash show -p | git apply -R"),
    ] {
        let reason = asked(&me, &cmd);
        assert!(
            reason.contains("a.txt") && reason.contains("lane"),
            "{cmd}: {reason}"
        );
    }
    silent(&me, &format!("git -C {l} show HEAD | git -C {l} apply"));
}
