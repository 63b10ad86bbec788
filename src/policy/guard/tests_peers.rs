//! Table tests for rule 5 (a live peer's uncommitted files): classification of the git
//! commands that take or discard files, and the verdicts over hand-built peer facts.

use std::path::PathBuf;

use super::tests::{classify_line, guarded, op, sc};
use super::*;
use crate::git::FileState;
use crate::shell::Unknown;

fn takes(l: &str) -> Vec<Take> {
    match op(l) {
        Some(Op::Take(t)) => t,
        other => panic!("{l}: {other:?}"),
    }
}

#[test]
fn peer_commands_classify() {
    let t = takes("git add -A");
    assert!(t[0].tracked && t[0].untracked && t[0].paths.is_none());
    let t = takes("git add -u");
    assert!(t[0].tracked && !t[0].untracked);
    assert_eq!(takes("git add .")[0].paths, Some(vec![".".to_owned()]));
    let t = takes("git commit -am msg");
    assert!(t[0].tracked && t[0].paths.is_none());
    let t = takes("git commit -m msg");
    assert!(t[0].staged_only && !t[0].tracked);
    let t = takes("git commit -uall -m msg");
    assert!(t[0].staged_only, "-uall is not -a");
    let t = takes("git commit -m msg -- a.rs");
    assert_eq!(t[0].paths, Some(vec!["a.rs".to_owned()]));
    assert!(takes("git stash -u")[0].untracked);
    assert!(!takes("git stash")[0].untracked);
    assert_eq!(
        takes("git stash push -m wip -- a.rs")[0].paths,
        Some(vec!["a.rs".to_owned()])
    );
    assert!(takes("git reset --hard")[0].tracked);
    assert_eq!(
        takes("git checkout -- .")[0].paths,
        Some(vec![".".to_owned()])
    );
    assert_eq!(
        takes("git restore a.rs")[0].paths,
        Some(vec!["a.rs".to_owned()])
    );
    let t = takes("git clean -fdx");
    assert!(t[0].untracked && !t[0].tracked && t[0].prefix_default);
    assert_eq!(op("git switch main"), Some(Op::Switch));
    // From HEAD, a new branch leaves every file as it is; from another start point it does not.
    assert_eq!(op("git checkout -b x"), None);
    assert_eq!(op("git switch -c x"), None);
    assert_eq!(op("git checkout -b x origin/main"), Some(Op::Switch));
    assert_eq!(op("git switch -c x origin/main"), Some(Op::Switch));
    assert_eq!(op("git checkout -"), Some(Op::Switch));
    assert_eq!(
        op("git checkout main"),
        Some(Op::Checkout {
            first: "main".into(),
            rest: vec![]
        })
    );
}

fn fs(path: &str, x: char, y: char) -> FileState {
    FileState {
        path: path.into(),
        index: x,
        worktree: y,
    }
}

fn peer_facts(mine: &[&str]) -> PeerFacts {
    PeerFacts {
        root: PathBuf::from("/w/repo"),
        branch: Some("main".into()),
        prefix: String::new(),
        peers: vec![Peer {
            name: "claude session bbbbbbbb".into(),
            files: vec![
                fs("src/lib.rs", ' ', 'M'),
                fs("notes.txt", '?', '?'),
                fs("staged.rs", 'M', ' '),
            ],
        }],
        mine: mine.iter().map(|s| s.to_string()).collect(),
        first_is_rev: false,
        same_commit: false,
        wiring: Vec::new(),
    }
}

fn peer_verdict(line: &str, facts: &PeerFacts) -> Verdict {
    evaluate(&guarded(line), &Facts::Peers(facts.clone()))
}

