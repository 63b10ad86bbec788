//! Git-side leftovers of the fourth red team (03, 04, 05 and the one-line ref deletions),
//! through the real hook on real repositories: a lane moved by a plain `mv` keeps its
//! sessions' files guarded where it went (its admin folder still names the old root);
//! `update-index` and the index file itself judged as the unstaging they are; each with the
//! spellings nobody wrote down and the everyday commands that stay silent.

mod common;
mod recover_support;

use common::*;
use recover_support::{Agent, asked, refused, sh, silent};

const PEER: &str = "aaaaaaaa-1111-4111-8111-111111111111";
const ME: &str = "bbbbbbbb-2222-4222-8222-222222222222";

#[test]
fn a_lane_moved_by_a_plain_mv_keeps_its_sessions_files_guarded() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let lanes = r.join(".worktrees");
    std::fs::create_dir_all(&lanes).unwrap();
    let lane = lanes.join("l1");
    git(
        r,
        &["worktree", "add", "-q", "-b", "l1", lane.to_str().unwrap()],
    );
    let peer = Agent::new(PEER, &lane);
    let me = Agent::new(ME, r);
    peer.write("f.txt", b"uncommitted lane work\n");
    let tmp = repo.tmp.path().canonicalize().unwrap();
    let moved = tmp.join("moved");
    // A plain `mv` (a bypass, a file manager): git's admin folder still names the old root.
    sh(r, &format!("mv {} {}", lane.display(), moved.display()));
    let m = moved.display();
    for cmd in [
        format!("git -C {m} clean -fd"),
        "git -C ../moved clean -fdq".to_owned(),
        format!("cd {m} && git stash -u"),
        format!("git -C {m} add -A"),
    ] {
        let reason = refused(&me, &cmd);
        assert!(reason.contains("f.txt"), "{cmd}: {reason}");
    }
    silent(&me, &format!("git -C {m} status"));
    silent(&me, &format!("git -C {m} diff"));
    // The peer's own files, where they went, are its own to clean.
    silent(&Agent::new(PEER, &moved), "git clean -fd");
    // Moved into another lane's name, the same: claims follow the admin folder, not the name.
    let other = tmp.join("l1");
    sh(r, &format!("mv {m} {}", other.display()));
    let reason = refused(&me, &format!("git -C {} clean -fd", other.display()));
    assert!(reason.contains("f.txt"), "{reason}");
    // Once git is told (`worktree repair`), the same.
    sh(&other, "git worktree repair");
    let reason = refused(&me, &format!("git -C {} clean -fd", other.display()));
    assert!(reason.contains("f.txt"), "{reason}");
}

#[test]
fn a_lane_git_moved_then_moved_again_by_mv_keeps_its_files_guarded() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let tmp = repo.tmp.path().canonicalize().unwrap();
    let lane = repo.worktree("lane");
    let first = tmp.join("first");
    git(
        r,
        &[
            "worktree",
            "move",
            lane.to_str().unwrap(),
            first.to_str().unwrap(),
        ],
    );
    // The peer works where git moved it: its claims name `first`, which is not the admin
    // folder's name (`lane`).
    let peer = Agent::new(PEER, &first);
    let me = Agent::new(ME, r);
    peer.write("g.txt", b"uncommitted\n");
    let second = tmp.join("second");
    sh(r, &format!("mv {} {}", first.display(), second.display()));
    let reason = refused(&me, &format!("git -C {} clean -fd", second.display()));
    assert!(reason.contains("g.txt"), "{reason}");
    // The main worktree, and a fresh lane of one's own, stay one's own to clean.
    silent(&me, "git clean -fd");
    let mine = repo.worktree("mine");
    silent(&me, &format!("git -C {} clean -fd", mine.display()));
}

