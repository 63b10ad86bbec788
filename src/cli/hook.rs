//! `git dibs hook`: read one host event on stdin, gather the facts it needs, let policy decide,
//! apply the store changes and answer in the host's format. Never fails an edit: every error
//! becomes exit 0 with one line on stderr.

pub(crate) mod chain;
mod changed;
mod edit;
mod facts;
mod jobs;
mod nested;
mod pending;
mod pre_edit;
mod reach;
mod resume;
mod retain;
mod running;
mod session;
mod shell;
pub(crate) mod snap;
mod subagent;
mod take;
mod wiring;

use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;

use crate::protocol::{self, Event, EventKind, Host, Response};
use crate::store::StoreError;
use facts::Ctx;

/// Options of `hook`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The host that runs this hook, when known (otherwise read from the input).
    #[arg(long, value_enum)]
    pub(crate) host: Option<HostArg>,
}

/// Hosts that can be named on the command line.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum HostArg {
    /// Claude Code.
    Claude,
    /// Cursor.
    Cursor,
    /// Gemini CLI.
    Gemini,
    /// Codex CLI.
    Codex,
}

impl HostArg {
    /// The host named `name` on the command line, if any.
    pub(crate) fn from_name(name: &str) -> Option<HostArg> {
        <HostArg as clap::ValueEnum>::from_str(name, false).ok()
    }
}

impl From<HostArg> for Host {
    fn from(h: HostArg) -> Host {
        match h {
            HostArg::Claude => Host::Claude,
            HostArg::Cursor => Host::Cursor,
            HostArg::Gemini => Host::Gemini,
            HostArg::Codex => Host::Codex,
        }
    }
}

/// For a git hook at a moment that puts files back (`git stash` has just written its commit):
/// every background job marked in the clone of `here` has what it changed in its worktrees
/// put into its session's snapshot first, as before an agent's shell command that may write.
/// One failed folder listing when no job is marked.
pub(crate) fn scan_background_jobs(here: &crate::git::Worktree) {
    let event = Event {
        host: Host::Person,
        session_id: format!("person-{}", super::caller::user_name()),
        cwd: here.root.clone(),
        event_name: String::new(),
        actor: None,
        call: None,
        kind: EventKind::Ignored,
    };
    jobs::before_shell(&event, Some(here), None);
}

/// Run the hook; always exits 0 unless a host format calls for a blocking code.
pub(crate) fn run(args: Args) -> ExitCode {
    // One hook call resolves the same few paths many times over; it changes none of them.
    crate::git::remember_paths();
    crate::agent::remember_liveness();
    facts::remember_settings();
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| handle(args)));
    let output = match outcome {
        Ok(out) => out,
        Err(_) => quiet("internal error; the tool call goes ahead"),
    };
    crate::platform::deadline::disarm();
    if let Some(text) = &output.stdout {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }
    if let Some(text) = &output.stderr {
        eprintln!("{text}");
    }
    ExitCode::from(output.code)
}

fn quiet(message: impl std::fmt::Display) -> protocol::Output {
    protocol::Output::note(format!("git-dibs: {message}"))
}

fn handle(args: Args) -> protocol::Output {
    let bytes = match protocol::read_input(std::io::stdin().lock()) {
        Ok(b) => b,
        Err(e) => return quiet(e),
    };
    let event = match protocol::parse_event(&bytes, args.host.map(Host::from)) {
        Ok(e) => e,
        Err(e) => return quiet(e),
    };
    if event.kind == EventKind::Ignored {
        return protocol::Output::default();
    }
    arm_deadline(&event);
    #[cfg(debug_assertions)]
    crash_for_tests();
    match decide(&event) {
        Ok(response) => protocol::render(&event, &response),
        Err(StoreError::Fenced { .. }) => {
            quiet("this session was resumed by another process; this one no longer records claims")
        }
        Err(e) => quiet(e),
    }
}

/// How long a hook may take before it answers without finishing: under the 10 s limit `install`
/// gives each hook, so that the answer is the hook's own and not its host's.
const DEADLINE_SECS: u64 = 8;

