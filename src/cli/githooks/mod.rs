//! `git dibs githook <name> [args]` (hidden): the git hooks that guard actors no agent hook sees
//! (a person at a terminal or in a GUI, an agent without a hook system). The shims that
//! `git dibs install --git-hooks` writes call it. Every hook here is fast (no work before its
//! input says it is needed, no network) and fails open: when the repository or the store cannot
//! be read it says so in one line on stderr and lets git go on.

pub(crate) mod install;
mod keep;
mod post_commit;
mod pre_commit;
mod reference_transaction;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use serde::Serialize;

use crate::git::{self, Worktree};
use crate::protocol::{Host, SubAgent};
use crate::store::{self, Actor, Session, Store};

/// The git hooks git-dibs installs, in the order they are reported.
pub(crate) const HOOKS: [&str; 3] = ["pre-commit", "reference-transaction", "post-commit"];

/// Arguments of the hidden `githook` subcommand, as a shim passes them.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Which git hook is running (`pre-commit`, `reference-transaction`, `post-commit`).
    pub(crate) name: String,
    /// The arguments git passed to the hook.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub(crate) args: Vec<String>,
}

/// Run one git hook and return the exit code git acts on. An unknown hook name (a shim newer
/// than this binary) lets git go on.
pub(crate) fn run(args: Args) -> ExitCode {
    match args.name.as_str() {
        "pre-commit" => pre_commit::run(),
        "reference-transaction" => reference_transaction::run(&args.args),
        "post-commit" => post_commit::run(),
        other => {
            eprintln!(
                "git-dibs: no git hook named `{other}` in this version; it is skipped (run `git \
                 dibs install --git-hooks` to rewrite the shims)"
            );
            ExitCode::SUCCESS
        }
    }
}

/// Say on stderr that hook `hook` could not check this operation, and let git go on.
fn fail_open(hook: &str, why: impl std::fmt::Display) -> ExitCode {
    eprintln!("git-dibs {hook}: {why}; not checked, git goes on");
    ExitCode::SUCCESS
}

/// Whether `WT_GUARD_BYPASS=1` is set: a deliberate act the guard lets through (and audits).
fn bypassed() -> bool {
    std::env::var_os("WT_GUARD_BYPASS").is_some_and(|v| v == "1")
}

/// The worktree git runs the hook in (a hook's cwd is the worktree root).
fn here() -> Option<(PathBuf, Worktree)> {
    let cwd = std::env::current_dir().ok()?;
    let wt = git::locate(&cwd, Path::new("."))?.worktree;
    Some((cwd, wt))
}

/// The lease that makes a session live here (`dibs.ttl`, default two hours).
fn ttl(wt: &Worktree) -> Duration {
    git::read_config_duration(&wt.git_dir, "dibs.ttl").unwrap_or(store::DEFAULT_TTL)
}

/// Who is running git: the session its environment names, else a person.
#[derive(Debug, Clone)]
struct Committer {
    /// The session id (`person-<user>` for a person).
    id: String,
    /// Whether the id came from `DIBS_SESSION` or `CLAUDE_CODE_SESSION_ID`.
    from_env: bool,
    /// The sub-agent, when the environment names one (`DIBS_AGENT`). Claude Code 2.1.332 gives
    /// a sub-agent's shell the parent's `CLAUDE_CODE_SESSION_ID` and nothing that tells it from
    /// the main thread, so without `DIBS_AGENT` the committer is the session as a whole.
    agent: Option<SubAgent>,
}

impl Committer {
    /// From `DIBS_SESSION`, else `CLAUDE_CODE_SESSION_ID`, else the user as a person; the
    /// sub-agent from `DIBS_AGENT`.
    fn from_env() -> Committer {
        match super::caller::env_session() {
            Some((id, _)) => Committer {
                id,
                from_env: true,
                agent: SubAgent::from_fields(std::env::var("DIBS_AGENT").ok().as_deref(), None),
            },
            None => Committer {
                id: format!("person-{}", super::caller::user_name()),
                from_env: false,
                agent: None,
            },
        }
    }

    /// The committer as an actor of the store.
    fn actor(&self) -> Actor<'_> {
        Actor {
            session: &self.id,
            agent: self.agent.as_ref(),
        }
    }

    /// Whether `session` is this committer's own. A committer whose thread is unknown owns
    /// every thread of its session (main and sub-agents); one named by `DIBS_AGENT` only its
    /// own. A person owns the person sessions of the same user from any terminal (`git dibs
    /// claim` names them `person-<user>[-<tty>]`), since a git hook cannot see the terminal.
    fn owns(&self, session: &Session) -> bool {
        if session.id == self.id {
            return self.agent.is_none() || session.is(self.actor());
        }
        !self.from_env
            && session.host == Host::Person
            && session
                .id
                .strip_prefix(&self.id)
                .is_some_and(|rest| rest.starts_with('-'))
    }
}

