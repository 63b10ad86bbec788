//! The Bash guard's orchestration for `git dibs hook` and `git dibs check`: parse the command
//! line, stop at once when nothing in it is guarded (no repository or store is opened for `ls`
//! or `cargo test`), gather the facts each guarded command needs, let the pure policy decide,
//! write the audit log. It fails closed: an unreadable line that may reach a guarded operation,
//! or facts that cannot be established, are put to the person.

mod exit;
mod facts;
mod gh;
mod ignored;
mod peers;
mod reach;
mod worktrees;

use std::path::Path;

use anyhow::{Context as _, Result};
use serde::Serialize;

use crate::git::{self, GitInvocation};
use crate::policy::guard::{self, Facts, Guarded, Op, Verdict};
use crate::protocol::{Event, Response};
use crate::shell;
use crate::store::Store;
pub(crate) use exit::before_exit;
use facts::{SCAN_DEPTH, SCAN_ENTRIES, gather};

/// The guard's answer for one command line, with what decided it.
pub(crate) struct Judgement {
    /// The answer to the host.
    pub(crate) response: Response,
    /// The parsed command line, when it could be parsed.
    pub(crate) cmds: Option<Vec<shell::SimpleCommand>>,
    /// Each guarded command with its verdict and the facts used.
    pub(crate) items: Vec<Item>,
    /// Whether a guarded command of the line may remove or rewrite files in a working tree
    /// without `WT_GUARD_BYPASS=1` in front (a scan left unfinished is then asked about).
    pub(crate) touches_files: bool,
}

/// One guarded command as `git dibs check` shows it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Item {
    /// The command as shown in messages.
    pub(crate) command: String,
    /// `allow`, `block` or `ask`.
    pub(crate) verdict: &'static str,
    /// The rule that decided, when it was not an allow.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) rule: Option<&'static str>,
    /// The reason given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    /// `WT_GUARD_BYPASS=1` leads it.
    pub(crate) bypass: bool,
    /// The facts the decision rests on, one line each (paths, commits, peers).
    pub(crate) facts: Vec<String>,
}

/// Judge the command line of a `Bash` tool call. `record`: write the audit log and keep
/// retention refs (the hook); `git dibs check` judges the same way without writing.
pub(crate) fn judge(event: &Event, command: &str, record: bool) -> Judgement {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(std::path::PathBuf::from);
    let cmds = match shell::parse_resolved(command, &event.cwd, home.as_deref(), &known_output) {
        Ok(cmds) => cmds,
        Err(e) => {
            let verdict = guard::closed::unparsable(command, &e.to_string());
            let g = Guarded::unread(command, &event.cwd);
            let anchor = git::locate(&event.cwd, Path::new(".")).map(|l| l.worktree.common_dir);
            let touches_files = !g.bypass && guard::closed::may_reach_guarded(command);
            let verdicts = vec![(g, verdict)];
            let response = conclude(event, command, &verdicts, &[anchor], record);
            return Judgement {
                response,
                cmds: None,
                items: items(&verdicts, &[Facts::None]),
                touches_files,
            };
        }
    };
    let mut alias = |inv: &GitInvocation, name: &str| git::alias_via_git(inv, name);
    let guarded = guard::classify(&cmds, &mut alias);
    if guarded.is_empty() {
        return Judgement {
            response: Response::Silent,
            cmds: Some(cmds),
            items: Vec::new(),
            touches_files: false,
        };
    }
    let touches_files = guarded
        .iter()
        .any(|g| !g.bypass && guard::unfinished::touches_files(&g.op));
    let mut verdicts = Vec::with_capacity(guarded.len());
    let mut anchors = Vec::with_capacity(guarded.len());
    let mut all_facts = Vec::with_capacity(guarded.len());
    // Every branch the line deletes or moves, locally or on a remote: none of them keeps
    // another's commits.
    let mut going = facts::Going::default();
    for g in &guarded {
        match &g.op {
            guard::Op::BranchDelete { names, .. } => going.branches.extend(names.iter().cloned()),
            guard::Op::PushDelete { remote, branches } => going
                .pushed
                .extend(branches.iter().map(|b| (remote.clone(), b.clone()))),
            _ => {}
        }
    }
    for g in guarded {
        let (verdict, facts, anchor) = match gather(event, &g, &going) {
            Ok((facts, anchor)) => (guard::evaluate(&g, &facts), facts, anchor),
            Err(e) => {
                let anchor = git::locate(&g.cwd, Path::new(".")).map(|l| l.worktree.common_dir);
                let v = guard::closed::facts_unknown(&g, &format!("{e:#}"));
                (v, Facts::None, anchor)
            }
        };
        anchors.push(anchor);
        all_facts.push(facts);
        verdicts.push(bypass_asked(g, verdict));
    }
    let response = conclude(event, command, &verdicts, &anchors, record);
    Judgement {
        response,
        cmds: Some(cmds),
        items: items(&verdicts, &all_facts),
        touches_files,
    }
}