/// Arm the hook's last words for `event`, when it runs out of time and when it crashes (see
/// `platform::deadline`): before a shell command, a question (the guard fails closed);
/// otherwise exit 0 and one line on stderr. Debug builds
/// (the tests') take the time from `DIBS_TEST_DEADLINE_SECS` when set.
fn arm_deadline(event: &Event) {
    #[cfg(debug_assertions)]
    let secs = std::env::var("DIBS_TEST_DEADLINE_SECS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEADLINE_SECS);
    #[cfg(not(debug_assertions))]
    let secs = DEADLINE_SECS;
    let crashed = match &event.kind {
        EventKind::BeforeShell { .. } => protocol::render(
            event,
            &Response::Ask {
                reason: "git-dibs crashed while looking at this command, so it cannot tell what \
                         it would destroy; ask the person. [guard:internal-error]"
                    .into(),
            },
        ),
        _ => quiet("crashed; the tool call goes ahead, and what it changed may not be snapshotted"),
    };
    let late = match &event.kind {
        EventKind::BeforeShell { .. } => protocol::render(
            event,
            &Response::Ask {
                reason: format!(
                    "git-dibs could not finish looking at this command within {secs} s (a FIFO \
                     among the ignore or config files, or a filesystem that stops answering?), \
                     so it cannot tell what it would destroy; ask the person. [guard:too-slow]"
                ),
            },
        ),
        _ => quiet(format!(
            "gave up after {secs} s (a FIFO among the ignore or config files, or a filesystem \
             that stops answering?); what this call changed may not be snapshotted"
        )),
    };
    let line = |text: &Option<String>| text.as_ref().map(|t| format!("{t}\n")).unwrap_or_default();
    crate::platform::deadline::on_crash(
        line(&crashed.stdout).as_bytes(),
        line(&crashed.stderr).as_bytes(),
        crashed.code,
    );
    crate::platform::deadline::arm(
        std::time::Duration::from_secs(secs),
        line(&late.stdout).as_bytes(),
        line(&late.stderr).as_bytes(),
        late.code,
    );
}

/// Debug builds (the tests') crash on purpose when `DIBS_TEST_CRASH` says how: `overflow`
/// (unbounded recursion, as a parser without a depth bound would) or `abort`.
#[cfg(debug_assertions)]
fn crash_for_tests() {
    fn deeper(n: u64) -> u64 {
        let room = std::hint::black_box([n; 64]);
        if room[7] == u64::MAX {
            return 0;
        }
        deeper(room[7] + 1) + room[3]
    }
    match std::env::var("DIBS_TEST_CRASH").as_deref() {
        Ok("overflow") => {
            std::hint::black_box(deeper(0));
        }
        Ok("abort") => std::process::abort(),
        _ => {}
    }
}

/// Gather facts, decide, apply.
fn decide(event: &Event) -> Result<Response, StoreError> {
    if let EventKind::BeforeEdit { paths, change, .. } = &event.kind {
        let real = wiring::real_targets(event, paths);
        if let Some(refusal) = wiring::refuse_internals(event, &real)
            .or_else(|| wiring::refuse_weakening(paths, &real, change))
        {
            return Ok(refusal);
        }
    }
    match &event.kind {
        EventKind::BeforeShell { command } => {
            // The guard fails closed even on its own defect: a panic while judging is a question.
            let judged = panic::catch_unwind(AssertUnwindSafe(|| {
                super::guard::judge(event, command, true)
            }));
            // Whatever the command does next, what sessions made is in the object store before
            // it runs, in every clone the command reaches (as the guard's one parse read it).
            // A refused command does not run, and a line that can only read destroys nothing:
            // the sweep is left to the next command that may (the stat data still differ then).
            let (reached, sweep) = match &judged {
                Ok(j) => (
                    j.cmds.as_deref().unwrap_or_default(),
                    !matches!(j.response, Response::Deny { .. })
                        && !j
                            .cmds
                            .as_deref()
                            .is_some_and(crate::policy::readers::destroys_nothing),
                ),
                Err(_) => (&[][..], true),
            };
            // Until the host says it ended, what the command writes is protected from peers.
            let marks = judged.as_ref().map_or(true, running::may_write);
            // The worktree the event runs in, located once for all that follows.
            let here = (sweep || marks)
                .then(|| crate::git::locate(&event.cwd, std::path::Path::new(".")))
                .flatten()
                .map(|l| l.worktree);
            // What scans left unfinished and still leave after this call's budgets.
            let mut left = None;
            if sweep {
                snap::sweep(event, here.as_ref(), reached);
                let cmds = judged.as_ref().ok().and_then(|j| j.cmds.as_deref());
                jobs::before_shell(event, here.as_ref(), cmds);
                left = running::before_shell(event, here.as_ref());
            }
            if marks {
                running::mark(event, here.as_ref(), reached);
            }
            // Before a prune: what only refs that just moved (or are about to) hold is kept.
            let refused = matches!(&judged, Ok(j) if matches!(j.response, Response::Deny { .. }));
            if !refused {
                let cmds = judged.as_ref().ok().and_then(|j| j.cmds.as_deref());
                if let (true, fetches) = retain::prunes(cmds, command) {
                    retain::before_prune(event, reached, fetches);
                }
            }
            let Ok(judged) = judged else {
                return Ok(Response::Ask {
                    reason: "git-dibs failed while judging this command, so it cannot tell \
                             what it would destroy; ask the person. [guard:internal-error]"
                        .into(),
                });
            };
            let touches = judged.touches_files;
            let response = match (judged.response, judged.cmds) {
                (Response::Silent, Some(cmds)) => shell::before(event, &cmds)?,
                (verdict, _) => verdict,
            };
            Ok(crate::policy::guard::unfinished::answer(
                response,
                left.as_ref(),
                touches,
            ))
        }
        EventKind::AfterShell {
            command,
            took,
            background,
        } => {
            let parsed = crate::shell::parse(command, &event.cwd);
            let cmds = parsed.as_deref().unwrap_or_default();
            retain::retain_new_commits(event, cmds, *took);
            if let (_, true) = retain::prunes(parsed.as_deref().ok(), command) {
                retain::after_prune(event, cmds);
            }
            let answer = shell::after(event, cmds);
            // After what the command line shows it wrote: whatever else it changed, and what a
            // job it started (or one started before) wrote meanwhile.
            let job = jobs::after_shell(event, command, *background, *took, parsed.as_deref().ok());
            changed::after_shell(
                event,
                parsed.as_deref().ok(),
                *took,
                job.as_ref().map(|j| j.since_ns),
                running::began(event),
            );
            if let Some(job) = job {
                job.finish(&event.session_id);
            }
            running::ended(event);
            answer
        }
        // A tool git-dibs does not know (an MCP server's) may write any file: as around a
        // shell command that may destroy, what sessions (and their running jobs) made is swept
        // into the object store before it runs, and what it changed is found by state after. One whose name says it
        // only reads is left alone. Never an answer: the tool always goes ahead.
        EventKind::BeforeOtherTool { name, .. } => {
            if !crate::policy::tools::only_reads(name) {
                let here =
                    crate::git::locate(&event.cwd, std::path::Path::new(".")).map(|l| l.worktree);
                snap::sweep(event, here.as_ref(), &[]);
                jobs::before_shell(event, here.as_ref(), None);
            }
            Ok(Response::Silent)
        }
        EventKind::AfterOtherTool { name, took, .. } => {
            if !crate::policy::tools::only_reads(name) {
                changed::after_shell(event, None, *took, None, None);
            }
            Ok(Response::Silent)
        }
        EventKind::BeforeWorktreeRemove { discard_changes } => {
            Ok(super::guard::before_exit(event, *discard_changes))
        }
        EventKind::Ignored => Ok(Response::Silent),
        EventKind::ConfigChange { path } => Ok(wiring::config_change(path.as_deref())),
        kind => {
            let ctx = Ctx::new(event);
            match kind {
                EventKind::BeforeEdit {
                    tool,
                    paths,
                    change,
                } => edit::before(&ctx, tool, paths, change),
                EventKind::AfterEdit { paths, .. } => edit::after(&ctx, paths),
                EventKind::AfterRead { path } => edit::after_read(&ctx, path),
                EventKind::SessionStart { source } => session::start(&ctx, *source),
                EventKind::SessionEnd { reason } => session::end(&ctx, reason),
                EventKind::Prompt { prompt } => session::prompt(&ctx, prompt),
                EventKind::SubAgentStart => subagent::start(&ctx),
                EventKind::SubAgentStop => subagent::stop(&ctx),
                _ => Ok(Response::Silent),
            }
        }
    }
}