/// The argv of the git process that runs this hook: the first ancestor whose program is git
/// (past the shim's shell); else the parent's. Empty where the system cannot tell.
fn git_argv() -> Vec<String> {
    let mut pid = std::os::unix::process::parent_id();
    let mut first = None;
    for _ in 0..4 {
        let Some(argv) = crate::platform::argv(pid) else {
            break;
        };
        let program = argv.first().map(|p| {
            Path::new(p)
                .file_name()
                .map_or(p.clone(), |n| n.to_string_lossy().into_owned())
        });
        if matches!(program.as_deref(), Some("git")) {
            return argv;
        }
        first.get_or_insert(argv);
        match crate::platform::proc_info(pid).map(|p| p.ppid) {
            Some(p) if p > 1 => pid = p,
            _ => break,
        }
    }
    first.unwrap_or_default()
}

/// A commit at risk, in an audit line.
#[derive(Debug, Serialize)]
struct AuditCommit {
    branch: String,
    id: String,
    summary: String,
}

/// One line of the audit log written by a git hook.
#[derive(Debug, Serialize)]
struct AuditLine<'a> {
    /// When, RFC 3339.
    at: String,
    /// `block` or `bypass`.
    verdict: &'static str,
    /// Which git hook decided.
    hook: &'static str,
    /// The committer's session (`person-<user>` for a person).
    session: &'a str,
    /// Where git ran.
    cwd: &'a Path,
    /// The git command line, when known.
    command: String,
    /// Why, in words.
    reason: &'a str,
    /// Files at risk (pre-commit).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    files: Vec<String>,
    /// Commits at risk (reference-transaction).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    commits: Vec<AuditCommit>,
}

impl<'a> AuditLine<'a> {
    /// A refusal by `hook`, or a bypass when `WT_GUARD_BYPASS=1` is set, stamped now; what is
    /// at risk is filled in by the caller.
    fn decided(
        hook: &'static str,
        session: &'a str,
        cwd: &'a Path,
        command: String,
        reason: &'a str,
    ) -> Self {
        AuditLine {
            at: now_rfc3339(),
            verdict: if bypassed() { "bypass" } else { "block" },
            hook,
            session,
            cwd,
            command,
            reason,
            files: Vec::new(),
            commits: Vec::new(),
        }
    }

    /// Whether the command goes ahead anyway.
    fn is_bypass(&self) -> bool {
        self.verdict == "bypass"
    }

    /// Append this line to the audit log of the clone whose common dir is `common_dir`; a
    /// failure is said in one line on stderr and changes no verdict.
    fn write(&self, common_dir: &Path) {
        let result = serde_json::to_string(self)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                Store::open(common_dir)
                    .and_then(|s| s.append_audit(&text))
                    .map_err(|e| e.to_string())
            });
        if let Err(e) = result {
            eprintln!("git-dibs {}: cannot write the audit log: {e}", self.hook);
        }
    }
}

/// Now, as RFC 3339, for audit lines (the store's clock, which tests can set).
fn now_rfc3339() -> String {
    crate::store::rfc3339(crate::store::now_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(crate::shell::quote_word("src/lib.rs"), "src/lib.rs");
        assert_eq!(crate::shell::quote_word("a b"), "'a b'");
        assert_eq!(crate::shell::quote_word("it's"), r"'it'\''s'");
    }

    #[test]
    fn a_person_owns_their_terminal_sessions() {
        let me = Committer {
            id: "person-ann".into(),
            from_env: false,
            agent: None,
        };
        let mine = Session::new("person-ann-pts3", Host::Person, 1);
        let other = Session::new("person-annie", Host::Person, 1);
        let agent = Session::new("person-ann-x", Host::Claude, 1);
        assert!(me.owns(&mine));
        assert!(!me.owns(&other));
        assert!(!me.owns(&agent));
        let agent_me = Committer {
            id: "s1".into(),
            from_env: true,
            agent: None,
        };
        assert!(!agent_me.owns(&mine));
        assert!(agent_me.owns(&Session::new("s1", Host::Claude, 1)));
    }

    #[test]
    fn a_committer_owns_its_session_threads_unless_named_as_one_of_them() {
        let sub = |id: &str| {
            let mut s = Session::new("s1", Host::Claude, 1);
            s.sub_agent = SubAgent::from_fields(Some(id), Some("general-purpose"));
            s
        };
        let main = Session::new("s1", Host::Claude, 1);
        let session = Committer {
            id: "s1".into(),
            from_env: true,
            agent: None,
        };
        // The environment cannot tell the thread: the whole session is the committer's.
        assert!(session.owns(&main) && session.owns(&sub("a1")));
        let a1 = Committer {
            agent: SubAgent::from_fields(Some("a1"), None),
            ..session
        };
        assert!(a1.owns(&sub("a1")));
        assert!(!a1.owns(&sub("b2")), "a sibling is a peer");
        assert!(!a1.owns(&main), "its main thread is a peer");
        assert!(!a1.owns(&Session::new("s2", Host::Claude, 1)));
    }
}
