//! `git dibs doctor`: whether the binary is on PATH and current, git finds it as `git dibs`, the
//! hooks are wired (and in which settings file), the settings files are valid, the git hooks are
//! installed, and the store is readable and writable. One line per check; exit 1 when any check
//! finds a problem.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use anyhow::Result;

use super::install::{Scope, find_on_path, load};

mod damage;
mod nested;
mod places;
mod worktrees;
use crate::git::{self, Worktree};
use crate::protocol::settings::{self, ConfigHost, HOOKS, Settings};
use crate::store::{self, Store};
use places::{places, predates, unreadable};

/// Options of `doctor`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Print one JSON document: `{"problems": N, "checks": [{"status", "text"}]}`, where
    /// status is `ok`, `repaired` or `problem`.
    #[arg(long)]
    pub(crate) json: bool,
}

/// One line of the report.
#[derive(Debug, serde::Serialize)]
struct Check {
    status: &'static str,
    text: String,
}

/// The lines so far and how many were problems; printed as they come unless JSON is wanted.
#[derive(Debug, Default)]
struct Report {
    problems: usize,
    json: bool,
    checks: Vec<Check>,
}

impl Report {
    fn line(&mut self, status: &'static str, text: &str) {
        if !self.json {
            println!("{status:8} {text}");
        }
        self.checks.push(Check {
            status,
            text: text.to_owned(),
        });
    }

    fn ok(&mut self, text: impl AsRef<str>) {
        self.line("ok", text.as_ref());
    }

    /// Damage found and mended by `doctor` or the store itself; not a problem any more.
    fn repaired(&mut self, text: impl AsRef<str>) {
        self.line("repaired", text.as_ref());
    }

    fn problem(&mut self, text: impl AsRef<str>) {
        self.line("problem", text.as_ref());
        self.problems += 1;
    }
}

/// What this binary's `--version` prints.
fn our_version() -> String {
    format!("{} {}", settings::PROGRAM, env!("CARGO_PKG_VERSION"))
}

/// The trimmed stdout of a command that succeeded; `Err` when it could not start.
fn output_of(cmd: &mut Command) -> std::io::Result<Option<String>> {
    let out = cmd.stdin(Stdio::null()).stderr(Stdio::null()).output()?;
    Ok(out
        .status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned()))
}

fn check_binary(r: &mut Report) {
    let ours = our_version();
    let Some(found) = find_on_path() else {
        let here = std::env::current_exe()
            .map(|p| format!(" (this one is {})", p.display()))
            .unwrap_or_default();
        r.problem(format!(
            "git-dibs is not on PATH, so the hooks and `git dibs` cannot run it: put the folder \
             holding git-dibs on PATH{here}"
        ));
        return;
    };
    let shown = found.display();
    match output_of(Command::new(&found).arg("--version")) {
        Ok(Some(v)) if v == ours => r.ok(format!("{ours} is on PATH: {shown}")),
        Ok(Some(v)) => r.problem(format!(
            "the git-dibs on PATH ({shown}) is {v:?} but this one is {ours:?}: install this \
             version there, or remove the old one"
        )),
        _ => r.problem(format!(
            "{shown} is on PATH but `git-dibs --version` fails there: reinstall git-dibs"
        )),
    }
}

fn check_git_subcommand(r: &mut Report) {
    let ours = our_version();
    match output_of(Command::new("git").args(["dibs", "--version"])) {
        Err(_) => r.problem("git is not installed or not on PATH: install git"),
        Ok(Some(v)) if v == ours => r.ok("`git dibs` works as a git subcommand"),
        Ok(Some(v)) => r.problem(format!(
            "`git dibs` runs {v:?}, not {ours:?}: git found an older git-dibs first on PATH"
        )),
        Ok(None) => r.problem(
            "`git dibs` does not work: git cannot find git-dibs; put the folder holding it on PATH",
        ),
    }
}

/// A problem for each hook command whose program is an absolute path that does not exist.
fn check_programs(r: &mut Report, shown: &impl std::fmt::Display, fix: &str, commands: &[String]) {
    for command in commands {
        let program = settings::program_of(command).map(PathBuf::from);
        if let Some(p) = program.filter(|p| p.is_absolute() && !p.is_file()) {
            r.problem(format!(
                "{shown} runs {}, which does not exist: {fix}",
                p.display()
            ));
        }
    }
}

