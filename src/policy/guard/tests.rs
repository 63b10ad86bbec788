//! Table tests for the guard's classification and rules, over hand-built commands and facts.

use std::path::{Path, PathBuf};

use super::*;
use crate::git::{PullRequest, WorktreeEntry};
use crate::protocol::Response;
use crate::shell::{SimpleCommand, Unknown};

pub(super) fn sc(line: &str) -> SimpleCommand {
    let mut assignments = Vec::new();
    let mut argv = Vec::new();
    for w in line.split_whitespace() {
        match w.split_once('=') {
            Some((k, v))
                if argv.is_empty() && k.chars().all(|c| c.is_ascii_uppercase() || c == '_') =>
            {
                assignments.push((k.to_owned(), v.to_owned()));
            }
            _ => argv.push(w.replace('~', " ")),
        }
    }
    SimpleCommand {
        argv,
        assignments,
        cwd: PathBuf::from("/w/repo"),
        cwd_known: true,
        redirects: Vec::new(),
        unknown: None,
        dynamic: Vec::new(),
        input: None,
        stdin: crate::shell::Input::Inherited,
        written: Vec::new(),
        pipe_in: None,
        pipe_out: None,
        stdin_path: None,
        runner: None,
    }
}

pub(super) fn classify_line(line: &str) -> Vec<Guarded> {
    classify(&[sc(line)], &mut |_, _| None)
}

pub(super) fn op(line: &str) -> Option<Op> {
    classify_line(line).into_iter().next().map(|g| g.op)
}

#[test]
fn removing_files_is_judged_against_peers_only() {
    for line in ["rm -f file.txt", "rm file.txt", "mv a b"] {
        assert!(matches!(op(line), Some(Op::Take(_))), "{line}");
    }
}

#[test]
fn everyday_commands_are_not_guarded() {
    for line in [
        "ls -la",
        "cargo test",
        "git status",
        "npm run build",
        "git log --oneline",
        "git diff",
        "echo git branch -D main",
        "grep -r rm~-rf src",
        "git branch -d merged",
        "git branch -D -r origin/x",
        "git push origin main",
        "git push origin :refs/tags/v1",
        "git stash list",
        "git stash pop",
        "git clean -n",
        "git add",
        "git add -n .",
        "git checkout",
        "git update-ref -d refs/tags/v1",
    ] {
        assert!(
            classify_line(line).is_empty(),
            "{line} should not be guarded"
        );
    }
}

#[test]
fn rm_recursive_in_every_spelling() {
    for line in [
        "rm -rf wt",
        "rm -fr wt",
        "rm -r -f wt",
        "rm -R wt",
        "rm --recursive --force wt",
        "/bin/rm -rfv wt",
        "rm -rf -- wt",
    ] {
        assert_eq!(
            op(line),
            Some(Op::RemoveTree {
                paths: vec![PathBuf::from("/w/repo/wt")]
            }),
            "{line}"
        );
    }
}

#[test]
fn branch_deletes() {
    let names = |l| match op(l) {
        Some(Op::BranchDelete { names, .. }) => names,
        other => panic!("{l}: {other:?}"),
    };
    assert_eq!(names("git branch -D a b"), vec!["a", "b"]);
    assert_eq!(names("git branch --delete --force a"), vec!["a"]);
    assert_eq!(names("git branch -d -f a"), vec!["a"]);
    assert_eq!(names("git branch -df a"), vec!["a"]);
    assert_eq!(names("git -C .. --no-pager branch -D a"), vec!["a"]);
    assert_eq!(names("git update-ref -d refs/heads/a"), vec!["a"]);
}