/// With `dibs.bypass=ask`, a `WT_GUARD_BYPASS=1` typed in a command the guard would refuse or
/// ask about makes it a question to the person instead of a pass (read only when a bypass is
/// used).
fn bypass_asked(mut g: Guarded, verdict: Verdict) -> (Guarded, Verdict) {
    let finding = match &verdict {
        Verdict::Block(f) | Verdict::Ask(f) if g.bypass => f.clone(),
        _ => return (g, verdict),
    };
    let asks = git::locate(&g.cwd, Path::new(".")).is_some_and(|l| {
        git::Settings::load(&l.worktree.git_dir)
            .string("dibs.bypass")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("ask"))
    });
    if !asks {
        return (g, verdict);
    }
    g.bypass = false;
    let mut f = finding;
    f.reason = format!(
        "{} (WT_GUARD_BYPASS=1 was given; with dibs.bypass=ask the person decides)",
        f.reason
    );
    (g, Verdict::Ask(f))
}

/// The output of the few commands whose output the guard can know without running them: the
/// shell's own (`pwd`, `mktemp`, ...) and git's answers about where it is (`git rev-parse
/// --show-toplevel`, `--show-prefix`, `--abbrev-ref HEAD`, `--git-dir`, `--git-common-dir`,
/// `--git-path index`, `git branch --show-current`).
fn known_output(argv: &[String], cwd: &Path) -> Option<String> {
    if let Some(out) = shell::builtin_output(argv, cwd) {
        return Some(out);
    }
    let inv = git::parse_invocation(argv, cwd, &[])?;
    if inv.git_dir.is_some() || inv.work_tree.is_some() {
        return None;
    }
    let args: Vec<&str> = inv.args.iter().map(String::as_str).collect();
    let here = git::locate(&inv.cwd, Path::new("."))?;
    let wt = &here.worktree;
    match args.as_slice() {
        ["rev-parse", "--show-toplevel"] => Some(wt.root.to_string_lossy().into_owned()),
        ["rev-parse", "--show-prefix"] => {
            let rel = &here.relative;
            Some(if rel.is_empty() {
                String::new()
            } else {
                format!("{rel}/")
            })
        }
        ["rev-parse", "--abbrev-ref", "HEAD"] | ["branch", "--show-current"] => wt.branch(),
        ["rev-parse", "--git-dir" | "--absolute-git-dir"] => {
            Some(wt.git_dir.to_string_lossy().into_owned())
        }
        ["rev-parse", "--git-common-dir"] => Some(wt.common_dir.to_string_lossy().into_owned()),
        ["rev-parse", "--git-path", "index"] => {
            Some(wt.git_dir.join("index").to_string_lossy().into_owned())
        }
        _ => None,
    }
}

fn items(verdicts: &[(Guarded, Verdict)], facts: &[Facts]) -> Vec<Item> {
    verdicts
        .iter()
        .zip(facts)
        .map(|((g, v), f)| {
            let (verdict, finding) = match v {
                Verdict::Allow => ("allow", None),
                Verdict::Block(f) => ("block", Some(f)),
                Verdict::Ask(f) => ("ask", Some(f)),
            };
            Item {
                command: g.display.clone(),
                verdict,
                rule: finding.map(|f| f.rule),
                reason: finding.map(|f| f.reason.clone()),
                bypass: g.bypass,
                facts: guard::explain::facts(f),
            }
        })
        .collect()
}