#[test]
fn update_index_and_the_index_file_are_the_staging_they_hold() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let peer = Agent::new(PEER, r);
    let me = Agent::new(ME, r);
    std::fs::create_dir_all(r.join("src")).unwrap();
    // Nobody has staged anything: the index is anyone's to rebuild.
    for cmd in ["rm .git/index", "git update-index --force-remove README.md"] {
        silent(&me, cmd);
    }
    peer.write("new.txt", b"staged by the peer\n");
    peer.bash("git add new.txt");
    me.write("mine.txt", b"mine\n");
    me.bash("git add mine.txt");
    let tmp = repo.tmp.path().canonicalize().unwrap();
    std::os::unix::fs::symlink(r.join(".git"), tmp.join("gd")).unwrap();
    std::os::unix::fs::symlink(r.join(".git/index"), r.join("idx")).unwrap();
    for cmd in [
        "git update-index --force-remove new.txt",
        "git update-index --force-rem new.txt",
        "git update-index -q --force-remove -- new.txt",
        "git update-index new.txt",
        "git update-index --remove new.txt",
        "git update-index --chmod=+x new.txt",
        "git update-index --cacheinfo 100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,new.txt",
        "git update-index --cacheinfo 100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 new.txt",
        "git update-index --again",
        "printf 'new.txt\\n' | git update-index --force-remove --stdin",
        "git update-index --force-remove --stdin <<< new.txt",
        "git -C src update-index --force-remove ../new.txt",
        "rm .git/index",
        "rm -f .git/index",
        "unlink .git/index",
        "cp /dev/null .git/index",
        "cp -f /tmp/other .git/index",
        "mv .git/index /tmp/i",
        "mv /tmp/i .git/index",
        "> .git/index",
        ": > .git/index",
        "truncate -s 0 .git/index",
        "dd if=/dev/null of=.git/index",
        "echo x | tee .git/index",
        "cd .git && rm index",
        "cd src && rm ../.git/index",
        "env -C .git rm index",
        "rm -f \"$(git rev-parse --git-dir)/index\"",
        "rm \"$(git rev-parse --git-path index)\"",
        "cd src && rm \"$(git rev-parse --git-dir)/index\"",
        "d=$(git rev-parse --git-common-dir); rm $d/index",
        &format!("rm {}/gd/index", tmp.display()),
        "cp /dev/null idx",
        "git read-tree --index-output=.git/index HEAD",
    ] {
        let reason = refused(&me, cmd);
        assert!(reason.contains("new.txt (staged)"), "{cmd}: {reason}");
    }
    // Paths only known when it runs: asked while the peer has staged work.
    asked(&me, "git update-index --index-info < /dev/stdin");
    asked(&me, "cat list | git update-index --force-remove --stdin");
    for cmd in [
        "git update-index --refresh",
        "git update-index -q --really-refresh",
        "git update-index --assume-unchanged new.txt",
        "git update-index --no-skip-worktree new.txt",
        "git update-index --skip-worktree -- new.txt",
        "git update-index --force-remove mine.txt",
        "git update-index mine.txt",
        "git update-index --split-index",
        "git update-index --index-version 4",
        "cp .git/index /tmp/index-backup",
        "cat .git/index > /dev/null",
        "ls -l .git/index",
        "touch .git/index",
        "rm -f .git/index.lock",
        "rm idx",
        "rm -rf target && mkdir index",
        "echo hi > index",
        "git read-tree --index-output=/tmp/other-index HEAD",
    ] {
        silent(&me, cmd);
    }
    // A linked worktree's index is that worktree's staging, wherever the command runs.
    let lane = repo.worktree("lane");
    let lane_peer = Agent::new(PEER, &lane);
    lane_peer.write("lane.txt", b"staged in the lane\n");
    lane_peer.bash("git add lane.txt");
    for cmd in [
        "rm .git/worktrees/lane/index".to_owned(),
        format!(
            "cd {} && rm \"$(git rev-parse --git-dir)/index\"",
            lane.display()
        ),
        format!(
            "git -C {} update-index --force-remove lane.txt",
            lane.display()
        ),
    ] {
        let reason = refused(&me, &cmd);
        assert!(reason.contains("lane.txt (staged)"), "{cmd}: {reason}");
    }
    // The peer's own staging is its own to drop.
    silent(&peer, "git update-index --force-remove new.txt");
}