#[test]
fn push_deletes() {
    let del = |l| match op(l) {
        Some(Op::PushDelete { remote, branches }) => (remote, branches),
        other => panic!("{l}: {other:?}"),
    };
    let want = ("origin".to_owned(), vec!["b".to_owned()]);
    assert_eq!(del("git push origin --delete b"), want);
    assert_eq!(del("git push -d origin b"), want);
    assert_eq!(del("git push origin :b"), want);
    assert_eq!(del("git push origin :refs/heads/b"), want);
    assert_eq!(del("git push origin +:b"), want);
    assert_eq!(del("git push -o ci.skip origin :b"), want);
    assert_eq!(del("git push --delete origin refs/heads/b"), want);
}

#[test]
fn bypass_only_with_value_one_on_that_command() {
    assert!(classify_line("WT_GUARD_BYPASS=1 git branch -D a")[0].bypass);
    assert!(!classify_line("WT_GUARD_BYPASS=0 git branch -D a")[0].bypass);
    assert!(!classify_line("WT_GUARD_BYPASS=yes git branch -D a")[0].bypass);
    assert!(!classify_line("OTHER=1 git branch -D a")[0].bypass);
    let two = classify(
        &[sc("WT_GUARD_BYPASS=1 echo hi"), sc("git branch -D a")],
        &mut |_, _| None,
    );
    assert_eq!(two.len(), 1);
    assert!(!two[0].bypass);
}

#[test]
fn unknown_targets() {
    let mut x = sc("rm -rf");
    x.unknown = Some(Unknown::Xargs);
    let g = classify(&[x], &mut |_, _| None);
    assert!(g[0].unknown.as_deref().unwrap().contains("xargs"));
    // A commit message built by $(...) is not a target.
    let mut c = sc("git commit -m $(cat~msg)");
    c.unknown = Some(Unknown::CommandSubstitution);
    assert!(classify(&[c], &mut |_, _| None)[0].unknown.is_none());
    let mut b = sc("git branch -D $(git~branch~--merged)");
    b.unknown = Some(Unknown::CommandSubstitution);
    assert!(classify(&[b], &mut |_, _| None)[0].unknown.is_some());
    let mut v = sc("$CMD -rf wt");
    v.unknown = Some(Unknown::Variable);
    let g = classify(&[v], &mut |_, _| None);
    assert_eq!(g[0].op, Op::Opaque);
    let mut e = sc("echo $HOME");
    e.unknown = Some(Unknown::Variable);
    assert!(classify(&[e], &mut |_, _| None).is_empty());
    let mut cd = sc("git branch -D a");
    cd.cwd_known = false;
    assert!(classify(&[cd], &mut |_, _| None)[0].unknown.is_some());
}

#[test]
fn config_alias_is_expanded() {
    let g = classify(&[sc("git nuke a")], &mut |_, name| {
        (name == "nuke").then(|| "branch -D".to_owned())
    });
    assert_eq!(
        g[0].op,
        Op::BranchDelete {
            names: vec!["a".into()],
            onto: None,
        }
    );
}

pub(super) fn guarded(line: &str) -> Guarded {
    classify_line(line).remove(0)
}

fn wt(root: &str) -> WorktreeState {
    WorktreeState {
        root: PathBuf::from(root),
        head: Some("c0ffee".into()),
        ..WorktreeState::default()
    }
}

fn commit(id: &str) -> CommitInfo {
    CommitInfo {
        id: id.repeat(8),
        summary: "work".into(),
    }
}