/// Combine the verdicts; when `record`, keep retention refs and write the audit log.
fn conclude(
    event: &Event,
    command: &str,
    verdicts: &[(Guarded, Verdict)],
    anchors: &[Option<std::path::PathBuf>],
    record: bool,
) -> Response {
    let decision = guard::decide(verdicts);
    if !record {
        return decision.response;
    }
    if !matches!(decision.response, Response::Deny { .. }) {
        for (g, _) in verdicts {
            retain_before(g);
        }
    }
    let mut response = decision.response;
    for entry in &decision.audit {
        let anchor = anchors[entry.index]
            .clone()
            .or_else(|| git::locate(&event.cwd, Path::new(".")).map(|l| l.worktree.common_dir));
        let Some(common_dir) = anchor else {
            eprintln!("git-dibs: no repository to keep the audit log in");
            continue;
        };
        if let Err(e) = write_audit(&common_dir, event, command, entry) {
            eprintln!("git-dibs: cannot write the audit log: {e:#}");
        }
        super::recover::point_at(&common_dir, &entry.worktrees, &mut response);
    }
    response
}

/// One line of `audit.log`.
#[derive(Debug, Serialize)]
struct AuditLine<'a> {
    at: String,
    verdict: &'a str,
    session: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<&'a str>,
    cwd: &'a Path,
    command: &'a str,
    reason: &'a str,
    rule: &'a str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    worktrees: Vec<AuditWorktree<'a>>,
    /// The newest snapshot of each session with files where the command acts, at the time.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    snapshots: Vec<super::recover::SnapshotId>,
}

/// A worktree at risk, in an audit line.
#[derive(Debug, Serialize)]
struct AuditWorktree<'a> {
    root: &'a Path,
    head: Option<&'a str>,
    status: &'a [String],
}

pub(crate) fn write_audit(
    common_dir: &Path,
    event: &Event,
    command: &str,
    entry: &guard::AuditEntry,
) -> Result<()> {
    let store = Store::open(common_dir)?;
    let line = AuditLine {
        at: crate::store::rfc3339(crate::store::now_secs()),
        verdict: entry.verdict,
        session: &event.session_id,
        agent: event.actor.as_ref().map(|a| a.id.as_str()),
        cwd: &event.cwd,
        command,
        reason: &entry.reason,
        rule: entry.rule,
        worktrees: entry
            .worktrees
            .iter()
            .map(|w| AuditWorktree {
                root: &w.root,
                head: w.head.as_deref(),
                status: &w.status,
            })
            .collect(),
        snapshots: super::recover::snapshots_at(&store, event, &entry.worktrees),
    };
    let text = serde_json::to_string(&line).context("cannot encode the audit line")?;
    store.append_audit(&text)?;
    Ok(())
}

/// Before a deletion the guard lets through (pushed, or bypassed): keep a retention ref on any
/// commit that would then exist on no remote, so `git gc` cannot drop it. Best effort: a
/// failure here never stops the command.
fn retain_before(g: &Guarded) {
    use crate::git::retention;
    let heads = |path: &Path| {
        let (mut roots, _) = git::worktree_roots_under(path, SCAN_DEPTH, SCAN_ENTRIES);
        if git::worktree_at(path).is_some() {
            roots.push(path.to_path_buf());
        }
        for root in roots {
            let _ = retention::retain_head(&root);
        }
    };
    match &g.op {
        Op::BranchDelete { names, .. } => {
            for name in names {
                let _ = match name.as_str() {
                    "*" => retention::retain_all(&g.cwd),
                    "HEAD" => git::locate(&g.cwd, Path::new("."))
                        .map_or(Ok(Default::default()), |l| {
                            retention::retain_head(&l.worktree.root)
                        }),
                    _ => retention::retain_branch(&g.cwd, name),
                };
            }
        }
        Op::PushDelete { remote, branches } => {
            for b in branches {
                let _ = retention::retain_remote_branch(&g.cwd, remote, b);
            }
        }
        Op::WorktreeRemove { target } => heads(&g.cwd.join(target)),
        Op::RemoveTree { paths } => paths.iter().for_each(|p| heads(p)),
        _ => {}
    }
}