/// Check one settings file's wiring; returns its command lines when it wires git-dibs at all.
fn check_wiring(r: &mut Report, scope: Scope, path: &Path, s: &Settings) -> Option<Vec<String>> {
    let shown = path.display();
    let fix = format!("run `git dibs install{}`", scope.flag());
    if s.hooks_disabled() {
        r.problem(format!(
            "{shown} sets \"disableAllHooks\": true, so no hook runs: remove that key"
        ));
    }
    let w = s.wiring();
    if w.is_empty() {
        return None;
    }
    let missing = w.missing();
    if !missing.is_empty() {
        r.problem(format!(
            "the {} settings ({shown}) lack the git-dibs hooks for {}: {fix}",
            scope.name(),
            places(&missing)
        ));
    }
    predates(
        r,
        &format!("the {} settings ({shown})", scope.name()),
        &w,
        &fix,
    );
    let duplicated = w.duplicated();
    if !duplicated.is_empty() {
        r.problem(format!(
            "{shown} wires git-dibs more than once for {}: {fix} to tidy it",
            places(&duplicated)
        ));
    }
    if !w.stale.is_empty() {
        r.problem(format!(
            "{shown} has out-of-date git-dibs entries ({}): {fix} to replace them",
            w.stale.join("; ")
        ));
    }
    if w.commands.len() > 1 {
        r.problem(format!(
            "{shown} runs git-dibs by {} different commands: {fix} to use one",
            w.commands.len()
        ));
    }
    check_programs(r, &shown, &fix, &w.commands);
    if w.is_complete() {
        r.ok(format!(
            "hooks are wired in the {} settings ({shown}): all {} of them",
            scope.name(),
            HOOKS.len()
        ));
    }
    Some(w.commands)
}

fn check_settings(r: &mut Report, wt: Option<&Worktree>) {
    let root = wt.map(|w| w.root.as_path());
    let mut valid = Vec::new();
    let mut wired: Vec<(Scope, Vec<String>)> = Vec::new();
    for scope in Scope::ALL {
        let Some(path) = scope.path(root) else {
            continue;
        };
        match load(&path) {
            Ok(None) => {}
            Ok(Some((_, s))) => {
                valid.push(path.display().to_string());
                if let Some(commands) = check_wiring(r, scope, &path, &s) {
                    wired.push((scope, commands));
                }
            }
            Err(e) => r.problem(unreadable(
                &path,
                &e,
                "fix that file by hand (git dibs will not change it until it is valid)",
            )),
        }
    }
    if !valid.is_empty() {
        r.ok(format!(
            "settings files are valid JSON: {}",
            valid.join(", ")
        ));
    }
    let plugins = Scope::User
        .path(root)
        .and_then(|path| load(&path).ok().flatten())
        .map(|(_, s)| s.enabled_plugins())
        .unwrap_or_default();
    if let Some(plugin) = plugins.first() {
        r.ok(format!(
            "hooks are wired by the Claude Code plugin {plugin} (every session of this user, \
             `claude -w` worktrees included)"
        ));
        if !wired.is_empty() {
            r.ok(
                "settings files wire git-dibs as well: Claude Code runs identical handlers once, \
                 but SessionStart twice; `git dibs uninstall` leaves the plugin alone",
            );
        }
        return;
    }
    match wired.as_slice() {
        [] if ConfigHost::ALL[1..].iter().any(|h| host_wired(root, *h)) => {
            r.ok(
                "Claude Code hooks are not wired (other hosts are): `git dibs install` wires them",
            );
        }
        [] => r.problem(
            "hooks are not wired: run `git dibs install` (or `--local` for yourself only, \
             `--user` for every project)",
        ),
        [_] => {}
        [(_, commands), rest @ ..] => {
            let names: Vec<&str> = wired.iter().map(|(s, _)| s.name()).collect();
            if rest.iter().all(|(_, c)| c == commands) {
                r.ok(format!(
                    "hooks are wired in the {} settings with the same command; Claude Code runs \
                     each once",
                    names.join(" and ")
                ));
            } else {
                r.problem(format!(
                    "hooks are wired in the {} settings with different commands, so each runs \
                     more than once: keep one, e.g. `git dibs uninstall{}` for the others",
                    names.join(" and "),
                    rest[0].0.flag()
                ));
            }
        }
    }
}

/// Whether `host`'s project hook file has any git-dibs handler.
fn host_wired(root: Option<&Path>, host: ConfigHost) -> bool {
    let Some(path) = root.map(|r| r.join(host.project_file())) else {
        return false;
    };
    matches!(load(&path), Ok(Some((_, s))) if !s.wiring_in(host.layout()).is_empty())
}

/// Report the wiring of Cursor's, Gemini CLI's and Codex's project hook files.
fn check_hosts(r: &mut Report, wt: &Worktree) {
    for host in &ConfigHost::ALL[1..] {
        let path = wt.root.join(host.project_file());
        let shown = path.display();
        let fix = format!("run `git dibs install --{}`", host.name());
        let s = match load(&path) {
            Ok(Some((_, s))) => s,
            Ok(None) => {
                r.ok(format!(
                    "{host} hooks are not wired (no {shown}; {fix} to wire them)"
                ));
                continue;
            }
            Err(e) => {
                r.problem(unreadable(
                    &path,
                    &e,
                    &format!("fix that file by hand, then {fix}"),
                ));
                continue;
            }
        };
        let w = s.wiring_in(host.layout());
        if w.is_empty() {
            r.ok(format!(
                "{host} hooks are not wired in {shown} ({fix} to wire them)"
            ));
            continue;
        }
        let missing = w.missing();
        if !missing.is_empty() {
            r.problem(format!(
                "{shown} lacks the git-dibs hooks for {}: {fix}",
                places(&missing)
            ));
        }
        predates(r, &shown.to_string(), &w, &fix);
        let duplicated = w.duplicated();
        if !duplicated.is_empty() {
            r.problem(format!(
                "{shown} wires git-dibs more than once for {}: {fix}",
                places(&duplicated)
            ));
        }
        if !w.stale.is_empty() || w.commands.len() > 1 {
            r.problem(format!(
                "{shown} has out-of-date git-dibs entries ({}): {fix}",
                w.stale.join("; ")
            ));
        }
        check_programs(r, &shown, &fix, &w.commands);
        if w.is_complete() {
            r.ok(format!(
                "{host} hooks are wired in {shown}: all {} of them",
                w.specs.len()
            ));
        }
    }
}