#[test]
fn worktree_rules() {
    let dirty = WorktreeState {
        status: vec!["?? notes.txt".into()],
        ..wt("/w/dirty")
    };
    let unpushed = WorktreeState {
        unpushed: vec![commit("a")],
        ..wt("/w/unpushed")
    };
    let husk = WorktreeState {
        husk: true,
        status: vec!["?? x".into()],
        ..wt("/w/husk")
    };
    let clean = wt("/w/clean");
    let facts = |w: &WorktreeState| WorktreeFacts {
        own: None,
        targets: vec![w.root.clone()],
        worktrees: vec![w.clone()],
    };
    let g = guarded("git worktree remove x");
    assert!(
        matches!(evaluate(&g, &Facts::Worktrees(facts(&dirty))), Verdict::Block(f) if f.reason.contains("?? notes.txt") && f.worktrees[0].status == ["?? notes.txt"])
    );
    assert!(
        matches!(evaluate(&g, &Facts::Worktrees(facts(&unpushed))), Verdict::Block(f) if f.reason.contains("aaaaaaaa"))
    );
    assert_eq!(
        evaluate(&g, &Facts::Worktrees(facts(&husk))),
        Verdict::Allow
    );
    assert_eq!(
        evaluate(&g, &Facts::Worktrees(facts(&clean))),
        Verdict::Allow
    );
    let rm = guarded("rm -rf /w");
    let container = WorktreeFacts {
        own: None,
        targets: vec![PathBuf::from("/w")],
        worktrees: vec![clean.clone(), dirty.clone()],
    };
    assert!(
        matches!(evaluate(&rm, &Facts::Worktrees(container)), Verdict::Block(f) if f.reason.contains("/w/dirty") && !f.reason.contains("/w/clean"))
    );
    let deeper = WorktreeFacts {
        own: None,
        targets: vec![PathBuf::from("/w/dirty/src")],
        worktrees: vec![],
    };
    assert_eq!(evaluate(&rm, &Facts::Worktrees(deeper)), Verdict::Allow);
    let find = guarded("find /w -delete");
    let over = WorktreeFacts {
        own: None,
        targets: vec![PathBuf::from("/w")],
        worktrees: vec![dirty.clone()],
    };
    assert!(matches!(
        evaluate(&find, &Facts::Worktrees(over)),
        Verdict::Ask(_)
    ));
    // `find WT -delete` deletes the worktree's own files too.
    let inside = WorktreeFacts {
        own: None,
        targets: vec![PathBuf::from("/w/dirty")],
        worktrees: vec![dirty.clone()],
    };
    assert!(matches!(
        evaluate(&find, &Facts::Worktrees(inside.clone())),
        Verdict::Ask(_)
    ));
    // A name filter that matches none of the uncommitted paths cannot lose work.
    let tmp = guarded("find /w -name *.tmp -delete");
    assert_eq!(
        evaluate(&tmp, &Facts::Worktrees(inside.clone())),
        Verdict::Allow
    );
    let notes = guarded("find /w -name notes.* -delete");
    assert!(matches!(
        evaluate(&notes, &Facts::Worktrees(inside)),
        Verdict::Ask(_)
    ));
}

#[test]
fn worktree_named_by_unique_suffix() {
    let e = |root: &str, main| WorktreeEntry {
        root: PathBuf::from(root),
        git_dir: PathBuf::from("/g"),
        main,
        locked: None,
        husk: false,
    };
    let entries = vec![
        e("/w/repo", true),
        e("/w/a/feat", false),
        e("/w/b/fix", false),
    ];
    let pick = |resolved: &str, t: &str| {
        worktree::pick_worktree(&entries, Path::new(resolved), t).map(|e| e.root.clone())
    };
    assert_eq!(
        pick("/w/a/feat", "../a/feat"),
        Some(PathBuf::from("/w/a/feat"))
    );
    assert_eq!(
        pick("/w/repo/feat", "feat"),
        Some(PathBuf::from("/w/a/feat"))
    );
    assert_eq!(pick("/w/repo/nothing", "nothing"), None);
}