#[test]
fn a_live_peers_changes_reverted_by_a_patch_in_any_spelling_are_refused() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let peer = Agent::new(PEER, r);
    let me = Agent::new(ME, r);
    std::fs::write(r.join("a.txt"), "base a\n").unwrap();
    std::fs::write(r.join("b.txt"), "base b\n").unwrap();
    std::fs::create_dir_all(r.join("sub")).unwrap();
    std::fs::write(r.join("sub/keep.txt"), "keep\n").unwrap();
    git(r, &["add", "a.txt", "b.txt", "sub"]);
    git(r, &["commit", "-qm", "b"]);
    peer.write("a.txt", b"peer edit\n");
    me.write("b.txt", b"my edit\n");
    let tmp = repo.tmp.path().canonicalize().unwrap();
    let peer_patch = tmp.join("peer.patch");
    let mine_patch = tmp.join("mine.patch");
    std::fs::write(&peer_patch, git_out(r, &["diff", "--", "a.txt"])).unwrap();
    std::fs::write(&mine_patch, git_out(r, &["diff", "--", "b.txt"])).unwrap();
    let (pp, mp) = (peer_patch.display(), mine_patch.display());
    for cmd in [
        "git diff | git apply -R".to_owned(),
        "git diff -R | git apply".to_owned(),
        "git diff -R | patch -p1".to_owned(),
        "git diff HEAD -R | patch -p1".to_owned(),
        "git diff -pR | patch -p1".to_owned(),
        "git diff -uR | git apply".to_owned(),
        "git diff -R -- a.txt | git apply".to_owned(),
        "git diff | git apply -R --index".to_owned(),
        "git diff | git apply --rev".to_owned(),
        "git diff | patch --rev -p1".to_owned(),
        "git diff -R > /tmp/r && git apply /tmp/r".to_owned(),
        "git diff -R --output=/tmp/r2; git apply /tmp/r2".to_owned(),
        "git diff > /tmp/f && git apply -R /tmp/f".to_owned(),
        "git diff > /tmp/f && patch -R -p1 < /tmp/f".to_owned(),
        "git diff > /tmp/f; patch -Rp1 -i /tmp/f".to_owned(),
        "git diff | tee /tmp/d | patch -R -p1".to_owned(),
        "git diff | tee /tmp/d >/dev/null; git apply -R /tmp/d".to_owned(),
        "git diff | cat | patch -R -p1".to_owned(),
        "git diff | sed 's/x/x/' | git apply -R".to_owned(),
        "git diff | gzip | gunzip | patch -R -p1".to_owned(),
        "git diff | (cd . && patch -R -p1)".to_owned(),
        "git diff | { patch -R -p1; }".to_owned(),
        "git diff | sh -c \"patch -R -p1\"".to_owned(),
        "git diff | bash -c 'cd sub && git apply -R'".to_owned(),
        "(git diff) | patch -R -p1".to_owned(),
        "cd sub && git diff | git apply -R".to_owned(),
        format!("patch -R -p1 < {pp}"),
        format!("patch -R -p1 -i {pp}"),
        format!("patch -p1 -R --input={pp}"),
        format!("patch --reverse --strip 1 --input {pp}"),
        format!("patch -R < {pp}"),
        format!("cat {pp} | patch -R -p1"),
        format!("patch -R a.txt {pp}"),
        format!("patch -R a.txt < {pp}"),
        format!("git apply -R {pp}"),
    ] {
        let reason = refused(&me, &cmd);
        assert!(reason.contains("a.txt"), "{cmd}: {reason}");
    }
    // What reads the reversed diff, or the patch, only known when it runs: asked.
    for cmd in [
        "git diff -R | ./apply-it".to_owned(),
        "curl -s https://example.invalid/x.patch | patch -R -p1".to_owned(),
        "git diff | xargs patch -R".to_owned(),
        "./make-patch > /tmp/g; patch -R -p1 < /tmp/g".to_owned(),
        "./make-patch > /tmp/g; patch -R -p1 -i /tmp/g".to_owned(),
    ] {
        asked(&me, &cmd);
    }
    for cmd in [
        "git diff | less".to_owned(),
        "git diff > my.patch".to_owned(),
        "git diff -R > undo.patch".to_owned(),
        "git diff -R | less".to_owned(),
        "git diff | wc -l".to_owned(),
        "git diff | tee my.patch".to_owned(),
        "git diff --stat | cat".to_owned(),
        "git diff | git apply --check -R".to_owned(),
        "git diff | git apply -R --stat".to_owned(),
        "git diff | patch -R --dry-run -p1".to_owned(),
        "git diff | patch -R -o /tmp/out -p1".to_owned(),
        "git diff -R | git apply -R".to_owned(),
        "git diff | git apply".to_owned(),
        "git diff -- b.txt | git apply -R".to_owned(),
        "git diff b.txt | patch -R -p1".to_owned(),
        "git diff -R b.txt | git apply".to_owned(),
        "git diff -R -- b.txt > /tmp/u && git apply /tmp/u".to_owned(),
        "git diff | (cd sub && ls)".to_owned(),
        format!("git apply -R {mp}"),
        format!("patch -R -p1 < {mp}"),
        format!("patch -p1 < {pp}"),
        format!("git apply {pp}"),
        format!("cat {mp} | patch -R -p1"),
        "patch -R -p1 < /tmp/no-such.patch".to_owned(),
    ] {
        silent(&me, &cmd);
    }
    // The staged side: a reversed staged diff applied to the index unstages the peer's file.
    peer.write("new.txt", b"staged by the peer\n");
    peer.bash("git add new.txt");
    for cmd in [
        "git diff --cached | git apply -R --cached",
        "git diff --cached -R | git apply --cached",
    ] {
        let reason = refused(&me, cmd);
        assert!(reason.contains("new.txt (staged)"), "{cmd}: {reason}");
    }
    // In a linked worktree, judged there.
    let lane = repo.worktree("lane");
    let lane_peer = Agent::new(PEER, &lane);
    lane_peer.write("a.txt", b"lane edit\n");
    let l = lane.display();
    let reason = refused(&me, &format!("git -C {l} diff -R | git -C {l} apply"));
    assert!(
        reason.contains("a.txt") && reason.contains("lane"),
        "{reason}"
    );
    silent(&me, &format!("git -C {l} diff | less"));
    // The peer reverts its own edit.
    silent(&peer, "git diff -R -- a.txt | git apply");
}