#[test]
fn peer_rules() {
    let f = peer_facts(&["src/lib.rs"]);
    let blocked = |l: &str, f: &PeerFacts| matches!(peer_verdict(l, f), Verdict::Block(_));
    for line in [
        "git add -A",
        "git add .",
        "git add --all",
        "git add -u",
        "git add notes.txt",
        "git add src",
        "git commit -a -m x",
        "git commit -m x",
        "git stash",
        "git stash -u",
        "git reset --hard",
        "git checkout -- .",
        "git checkout .",
        "git restore staged.rs",
        "git clean -fd",
        "git switch other",
        "git checkout -b other origin/other",
    ] {
        assert!(blocked(line, &f), "{line} should be refused");
    }
    for line in [
        "git add src/lib.rs",
        "git add ./src/lib.rs",
        "git add mine.rs",
        "git restore mine.rs",
        "git stash push -- mine.rs",
        "git commit -m x -- src/lib.rs",
    ] {
        assert_eq!(peer_verdict(line, &f), Verdict::Allow, "{line} should pass");
    }
    // Sweeps count a file the peer holds even when the session holds it too.
    let v = peer_verdict("git add -A", &f);
    assert!(
        matches!(&v, Verdict::Block(x) if x.reason.contains("src/lib.rs (modified)") && x.reason.contains("notes.txt (untracked)") && x.reason.contains("bbbbbbbb"))
    );
    // -u and stash without -u leave untracked files alone; clean only takes untracked ones.
    let only_untracked = PeerFacts {
        peers: vec![Peer {
            name: "p".into(),
            files: vec![fs("notes.txt", '?', '?')],
        }],
        ..f.clone()
    };
    assert_eq!(peer_verdict("git add -u", &only_untracked), Verdict::Allow);
    assert_eq!(peer_verdict("git stash", &only_untracked), Verdict::Allow);
    assert!(blocked("git stash -u", &only_untracked));
    assert!(blocked("git clean -f", &only_untracked));
    let only_modified = PeerFacts {
        peers: vec![Peer {
            name: "p".into(),
            files: vec![fs("src/lib.rs", ' ', 'M')],
        }],
        ..f.clone()
    };
    assert_eq!(
        peer_verdict("git clean -fdx", &only_modified),
        Verdict::Allow
    );
    assert_eq!(
        peer_verdict("git commit -m x", &only_modified),
        Verdict::Allow
    );
    // In a subfolder, `.` means that folder.
    let sub = PeerFacts {
        prefix: "docs".into(),
        ..f.clone()
    };
    assert_eq!(peer_verdict("git add .", &sub), Verdict::Allow);
    assert!(blocked("git add :/", &sub));
    assert!(blocked("git add ..", &sub));
    // No live peer: nothing applies.
    let alone = PeerFacts {
        peers: vec![],
        ..f.clone()
    };
    for line in [
        "git add -A",
        "git reset --hard",
        "git switch x",
        "git clean -fdx",
    ] {
        assert_eq!(peer_verdict(line, &alone), Verdict::Allow, "{line}");
    }
    // `git checkout X` is a switch when X is a commit, paths otherwise.
    let rev = PeerFacts {
        first_is_rev: true,
        same_commit: false,
        ..f.clone()
    };
    assert!(blocked("git checkout main", &rev));
    assert!(blocked("git checkout main src", &rev));
    assert_eq!(
        peer_verdict("git checkout main mine.rs", &rev),
        Verdict::Allow
    );
}

#[test]
fn unknown_peer_ops_ask_only_with_live_peers() {
    let mut x = sc("git add");
    x.unknown = Some(Unknown::Xargs);
    let g = classify(&[x], &mut |_, _| None).remove(0);
    assert!(matches!(
        evaluate(&g, &Facts::Peers(peer_facts(&[]))),
        Verdict::Ask(_)
    ));
    assert_eq!(
        evaluate(&g, &Facts::Peers(PeerFacts::default())),
        Verdict::Allow
    );
    let mut r = sc("rm -rf");
    r.unknown = Some(Unknown::Xargs);
    let g = classify(&[r], &mut |_, _| None).remove(0);
    assert!(
        matches!(evaluate(&g, &Facts::None), Verdict::Ask(f) if !f.reason.contains(BYPASS_VAR))
    );
}

