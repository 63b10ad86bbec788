//! `install` / `uninstall` for the other agent hosts (`--cursor`, `--gemini`, `--codex`, `--all`):
//! each host's project hook file merged like Claude Code's settings, with the same refusals,
//! atomic writes and `--dry-run`.

use anyhow::{Context, Result, anyhow};

use super::{Args, Mode, Report, Scope, choose_command, load, write_atomic, write_target};
use crate::protocol::settings::{ConfigHost, Settings};

/// The non-Claude hosts named by `args`, and whether Claude Code is wanted too (it is when no
/// host is named, with `--claude` and with `--all`).
fn selected(args: &Args) -> (Vec<ConfigHost>, bool) {
    let flags = [
        (ConfigHost::Cursor, args.cursor),
        (ConfigHost::Gemini, args.gemini),
        (ConfigHost::Codex, args.codex),
    ];
    let others: Vec<ConfigHost> = flags
        .iter()
        .filter(|(_, on)| *on || args.all)
        .map(|(h, _)| *h)
        .collect();
    let claude = args.claude || args.all || others.is_empty();
    (others, claude)
}

/// Install or uninstall the non-Claude hosts `args` names. Returns whether Claude Code's
/// settings are to be handled too.
pub(super) fn run_others(args: &Args, mode: Mode, report: &mut Report) -> Result<bool> {
    let (others, claude) = selected(args);
    for host in others {
        run_host(host, mode, args.dry_run, report)?;
    }
    Ok(claude)
}

/// Install or uninstall git-dibs in one host's project hook file.
pub(super) fn run_host(
    host: ConfigHost,
    mode: Mode,
    dry_run: bool,
    report: &mut Report,
) -> Result<()> {
    let root = super::super::current_worktree_any()?.root;
    let path = root.join(host.project_file());
    let shown = path.display();
    let target = write_target(&path, report)?;
    let loaded = load(&target).map_err(|e| anyhow!("{e:#}; nothing was changed"))?;
    let (original, mut file) = match loaded {
        Some((bytes, parsed)) => (Some(bytes), parsed),
        None => (None, Settings::empty()),
    };
    let layout = host.layout();
    let (wire, remove) = if dry_run {
        ("would wire", "would remove")
    } else {
        ("wired", "removed")
    };
    let (changed, summary) = match mode {
        Mode::Install => {
            let (base, note) = choose_command(Scope::Project);
            if let Some(note) = note {
                report.note(note);
            }
            let command = host.command(&base);
            let changed = file
                .install_in(layout, &command)
                .map_err(|e| anyhow!("refusing to change {shown}: {e}; nothing was changed"))?;
            let summary = if changed {
                format!(
                    "{wire} {} git-dibs hooks (`{command}`) into {shown} for {host}",
                    layout.hooks.len()
                )
            } else {
                format!("git-dibs hooks are already wired in {shown}; nothing changed")
            };
            (changed, summary)
        }
        Mode::Uninstall => {
            let removed = file.uninstall_in(layout);
            let summary = if removed > 0 {
                format!("{remove} {removed} git-dibs hooks from {shown}")
            } else {
                format!("no git-dibs hooks in {shown}; nothing changed")
            };
            (removed > 0, summary)
        }
    };
    if dry_run {
        let content = match (changed, &original) {
            (true, _) => Some(file.render()),
            (false, Some(bytes)) => Some(String::from_utf8_lossy(bytes).into_owned()),
            (false, None) => None,
        };
        report.dry_run_file(host.name(), &path, changed, summary, content);
        return Ok(());
    }
    if changed {
        write_atomic(&target, file.render().as_bytes())
            .with_context(|| format!("{host} hooks not written"))?;
    }
    report.file(host.name(), &path, changed, summary);
    if changed && mode == Mode::Install {
        if let Some(note) = trust_note(host) {
            report.note(note);
        }
        report.commit_later(super::relative(&path, Some(&root)));
    }
    Ok(())
}

/// What the person must still do before the host runs new project hooks.
fn trust_note(host: ConfigHost) -> Option<&'static str> {
    match host {
        ConfigHost::Gemini => Some(
            "note: Gemini CLI runs a project's hooks only in a trusted folder, and asks again \
             when a hook's command changes",
        ),
        ConfigHost::Codex => Some(
            "note: Codex runs a project's hooks only once the project is trusted and the hooks \
             are reviewed (`/hooks` in codex)",
        ),
        _ => None,
    }
}