fn check_store(r: &mut Report, wt: &Worktree) {
    let store = match Store::open(&wt.common_dir) {
        Ok(s) => s,
        Err(e) => {
            r.problem(format!(
                "{e}: make {} writable for you",
                wt.common_dir.display()
            ));
            return;
        }
    };
    let dir = store.dir().display();
    let sessions = match store.sessions() {
        Ok(s) => s,
        Err(e) => {
            r.problem(format!(
                "the store {dir} cannot be read ({e}): fix its permissions"
            ));
            return;
        }
    };
    let probe = store
        .dir()
        .join(format!(".doctor-probe-{}", std::process::id()));
    match fs::write(&probe, b"") {
        Ok(()) => {
            let _ = fs::remove_file(&probe);
            r.ok(format!("the store {dir} is readable and writable"));
        }
        Err(e) => r.problem(format!(
            "the store {dir} is not writable ({e}): fix its permissions, or claims are lost"
        )),
    }
    let ttl = git::read_config_duration(&wt.git_dir, "dibs.ttl").unwrap_or(store::DEFAULT_TTL);
    let now = store::now_secs();
    let live = sessions.iter().filter(|s| s.is_live(now, ttl)).count();
    let plural = if live == 1 { "" } else { "s" };
    r.ok(format!(
        "{live} live session{plural} in this clone (lease {})",
        humantime::format_duration(ttl)
    ));
    check_floors(r, wt);
    check_snapshots(r, &store, now);
    nested::check(r, wt, &store);
}

/// Duration settings set below the least git-dibs takes: said, with the value used instead.
fn check_floors(r: &mut Report, wt: &Worktree) {
    let settings = git::Settings::load(&wt.git_dir);
    for (key, floor) in git::DURATION_FLOORS {
        let Some(text) = settings.string(key) else {
            continue;
        };
        if git::parse_duration(&text).is_some_and(|d| d < *floor) {
            r.problem(format!(
                "{key} is set to {text}, less than git-dibs takes: it uses {} instead. Find who \
                 set it (`git config --show-origin {key}`)",
                humantime::format_duration(*floor)
            ));
        }
    }
}

/// Whether snapshots are being made: the last failure, if it is recent.
fn check_snapshots(r: &mut Report, store: &Store, now: u64) {
    match store.last_snapshot_failure() {
        Some(f) if now.saturating_sub(f.at) < 7 * 24 * 60 * 60 => r.problem(format!(
            "a snapshot failed {} ago ({}): work made since may not be recoverable; fix the \
             cause, then edits are snapshotted again",
            humantime::format_duration(std::time::Duration::from_secs(now.saturating_sub(f.at))),
            f.what
        )),
        _ if store.has_snapshots() => {
            r.ok("snapshots are being made (git dibs recover lists them)");
        }
        _ => {}
    }
}

pub(crate) fn run(args: Args) -> Result<ExitCode> {
    let mut r = Report {
        json: args.json,
        ..Report::default()
    };
    check_binary(&mut r);
    check_git_subcommand(&mut r);
    let wt = worktrees::here(&mut r);
    check_settings(&mut r, wt.as_ref());
    if let Some(wt) = &wt {
        check_hosts(&mut r, wt);
        worktrees::check(&mut r, wt);
    }
    if let Some(wt) = &wt {
        match super::githooks::install::health() {
            Ok(line) => r.ok(line),
            Err(problem) => r.problem(problem),
        }
        check_store(&mut r, wt);
        damage::check(&mut r, wt);
        if let Ok(store) = Store::open(&wt.common_dir) {
            match super::sync::health(wt, &store) {
                Ok(line) => r.ok(line),
                Err(problem) => r.problem(problem),
            }
        }
    }
    let code = if r.problems == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if r.json {
        #[derive(serde::Serialize)]
        struct Doc<'a> {
            problems: usize,
            checks: &'a [Check],
        }
        let doc = Doc {
            problems: r.problems,
            checks: &r.checks,
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else if r.problems == 0 {
        println!("all is well");
    } else {
        let plural = if r.problems == 1 { "" } else { "s" };
        println!("{} problem{plural} found", r.problems);
    }
    Ok(code)
}
