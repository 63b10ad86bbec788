//! Scenarios of the hosts' own parallelism in the real Claude Code: sub-agents launched by the
//! Agent tool (two in one answer, running at once) are peers of each other and of their main
//! thread, and the host's `ExitWorktree` cannot discard work.

use serde_json::Value;

use super::api::Step;
use super::scenario::{Scenario, hold_command, wait_command as wait_for};

/// Two sub-agents launched in one answer edit one file: the second is told, naming the first
/// as a sub-agent of this session; the edits both happen.
#[test]
fn two_parallel_sub_agents_on_one_file() {
    let s = Scenario::new("sub-agents co-editing");
    let root = s.repo.root.clone();
    s.wire_hooks(&root);
    let lib = root.join("src/lib.rs");
    let (m, a, b) = ("[e2e:subs-main]", "[e2e:sub-a]", "[e2e:sub-b]");
    let a_holds = s.flag("a-holds");
    let release = s.flag("release");
    let env_a = s.flag("env-a");
    s.api.script(
        m,
        vec![
            Step::Tools(vec![
                Step::agent("A", &format!("{a} add from_a"), "general-purpose"),
                Step::agent("B", &format!("{b} add from_b"), "general-purpose"),
            ]),
            Step::bash(&format!(
                "env > '{}' && {}",
                s.flag("env-main").display(),
                wait_for(&release, 80)
            )),
            Step::Text("done".into()),
        ],
    );
    s.api.script(
        a,
        vec![
            Step::read(&lib),
            Step::edit(&lib, "pub fn a() {}", "pub fn a() {}\npub fn from_a() {}"),
            Step::bash(&format!(
                "env > '{}' && {}",
                env_a.display(),
                hold_command(&a_holds, &release, 80)
            )),
            Step::Text("A done".into()),
        ],
    );
    s.api.script(
        b,
        vec![
            Step::bash(&wait_for(&a_holds, 60)),
            Step::read(&lib),
            Step::edit(&lib, "pub fn a() {}", "pub fn a() {}\npub fn from_b() {}"),
            Step::Text("B done".into()),
        ],
    );
    let mut main = s.start("main", &root, &format!("{m} two helpers"));
    let id = s.session_id_of(&mut main);
    s.step("B is told that sub-agent A of this session holds src/lib.rs");
    s.wait_on(&mut main, "B's warning", || {
        s.api
            .system_texts(b)
            .iter()
            .any(|t| t.contains("also holds src/lib.rs"))
    });
    let told = s.api.system_texts(b).join("\n");
    std::fs::write(&release, "").unwrap();
    let done = s.finish(main);
    let _ = done;
    s.check(
        told.contains("of this session also holds src/lib.rs"),
        || format!("B's warning does not say whose: {told}"),
    );
    s.check(told.contains("sub-agent general-purpose"), || {
        format!("B's warning does not name a sub-agent: {told}")
    });
    let text = std::fs::read_to_string(&lib).unwrap();
    s.check(text.contains("from_a") && text.contains("from_b"), || {
        format!("both edits should have happened: {text}")
    });
    s.step("a sub-agent's shell environment is its main thread's");
    // Documented in the README: nothing in a sub-agent's Bash environment tells it from the
    // main thread (same CLAUDE_CODE_SESSION_ID), so the pre-commit hook cannot either.
    let env_sub = std::fs::read_to_string(&env_a).unwrap_or_default();
    let env_main = std::fs::read_to_string(s.flag("env-main")).unwrap_or_default();
    let vars = |text: &str| -> std::collections::BTreeSet<String> {
        text.lines()
            .filter(|l| !l.starts_with("PWD=") && !l.starts_with("OLDPWD=") && !l.starts_with("_="))
            .map(str::to_owned)
            .collect()
    };
    s.check(
        env_sub.contains(&format!("CLAUDE_CODE_SESSION_ID={id}")),
        || format!("the sub-agent's shell does not carry the session id: {env_sub}"),
    );
    let (vm, vs) = (vars(&env_main), vars(&env_sub));
    s.check(vm == vs, || {
        format!(
            "a sub-agent's shell environment now differs from the main thread's (use it in the \
             pre-commit hook): only main {:?}, only sub-agent {:?}",
            vm.difference(&vs).collect::<Vec<_>>(),
            vs.difference(&vm).collect::<Vec<_>>()
        )
    });
    let records = s.store_sessions();
    let subs: Vec<&Value> = records
        .iter()
        .filter(|r| r["sub_agent"].is_object())
        .collect();
    s.check(subs.len() == 2, || {
        format!("two sub-agent records: {records:?}")
    });
    s.check(
        subs.iter()
            .all(|r| r["ended"].is_u64() && r["files"] == serde_json::json!([])),
        || format!("stopped sub-agents hold nothing: {records:?}"),
    );
}