#[test]
fn branch_and_remote_rules() {
    let g = guarded("git branch -D a b");
    let states = vec![
        BranchState {
            name: "a".into(),
            tip: Some("t".into()),
            unpushed: vec![commit("b")],
            detached: false,
            made_by: vec![],
        },
        BranchState {
            name: "b".into(),
            tip: Some("t".into()),
            unpushed: vec![],
            detached: false,
            made_by: vec![],
        },
    ];
    assert!(
        matches!(evaluate(&g, &Facts::Branches(states.clone())), Verdict::Block(f) if f.reason.contains("branch a") && !f.reason.contains("branch b "))
    );
    assert_eq!(
        evaluate(&g, &Facts::Branches(states[1..].to_vec())),
        Verdict::Allow
    );
    let p = guarded("git push origin --delete b");
    let rb = |pr: bool, only: bool| RemoteBranchState {
        remote: "origin".into(),
        branch: "b".into(),
        only_copy: if only { vec![commit("c")] } else { vec![] },
        pr: pr.then(|| PullRequest {
            number: 7,
            url: "https://example.invalid/pr/7".into(),
            state: "OPEN".into(),
        }),
        remote_sessions: Vec::new(),
        unfetched: false,
    };
    assert!(
        matches!(evaluate(&p, &Facts::RemoteBranches(vec![rb(true, false)])), Verdict::Block(f) if f.reason.contains("#7"))
    );
    assert!(
        matches!(evaluate(&p, &Facts::RemoteBranches(vec![rb(false, true)])), Verdict::Block(f) if f.reason.contains("cccccccc"))
    );
    assert_eq!(
        evaluate(&p, &Facts::RemoteBranches(vec![rb(false, false)])),
        Verdict::Allow
    );
    let mut worked_on = rb(false, false);
    worked_on.remote_sessions = vec!["claude session 5f1c2a9e on laptop".into()];
    assert!(
        matches!(evaluate(&p, &Facts::RemoteBranches(vec![worked_on])), Verdict::Block(f) if f.reason.contains("5f1c2a9e on laptop works on"))
    );
}

#[test]
fn decisions_and_messages() {
    let g = guarded("git branch -D a");
    let block = Verdict::Block(Finding::new("test", "git-dibs refused it"));
    let d = decide(&[(g.clone(), block.clone())]);
    match &d.response {
        Response::Deny { reason, person } => {
            assert!(!reason.contains(BYPASS_VAR));
            assert!(person.as_deref().unwrap().contains("WT_GUARD_BYPASS=1"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(d.audit[0].verdict, "block");
    let mut by = g.clone();
    by.bypass = true;
    let d = decide(&[(by, block.clone())]);
    assert_eq!(d.response, Response::Silent);
    assert_eq!(d.audit[0].verdict, "bypass");
    let ask = Verdict::Ask(Finding::new("test", "cannot tell"));
    let d = decide(&[(g.clone(), ask)]);
    assert!(matches!(d.response, Response::Ask { .. }));
    assert_eq!(d.audit[0].verdict, "ask");
    let d = decide(&[(g, Verdict::Allow)]);
    assert_eq!(d.response, Response::Silent);
    assert!(d.audit.is_empty());
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn decide_all(cmds: &[SimpleCommand]) {
        let guarded = classify(cmds, &mut |_, _| Some("branch -D".into()));
        let verdicts: Vec<(Guarded, Verdict)> = guarded
            .into_iter()
            .map(|g| {
                let v = evaluate(&g, &Facts::None);
                (g, v)
            })
            .collect();
        let _ = decide(&verdicts);
    }

    proptest! {
        #[test]
        fn arbitrary_shell_text_never_panics(line in "\\PC{0,160}") {
            if let Ok(cmds) = crate::shell::parse(&line, Path::new("/nonexistent/w")) {
                decide_all(&cmds);
            }
        }

        #[test]
        fn arbitrary_argv_never_panics(
            head in prop::sample::select(vec!["git", "/usr/bin/git", "rm", "find", "eval", "$X"]),
            words in prop::collection::vec("[-a-zA-Z:./+=$()*!^\\[\\]]{0,10}", 0..10),
            unknown in prop::option::of(prop::sample::select(vec![
                Unknown::Xargs, Unknown::Eval, Unknown::Variable, Unknown::CommandSubstitution,
            ])),
        ) {
            let mut cmd = sc("x");
            cmd.argv = std::iter::once(head.to_owned()).chain(words).collect();
            cmd.unknown = unknown;
            decide_all(&[cmd]);
        }
    }
}