#[test]
fn the_index_family_reverts_only_what_it_reverts() {
    let f = peer_facts(&[]);
    let reason = |l: &str| match peer_verdict(l, &f) {
        Verdict::Block(x) => x.reason,
        other => panic!("{l}: {other:?}"),
    };
    // `reset --merge`, `read-tree -um`, `--abort` revert staged files only.
    for line in [
        "git reset --merge",
        "git read-tree -um HEAD",
        "git merge --abort",
    ] {
        let r = reason(line);
        assert!(
            r.contains("staged.rs") && !r.contains("src/lib.rs"),
            "{line}: {r}"
        );
    }
    // `rebase --abort` is a hard reset; `git mv -f` writes over its destination.
    assert!(reason("git rebase --abort").contains("src/lib.rs"));
    assert!(reason("git mv -f mine.rs notes.txt").contains("notes.txt"));
    // Unstaging loses what is staged, and only that; a two-tree merge into the worktree too.
    for line in ["git reset", "git read-tree HEAD", "git read-tree -m -u A B"] {
        let r = reason(line);
        assert!(
            r.contains("staged.rs") && !r.contains("src/lib.rs"),
            "{line}: {r}"
        );
    }
    assert!(reason("git reset").contains("unstage"));
    // `--soft` keeps the index and the files: only the branch moves (the branch rule's).
    let soft = super::tests::classify_line("git reset --soft HEAD^");
    assert!(
        matches!(soft.as_slice(), [g] if matches!(&g.op, Op::BranchDelete { names, onto: Some(o) } if names == &["HEAD"] && o == "HEAD^")),
        "{soft:?}"
    );
    // A wiring file only in the worktree is git-dibs's own: refused as self-protection.
    let wired = PeerFacts {
        peers: Vec::new(),
        wiring: vec![fs(".claude/settings.json", '?', '?')],
        ..f.clone()
    };
    let v = peer_verdict("git clean -fd", &wired);
    assert!(
        matches!(&v, Verdict::Block(x) if x.rule == "self-protect" && x.reason.contains("?? .claude/settings.json")),
        "{v:?}"
    );
    assert_eq!(peer_verdict("git stash", &wired), Verdict::Allow);
}

/// `git pull`/`merge`/`rebase` stash first when git config says so (red-team 2/09): judged once
/// the config is read, refused like `git stash` over a live peer's tracked changes.
#[test]
fn autostash_by_config() {
    // Among the line's guarded operations (`rebase -i` also moves the branch).
    let auto = |l: &str| {
        classify_line(l).into_iter().find_map(|g| match g.op {
            Op::Autostash { rebase } => Some(rebase),
            _ => None,
        })
    };
    assert_eq!(auto("git pull"), Some(None));
    assert_eq!(auto("git pull -q origin main"), Some(None));
    assert_eq!(auto("git pull --rebase"), Some(Some(true)));
    assert_eq!(auto("git pull --rebase=merges"), Some(Some(true)));
    assert_eq!(auto("git pull --rebase --no-rebase"), Some(Some(false)));
    assert_eq!(auto("git pull --ff-only"), Some(Some(false)));
    assert_eq!(auto("git rebase origin/main"), Some(Some(true)));
    assert_eq!(auto("git rebase -i HEAD~3"), Some(Some(true)));
    assert_eq!(auto("git merge topic"), Some(Some(false)));
    for line in [
        "git pull --no-autostash",
        "git rebase --continue",
        "git rebase --skip",
        "git merge --quit",
        "git fetch",
    ] {
        assert_eq!(auto(line), None, "{line}");
    }
    assert!(matches!(op("git pull --autostash"), Some(Op::Take(_))));
    let f = peer_facts(&[]);
    let with = |key: &str, f: &PeerFacts| {
        evaluate(
            &guarded("git pull"),
            &Facts::Autostash {
                key: key.into(),
                peers: f.clone(),
            },
        )
    };
    match with("rebase.autoStash", &f) {
        Verdict::Block(b) => {
            assert!(
                b.reason
                    .contains("with rebase.autoStash set, it would stash"),
                "{}",
                b.reason
            );
            assert!(b.reason.contains("src/lib.rs") && b.reason.contains("staged.rs"));
            assert!(!b.reason.contains("notes.txt"), "untracked: not stashed");
            assert!(b.reason.contains("--no-autostash"), "{}", b.reason);
        }
        other => panic!("{other:?}"),
    }
    // Nothing of a peer's tracked: nothing to stash.
    let mut untracked_only = f.clone();
    untracked_only.peers[0].files.retain(|x| x.untracked());
    assert_eq!(with("merge.autoStash", &untracked_only), Verdict::Allow);
    // Not set (no facts gathered): silent.
    assert_eq!(evaluate(&guarded("git pull"), &Facts::None), Verdict::Allow);
}