/// A sub-agent's `git add -A` is refused over its live sibling's uncommitted file (its own file
/// by explicit path passes); the main thread's sweep is refused while a sub-agent works and
/// goes through once both stopped, committing what they left.
#[test]
fn sweeps_wait_for_live_sub_agents() {
    let s = Scenario::new("sub-agents and sweeps");
    let root = s.repo.root.clone();
    s.wire_hooks(&root);
    let (lib, readme) = (root.join("src/lib.rs"), root.join("README.md"));
    let (m, a, b) = ("[e2e:sweep-main]", "[e2e:sweep-a]", "[e2e:sweep-b]");
    let (a_holds, release_a, b_done) = (s.flag("a-holds"), s.flag("release-a"), s.flag("b-done"));
    s.api.script(
        a,
        vec![
            Step::read(&lib),
            Step::edit(&lib, "pub fn a() {}", "pub fn a() {}\npub fn from_a() {}"),
            Step::bash(&hold_command(&a_holds, &release_a, 80)),
            Step::Text("A done".into()),
        ],
    );
    s.api.script(
        b,
        vec![
            Step::bash(&wait_for(&a_holds, 60)),
            Step::read(&readme),
            Step::edit(&readme, "# test", "# test\n\nfrom b"),
            Step::bash("git add -A"),
            Step::bash("git add README.md"),
            Step::bash(&format!("touch '{}'", b_done.display())),
            Step::Text("B done".into()),
        ],
    );
    let no_sub_agents = "for i in $(seq 1200); do git dibs status --json | grep -q '\"sub_agents\"' \
                         || break; sleep 0.05; done";
    s.api.script(
        m,
        vec![
            Step::Tools(vec![
                Step::agent("A", &format!("{a} add from_a"), "general-purpose"),
                Step::agent("B", &format!("{b} edit the readme"), "general-purpose"),
            ]),
            Step::bash(&wait_for(&b_done, 80)),
            Step::bash("git add -A"),
            Step::bash(&format!(
                "touch '{}' && {no_sub_agents}",
                release_a.display()
            )),
            Step::bash("git add -A && git commit -qm 'both helpers'"),
            Step::Text("done".into()),
        ],
    );
    let main = s.start("main", &root, &format!("{m} two helpers, then commit"));
    s.finish(main);
    s.step("B's `git add -A` was refused over A's file, naming A");
    s.refused(
        b,
        3,
        &["sub-agent general-purpose", "of this session", "src/lib.rs"],
    );
    s.step("B's own file by explicit path went through");
    s.allowed(b, 4);
    s.step("the main thread's sweep was refused while A worked");
    s.refused(m, 2, &["sub-agent general-purpose", "src/lib.rs"]);
    s.step("after both stopped, the main thread's sweep and commit went through");
    s.allowed(m, 4);
    let files = crate::common::git_out(&root, &["show", "--name-only", "--format=%s", "HEAD"]);
    s.check(
        files.contains("both helpers")
            && files.contains("README.md")
            && files.contains("src/lib.rs"),
        || format!("the commit should hold both helpers' files: {files}"),
    );
}

/// A `claude -w` session under the default install (the user-scope plugin): `ExitWorktree`
/// with `discard_changes` over uncommitted work and an unpushed commit is stopped, the reason
/// reaches the model and the worktree and its branch stay; a clean, pushed worktree is exited
/// and removed without a word.
#[test]
fn exit_worktree_cannot_discard_work() {
    let s = Scenario::new("ExitWorktree");
    let root = s.repo.root.clone();
    for who in ["dirty", "clean"] {
        s.install_plugin(who);
    }
    // `claude -w` starts its worktree from origin/HEAD.
    crate::common::git(&root, &["remote", "set-head", "origin", "main"]);
    let md = "[e2e:exit-dirty]";
    s.api.script(
        md,
        vec![
            Step::bash("echo wip > notes.md && echo 'pub fn w() {}' > src/w.rs && git add src/w.rs && git commit -qm 'half of the fix'"),
            Step::tool("ExitWorktree", serde_json::json!({"action": "remove", "discard_changes": true})),
            Step::Text("done".into()),
        ],
    );
    let prompt = format!("{md} give up");
    let dirty = s.start_with("dirty", &root, &["-w", "dirty-wt", "-p", &prompt]);
    s.finish(dirty);
    let wt = root.join(".claude/worktrees/dirty-wt");
    s.step("the ExitWorktree call was stopped and the model told why");
    let reason = s.refused(md, 1, &["ExitWorktree", "notes.md", "half of the fix"]);
    s.check(reason.contains("[guard:exit-worktree]"), || reason.clone());
    s.step("the worktree, its uncommitted file and its branch are still there");
    s.check(wt.join("notes.md").is_file(), || {
        format!("{} lost notes.md", wt.display())
    });
    let branches = crate::common::git_out(&root, &["branch", "--list", "worktree-dirty-wt"]);
    s.check(!branches.trim().is_empty(), || {
        "branch worktree-dirty-wt is gone".into()
    });
    s.step("the refusal is in the audit log");
    let audit = std::fs::read_to_string(s.repo.store_dir().join("audit.log")).unwrap_or_default();
    s.check(audit.contains("exit-worktree"), || {
        format!("not audited: {audit}")
    });

    let mc = "[e2e:exit-clean]";
    s.api.script(
        mc,
        vec![
            Step::tool(
                "ExitWorktree",
                serde_json::json!({"action": "remove", "discard_changes": true}),
            ),
            Step::Text("done".into()),
        ],
    );
    let prompt = format!("{mc} nothing to do");
    let clean = s.start_with("clean", &root, &["-w", "clean-wt", "-p", &prompt]);
    let done = s.finish(clean);
    s.step("a clean, pushed worktree is exited and removed silently");
    s.allowed(mc, 0);
    s.check(!root.join(".claude/worktrees/clean-wt").exists(), || {
        "the clean worktree was not removed".into()
    });
    s.check(
        done.informational().iter().all(|t| !t.contains("git-dibs")),
        || format!("git-dibs said something: {:?}", done.informational()),
    );
}
