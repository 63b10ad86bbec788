//! The Claude Code plugin in the real CLI: this checkout added as a marketplace, the plugin
//! installed at user scope (a throw-away `HOME` per session), then sessions in a repository that
//! has no git-dibs settings of its own, a `claude -w` worktree session among them. Uninstalling
//! leaves no hook behind.

use std::path::Path;
use std::process::{Command, Output};

use super::api::Step;
use super::guard::unpushed_branch;
use super::scenario::Scenario;
use crate::common;

/// The plugin's full name: plugin `git-dibs` of the marketplace `git-dibs` (this checkout).
const PLUGIN: &str = "git-dibs@git-dibs";

impl Scenario {
    /// `claude ARGS` as the person `name` (the same `HOME` as that session's), offline.
    fn claude_as(&self, name: &str, args: &[&str]) -> Output {
        let home = self.scratch.join(format!("home-{name}"));
        std::fs::create_dir_all(&home).unwrap();
        Command::new(&self.claude)
            .args(args)
            .current_dir(&self.scratch)
            .env("HOME", &home)
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env_remove("CLAUDE_CONFIG_DIR")
            .output()
            .unwrap_or_else(|e| self.fail(&format!("cannot run claude {args:?}: {e}")))
    }

    /// Add this checkout as a marketplace and install the plugin for the person `name`, the way
    /// the README says.
    pub(super) fn install_plugin(&self, name: &str) {
        let checkout = env!("CARGO_MANIFEST_DIR");
        for args in [
            &["plugin", "marketplace", "add", checkout][..],
            &["plugin", "install", PLUGIN],
        ] {
            self.step(&format!("claude {} for {name}", args.join(" ")));
            let out = self.claude_as(name, args);
            self.check(out.status.success(), || {
                format!(
                    "`claude {}` failed ({}): {}{}",
                    args.join(" "),
                    out.status,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                )
            });
        }
    }
}