/// Files written back from history by a pipeline (red-team 2/12): taken like `git checkout --
/// PATHS` over the files they write.
#[test]
fn history_written_back_by_pipelines() {
    let taken = |line: &str| -> Option<Vec<String>> {
        let cmds = crate::shell::parse(line, Path::new("/w/repo")).unwrap();
        classify(&cmds, &mut |_, _| None)
            .into_iter()
            .find_map(|g| match g.op {
                // Not an extraction's "may write over" (asked where a peer holds files).
                Op::Take(t) if t[0].maybe.is_none() => Some((g.display, t)),
                _ => None,
            })
            .map(|(d, t)| {
                assert!(t[0].tracked, "{line}");
                let mut v = vec![d];
                v.extend(t[0].paths.clone().unwrap_or_default());
                v
            })
    };
    assert_eq!(
        taken("git archive HEAD | tar -x").unwrap(),
        ["git archive HEAD | tar -x", ":(literal)/w/repo"]
    );
    assert_eq!(
        taken("git archive --prefix=sub/ HEAD a.txt | gzip -dc | tar xf - -C /w").unwrap()[1..],
        [":(literal)/w/sub/a.txt"]
    );
    assert_eq!(
        taken("git show HEAD~2:src/a.rs > src/a.rs").unwrap(),
        [
            "git show HEAD~2:src/a.rs > src/a.rs",
            ":(literal)/w/repo/src/a.rs"
        ]
    );
    assert_eq!(
        taken("git show main:a.txt | tee a.txt b.txt >/dev/null").unwrap()[1..],
        [":(literal)/w/repo/a.txt", ":(literal)/w/repo/b.txt"]
    );
    assert!(taken("git cat-file blob HEAD:a.txt > a.txt").is_some());
    assert!(taken("cd sub && git cat-file -p HEAD:./a > a").is_some());
    for line in [
        "git archive -o out.tar HEAD",
        "git archive HEAD | tar -t",
        "git archive HEAD | tar -xk",
        "git archive HEAD | tar -x -f other.tar",
        "git archive HEAD > out.tar",
        "git archive HEAD | ssh host tar -x",
        "git show HEAD:a.txt",
        "git show HEAD:a.txt | less",
        "git show HEAD:a.txt >> a.txt",
        "git show HEAD:a.txt | tee -a a.txt",
        "git show HEAD > a.patch",
        "git cat-file -t HEAD:a.txt > kind",
        "git archive HEAD; tar -x",
    ] {
        assert_eq!(taken(line), None, "{line}");
    }
}

/// `git sparse-checkout set/add/reapply/init` takes from the worktree the files outside its
/// patterns whose copy matches the index: a peer's staged file among them (red-team 2).
#[test]
fn sparse_checkout_takes_staged_files() {
    for line in [
        "git sparse-checkout set src",
        "git sparse-checkout add docs",
        "git sparse-checkout reapply",
        "git sparse-checkout init --cone",
    ] {
        let t = takes(line);
        assert!(
            t[0].staged_only && !t[0].tracked && !t[0].untracked,
            "{line}"
        );
    }
    for line in [
        "git sparse-checkout list",
        "git sparse-checkout disable",
        "git sparse-checkout check-rules",
    ] {
        assert_eq!(op(line), None, "{line}");
    }
    let f = peer_facts(&[]);
    match peer_verdict("git sparse-checkout set src", &f) {
        Verdict::Block(b) => {
            assert!(b.reason.contains("staged.rs"), "{}", b.reason);
            assert!(!b.reason.contains("notes.txt"), "{}", b.reason);
        }
        other => panic!("{other:?}"),
    }
}