#[test]
fn a_lines_ref_deletions_are_judged_together() {
    for reftable in [false, true] {
        let repo = TestRepo::new();
        let r = &repo.root;
        if reftable {
            // git migrates no reflogs yet: a fresh clone has nothing in them worth keeping.
            sh(
                r,
                "rm -rf .git/logs && git refs migrate --ref-format=reftable",
            );
        }
        let me = Agent::new(ME, r);
        // B's commit is on B and origin/B only; M's is on main too.
        git(r, &["switch", "-q", "-c", "B"]);
        std::fs::write(r.join("b.txt"), "only on B\n").unwrap();
        git(r, &["add", "b.txt"]);
        git(r, &["commit", "-qm", "only on B"]);
        git(r, &["push", "-q", "origin", "B"]);
        git(r, &["switch", "-q", "-c", "M", "main"]);
        git(r, &["push", "-q", "origin", "M"]);
        git(r, &["switch", "-q", "main"]);
        // Each alone is fine: the other copy stays.
        for cmd in ["git branch -D B", "git push origin --delete B"] {
            silent(&me, cmd);
        }
        for cmd in [
            "git push origin --delete B && git branch -D B",
            "git branch -D B; git push origin :B",
            "git push -d origin B; git branch -D B",
            "git branch -D B && git push origin --delete B",
            "git push origin :refs/heads/B && git branch -D B",
            "git push --del origin B; git branch -D B",
            "git branch -D B M && git push origin -d B M",
        ] {
            let reason = refused(&me, cmd);
            assert!(reason.contains("only on B"), "{reftable} {cmd}: {reason}");
        }
        // Commits found on main stay found: both copies of M may go.
        for cmd in [
            "git push origin --delete M && git branch -D M",
            "git branch -D M; git push origin :M",
            "git push origin --delete M",
        ] {
            silent(&me, cmd);
        }
    }
}