/// A plugin installed at user scope guards a repository with no settings file: the co-edit
/// warning reaches the model, the guard stops `git branch -D` of an unpushed branch in the main
/// checkout and in a `claude -w` worktree, and after `claude plugin uninstall` no hook runs.
#[test]
fn the_plugin_wires_every_session_of_its_user() {
    let s = Scenario::new("plugin");
    let root = s.repo.root.clone();
    for who in ["a", "b", "w", "after"] {
        s.install_plugin(who);
    }
    s.check(!root.join(".claude/settings.json").exists(), || {
        "the repository must have no settings file of its own".into()
    });
    unpushed_branch(&root, "only-here");
    // `claude -w` starts its worktree from origin/HEAD.
    common::git(&root, &["remote", "set-head", "origin", "main"]);
    let lib = root.join("src/lib.rs");
    let release = s.flag("b-done");
    let (ma, mb) = ("[e2e:plugin-a]", "[e2e:plugin-b]");

    s.step("A holds src/lib.rs through the plugin's hooks");
    let a_work = vec![
        Step::read(&lib),
        Step::edit(&lib, "pub fn a() {}", "pub fn a() {}\npub fn from_a() {}"),
    ];
    let (a, a_id) = s.start_holding("a", ma, &root, a_work, &release, "add from_a");
    s.api.script(
        mb,
        vec![
            Step::read(&lib),
            Step::edit(&lib, "pub fn a() {}", "pub fn a() { /* b */ }"),
            Step::bash("git branch -D only-here"),
            Step::Text("done".into()),
        ],
    );
    let b = s.start("b", &root, &format!("{mb} touch a"));
    s.finish(b);
    std::fs::write(&release, "").unwrap();
    s.finish(a);

    s.step("B's model was told that A holds src/lib.rs");
    let texts = s.api.system_texts(mb);
    let short = &a_id[..8];
    s.check(
        texts.iter().any(|t| {
            t.starts_with("PreToolUse:Edit hook additional context:")
                && t.contains(short)
                && t.contains("src/lib.rs")
        }),
        || format!("no co-edit warning naming {short} reached B's model: {texts:?}"),
    );
    s.step("the guard refused B's `git branch -D` of the unpushed branch");
    s.refused(mb, 2, &["git-dibs"]);
    s.check(branch_exists(&root, "only-here"), || {
        "branch only-here was deleted".into()
    });

    s.step("a `claude -w` session is guarded by the same plugin");
    let mw = "[e2e:plugin-w]";
    s.api.script(
        mw,
        vec![
            Step::bash("git branch -D only-here"),
            Step::Text("done".into()),
        ],
    );
    let prompt = format!("{mw} drop the branch");
    let w = s.start_with("w", &root, &["-w", "plugin-wt", "-p", &prompt]);
    s.finish(w);
    s.check(root.join(".claude/worktrees/plugin-wt").is_dir(), || {
        "claude -w made no worktree at .claude/worktrees/plugin-wt".into()
    });
    s.refused(mw, 0, &["git-dibs"]);
    s.check(branch_exists(&root, "only-here"), || {
        "the -w session deleted branch only-here".into()
    });

    s.step("after `claude plugin uninstall` no git-dibs hook runs");
    let out = s.claude_as("after", &["plugin", "uninstall", PLUGIN]);
    s.check(out.status.success(), || {
        format!(
            "`claude plugin uninstall` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let settings = s.scratch.join("home-after/.claude/settings.json");
    let text = std::fs::read_to_string(&settings).unwrap_or_default();
    s.check(!text.contains("\"git-dibs@git-dibs\": true"), || {
        format!("the plugin is still enabled: {text}")
    });
    let ms = "[e2e:plugin-after]";
    s.api.script(
        ms,
        vec![
            Step::bash("git branch -D only-here"),
            Step::Text("done".into()),
        ],
    );
    let after = s.start("after", &root, &format!("{ms} drop the branch"));
    let done = s.finish(after);
    s.check(!branch_exists(&root, "only-here"), || {
        "without the plugin the branch should have been deleted (no guard left)".into()
    });
    s.check(s.store_session(&done.session_id).is_none(), || {
        "a hook recorded the session after the plugin was uninstalled".into()
    });
}

/// Fail unless the tool call `step` of `marker`'s script came back as a refusal by git-dibs.
fn branch_exists(root: &Path, name: &str) -> bool {
    common::git_command(root)
        .args(["rev-parse", "--verify", "-q", &format!("refs/heads/{name}")])
        .output()
        .unwrap()
        .status
        .success()
}

/// With the plugin installed but no `git-dibs` on PATH, the session is told why and what to do
/// (the person in a systemMessage, the model in additionalContext), and the Bash guard's
/// handler, failing closed, stops shell commands instead of letting them through unguarded.
#[test]
fn a_missing_binary_is_said_at_session_start_and_shell_commands_are_stopped() {
    let s = Scenario::new("plugin without binary");
    let root = s.repo.root.clone();
    s.install_plugin("a");
    let bin_dir = common::bin().parent().unwrap().to_path_buf();
    let path: Vec<String> = std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .filter(|d| !d.is_empty() && !Path::new(d).join("git-dibs").exists())
        .filter(|d| Path::new(d) != bin_dir)
        .map(str::to_owned)
        .collect();
    let path = path.join(":");
    let marker = "[e2e:plugin-missing]";
    let flag = s.flag("ran");
    s.api.script(
        marker,
        vec![
            Step::bash(&format!("touch '{}'", flag.display())),
            Step::Text("done".into()),
        ],
    );
    let prompt = format!("{marker} touch a file");
    let session = s.start_with_path("a", &root, &["-p", &prompt], &path);
    let done = s.finish(session);
    s.step("the model was told git-dibs is missing and how to install it");
    let texts = s.api.system_texts(marker);
    s.check(
        texts.iter().any(|t| {
            t.contains("git-dibs program is not installed") && t.contains("cargo install")
        }),
        || format!("no missing-binary notice reached the model: {texts:?}"),
    );
    s.step("the host took the person's systemMessage from the SessionStart answer");
    let answered = done.events.iter().any(|e| {
        e["subtype"] == "hook_response"
            && e["hook_event"] == "SessionStart"
            && e["outcome"] == "success"
            && e["output"]
                .as_str()
                .is_some_and(|o| o.contains("\"systemMessage\":\"git-dibs plugin:"))
    });
    s.check(answered, || {
        "no successful SessionStart answer with the systemMessage".into()
    });
    s.step("the shell command was stopped, not run unguarded");
    s.check(!flag.exists(), || {
        "the Bash command ran although the guard could not start".into()
    });
}
