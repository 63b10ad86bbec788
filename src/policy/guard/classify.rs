//! Which parsed commands are guarded, and as what: long options in their full spelling first,
//! git aliases (chained, `!` shell aliases, defined on the line or in the environment) seen
//! through, options that come from an unquoted expansion tried at their most destructive, and
//! programs that run code the guard cannot read put aside for the reach rule.

use std::path::Path;

use super::{
    BYPASS_VAR, Guarded, Op, branch, code, files, find, options, pr, push, remote, removers, takes,
    worktree,
};
use crate::git::{self, GitInvocation};
use crate::shell::{SimpleCommand, Unknown};

/// Looks up a git alias for an invocation (only called for subcommands git does not build in).
pub type AliasLookup<'a> = dyn FnMut(&GitInvocation, &str) -> Option<String> + 'a;

/// How many aliases deep a chain is followed.
const MAX_ALIASES: usize = 8;

/// The guarded commands among `cmds`, in order. Everyday commands yield nothing, and nothing is
/// read unless a git subcommand is not a builtin (then `alias` is asked).
pub fn classify(cmds: &[SimpleCommand], alias: &mut AliasLookup<'_>) -> Vec<Guarded> {
    let mut out = Vec::new();
    // Aliases a `git config alias.NAME VALUE` earlier in the line defines (it runs first).
    let defined = std::cell::RefCell::new(std::collections::BTreeMap::<String, String>::new());
    let mut lookup = |inv: &GitInvocation, name: &str| {
        let known = defined.borrow().get(&name.to_ascii_lowercase()).cloned();
        known.or_else(|| alias(inv, name))
    };
    // Commands judged with an earlier one as a whole: the `git apply -R` a `git diff -- b.txt`
    // feeds reverts b.txt, not an unknown patch.
    let mut judged_through: Vec<usize> = Vec::new();
    for (i, c) in cmds.iter().enumerate() {
        if judged_through.contains(&i) {
            continue;
        }
        if let Some(j) = super::reverts::classify(cmds, i) {
            judged_through.extend(j.with.iter().copied());
            let Some(op) = j.op else {
                classify_one(c, &mut lookup, 0, &mut out);
                continue;
            };
            let shown = super::reverts::shown(cmds, i, &j.with);
            let cx = Ctx {
                cmd: c,
                bypass: c
                    .assignments
                    .iter()
                    .any(|(k, v)| k == BYPASS_VAR && v == "1"),
                display: shown,
                passes: None,
            };
            let mut g = cx.guarded(op, None, &j.targets);
            g.cwd = j.cwd;
            if j.unknown.is_some() {
                g.unknown = j.unknown;
            }
            out.push(g);
        }
        classify_one(c, &mut lookup, 0, &mut out);
        if let Some((name, value)) = super::gitline::alias_definition(c) {
            defined.borrow_mut().insert(name, value);
        }
    }
    out.extend(super::hook_writes::after_hook_writes(cmds));
    out
}

/// Whether a word still holds an expansion after the parser's own: a variable, a substitution,
/// or a tilde it could not expand (`~-`, `~user`).
pub(super) fn has_expansion(word: &str) -> bool {
    word.contains('$') || word.contains('`') || word.starts_with('~')
}

use crate::shell::quote_word as show_word;

/// A command's words joined for display.
pub(crate) fn display(argv: &[String]) -> String {
    argv.iter()
        .map(|w| show_word(w))
        .collect::<Vec<_>>()
        .join(" ")
}

struct Ctx<'c> {
    cmd: &'c SimpleCommand,
    bypass: bool,
    display: String,
    /// `GIT_CONFIG_PARAMETERS` the shell text it runs inherits (a `!` alias: the line's `-c`).
    passes: Option<String>,
}

impl Ctx<'_> {
    fn guarded(&self, op: Op, git: Option<GitInvocation>, targets: &[String]) -> Guarded {
        let cwd = git
            .as_ref()
            .map_or_else(|| self.cmd.cwd.clone(), |g| g.cwd.clone());
        Guarded {
            op,
            cwd,
            git,
            display: self.display.clone(),
            bypass: self.bypass,
            unknown: super::closed::unknown_reason(self.cmd, targets),
            runner: self.cmd.runner.clone(),
        }
    }

    fn opaque(&self, op: Op, why: String) -> Guarded {
        Guarded {
            unknown: Some(why),
            ..self.guarded(op, None, &[])
        }
    }
}

fn classify_one(
    cmd: &SimpleCommand,
    alias: &mut AliasLookup<'_>,
    depth: usize,
    out: &mut Vec<Guarded>,
) {
    let shown = display(&cmd.argv);
    let undashed;
    let cmd = match super::gitline::undash(&cmd.argv) {
        Some(argv) => {
            undashed = SimpleCommand {
                argv,
                ..cmd.clone()
            };
            &undashed
        }
        None => cmd,
    };
    let Some(first) = cmd.argv.first() else {
        return;
    };
    let cx = Ctx {
        cmd,
        bypass: cmd
            .assignments
            .iter()
            .any(|(k, v)| k == BYPASS_VAR && v == "1"),
        display: shown,
        passes: None,
    };
    if cmd.unknown == Some(Unknown::Unreadable) {
        let text = cmd.argv.last().cloned().unwrap_or_default();
        if super::closed::may_reach_guarded(&text) {
            out.push(cx.opaque(Op::Unreadable { text }, "it cannot be read".into()));
        }
        return;
    }
    let base = first.rsplit('/').next().unwrap_or(first);
    if let Some(what) = code::unread_commands(cmd, base) {
        let mut g = cx.guarded(Op::Runs { what }, None, &[]);
        g.unknown = None;
        out.push(g);
        return;
    }
    if has_expansion(first) && cmd.unknown.is_some() {
        let why = format!("the command name `{first}` is only known when it runs");
        out.push(cx.opaque(Op::Opaque, why));
        return;
    }
    if base == "eval" && cmd.unknown.is_some() {
        let why = "`eval` runs text that is only known when it runs".to_owned();
        out.push(cx.opaque(Op::Opaque, why));
        return;
    }
    let mut argv = cmd.argv.clone();
    if base == "rm" {
        options::canonical(&mut argv[1..], options::RM_LONGS);
    }
    if let Some(args) = options::copier_args(base, &argv[1..]) {
        argv.truncate(1);
        argv.extend(args);
    }
    if let Some(op) = super::self_protect::classify(&argv, cmd) {
        // Judged by the rule itself, whatever else in the line is only known when it runs.
        // Other rules still look at it, so a reason names everything at risk.
        let mut g = cx.guarded(op, None, &[]);
        g.unknown = None;
        out.push(g);
    }
    if let Some((op, root)) = super::index_file::classify(&argv, cmd) {
        // Judged in the worktree whose index it is, wherever the command runs.
        let mut g = cx.guarded(op, None, &[]);
        g.cwd = root;
        out.push(g);
    }
    let open = open_ended(cmd);
    if let Some(rm) = super::cargo_clean::as_rm(&argv, &cmd.assignments) {
        // A target folder inside git-dibs's own state (`--target-dir .git/dibs`).
        if let Some(op) = super::self_protect::classify(&rm, cmd) {
            out.push(cx.guarded(op, None, &[]));
        }
        let found = worktree::classify_rm(&rm, &cmd.cwd, open).into_iter();
        for (op, targets) in found.chain(files::classify_paths(&rm, &cmd.cwd, open)) {
            out.push(cx.guarded(op, None, &targets));
        }
        return;
    }
    let before = out.len();
    for (op, targets) in worktree::classify_rm(&argv, &cmd.cwd, open)
        .into_iter()
        .chain(find::classify_find(&argv, &cmd.cwd))
        .chain(find::classify_tar(&argv, &cmd.cwd))
        .chain(removers::as_rm(&argv).and_then(|rm| worktree::classify_rm(&rm, &cmd.cwd, open)))
        .chain(files::tar_removes(&argv, &cmd.cwd))
        .chain(branch::classify_ref_rm(&argv, &cmd.cwd))
        .chain(files::classify_paths(&argv, &cmd.cwd, open))
        .chain(files::rsync_delete(&argv, &cmd.cwd).map(|(tree, _)| tree))
        .chain(files::rsync_delete(&argv, &cmd.cwd).map(|(_, take)| take))
        .chain(super::syncers::classify(&argv, &cmd.cwd, open))
        .chain(super::overwrites::classify(&argv, &cmd.cwd))
    {
        out.push(cx.guarded(op, None, &targets));
    }
    if out.len() > before {
        return;
    }
    if let Some(op) = pr::classify(&argv).or_else(|| super::gh::classify(&argv)) {
        out.push(cx.guarded(op, None, &[]));
        return;
    }
    match super::scripts::package_script(&argv, &cmd.cwd, &|p| cmd.file_in_reach(p)) {
        Some((super::scripts::Script::Text(text), top)) => {
            return nested(&cx, &text, &top, "package script", alias, depth, out);
        }
        Some((super::scripts::Script::Unknown(why), _)) => {
            return out.push(cx.opaque(Op::Opaque, why));
        }
        None => {}
    }
    match super::by_path::read(&argv[0], &cmd.cwd) {
        Some(super::by_path::ByPath::Shell(text)) if depth < MAX_ALIASES => {
            let before = out.len();
            if let Ok(cmds) = crate::shell::parse(&text, &cmd.cwd) {
                for c in &cmds {
                    classify_one(c, alias, depth + 1, out);
                }
            }
            super::by_path::lenient(out, before, &argv[0]);
            super::by_path::shown(&mut out[before..], &cx.display);
            for g in &mut out[before..] {
                g.bypass |= cx.bypass;
            }
            return;
        }
        Some(super::by_path::ByPath::Interpreter(prog)) => argv.insert(0, prog),
        _ => {}
    }
    match code::runs(&argv, cmd) {
        Some(code::Found::Ask(what)) => return out.push(cx.guarded(Op::Runs { what }, None, &[])),
        Some(code::Found::Commands { script, lines, dir }) => {
            let what = format!("command run by {script}");
            for line in &lines {
                nested(
                    &cx,
                    line,
                    dir.as_ref().unwrap_or(&cmd.cwd),
                    &what,
                    alias,
                    depth,
                    out,
                );
            }
            return;
        }
        None => {}
    }
    let Some(mut inv) = git::parse_invocation(&argv, &cmd.cwd, &cmd.assignments) else {
        return;
    };
    // Programs git is given to run (`GIT_EDITOR=`, `-c core.fsmonitor=`, `git config
    // core.pager X`): judged as the shell text they are; one it cannot read, by reach.
    let unread = super::programs::judge_all(&inv, cmd, &mut |text, top, what| {
        nested(&cx, text, top, what, alias, depth, out);
    });
    for what in unread {
        let mut g = cx.guarded(Op::Runs { what }, None, &[]);
        g.unknown = None;
        out.push(g);
    }
    if open {
        // `xargs git ...`: its input may supply the subcommand and its options.
        match super::inputs::xargs_input(cmd) {
            Some(words) if depth < MAX_ALIASES => {
                let mut full = cmd.clone();
                full.argv.extend(words.iter().cloned());
                full.unknown = None;
                full.dynamic.resize(full.argv.len(), false);
                let before = out.len();
                classify_one(&full, alias, depth + 1, out);
                for g in &mut out[before..] {
                    g.display = format!("{} (xargs's input: {})", cx.display, words.join(" "));
                    g.bypass |= cx.bypass;
                }
                return;
            }
            Some(_) => {}
            None => {
                let tried = super::worst::xargs_git(&inv.args, |args| git_ops(args, true));
                if !tried.is_empty() {
                    for (op, why) in tried {
                        let mut g = cx.guarded(op, Some(inv.clone()), &[]);
                        g.unknown = Some(why);
                        out.push(g);
                    }
                    return;
                }
            }
        }
    }
    let Some(sub) = inv.args.first().cloned() else {
        return;
    };
    if let Some(why) = super::named_repo::unjudged(&inv)
        && !git_ops(&inv.args, true).is_empty()
    {
        out.push(cx.opaque(Op::Opaque, why));
        return;
    }
    // A folder made earlier in the line holds nobody's uncommitted work: what reaches only its
    // own files (commit, merge, reset, checkout, ...) is left alone; what reaches the clone's
    // shared state (the stash, branches, other worktrees, the remote) is asked about.
    if let Some(why) = super::named_repo::not_there_yet(&inv, &cmd.cwd, cmd.cwd_known)
        && git_ops(&inv.args, true)
            .iter()
            .any(|(op, _)| !op.on_peers_files())
    {
        out.push(cx.opaque(Op::Opaque, why));
    }
    if has_expansion(&sub) && (cmd.unknown.is_some() || cmd.dynamic.iter().any(|d| *d)) {
        let why = format!("the git subcommand `{sub}` is only known when it runs");
        out.push(cx.opaque(Op::Opaque, why));
        return;
    }
    // Aliases, chained, as git resolves them; a `!` alias is shell text run at the top level.
    let mut expanded = false;
    for _ in 0..MAX_ALIASES {
        let Some(sub) = inv.args.first().cloned() else {
            return;
        };
        if git::BUILTINS.contains(&sub.as_str()) {
            break;
        }
        let value = match inv.alias_from_env.get(&sub) {
            Some(v) => v.clone(),
            None => match alias(&inv, &sub) {
                Some(v) => Some(v),
                None => break,
            },
        };
        let Some(value) = value else {
            let why = format!("the alias `{sub}` is defined from a value only known when it runs");
            out.push(cx.opaque(Op::Opaque, why));
            return;
        };
        if let Some(text) = value.trim_start().strip_prefix('!') {
            shell_alias(&cx, text, &inv, alias, depth, out);
            return;
        }
        if !git::expand_alias(&value, &mut inv.args) {
            break;
        }
        expanded = true;
    }
    if expanded && let Some(op) = super::self_protect::classify_rewrite(&inv.args) {
        let mut g = cx.guarded(op, None, &[]);
        g.unknown = None;
        out.push(g);
    }
    let top = || git::invocation_worktree(&inv).map_or_else(|| inv.cwd.clone(), |w| w.root);
    if let Some((text, dirs)) = super::gitline::submodule_foreach(&inv.args, &top()) {
        for dir in dirs {
            nested(&cx, &text, &dir, "submodule foreach", alias, depth, out);
        }
        return;
    }
    options::canonical_git(&mut inv.args);
    super::inputs::pathspec_file(&mut inv, cmd);
    super::inputs::read_inputs(&mut inv, cmd);
    let icase = inv.icase;
    let mut found = git_ops(&inv.args, open);
    found.extend(worktree::classify_deinit(&inv.args, &inv.cwd));
    let mut pushed = false;
    for (mut op, targets) in found {
        if icase && let Op::Take(takes) = &mut op {
            for t in takes.iter_mut() {
                t.icase = true;
            }
        }
        out.push(cx.guarded(op, Some(inv.clone()), &targets));
        pushed = true;
    }
    if pushed {
        return;
    }
    // An option, subcommand verb or refspec from an unquoted expansion may be anything: try the
    // most destructive word in its place.
    let dynamic: Vec<usize> = (1..argv.len())
        .filter(|&i| cmd.dynamic.get(i).copied().unwrap_or(false))
        .collect();
    if dynamic.is_empty() {
        return;
    }
    let offset = argv.len() - inv.args.len();
    for &i in &dynamic {
        let Some(k) = i.checked_sub(offset) else {
            continue;
        };
        for worst in super::worst::words(&sub) {
            let mut args = inv.args.clone();
            if k < args.len() {
                args.insert(k, (*worst).to_owned());
            }
            if let Some((op, _)) = git_ops(&args, true).into_iter().next() {
                let word = &argv[i];
                let mut g = cx.guarded(op, Some(inv.clone()), &[]);
                g.unknown = Some(format!(
                    "`{word}` is only known when it runs and may be an option such as `{worst}`"
                ));
                out.push(g);
                return;
            }
        }
    }
}

/// Every guarded operation a git subcommand performs.
fn git_ops(args: &[String], open: bool) -> Vec<(Op, Vec<String>)> {
    let mut v: Vec<(Op, Vec<String>)> = Vec::new();
    if let Some(found) = worktree::classify_git(args, open)
        .or_else(|| branch::classify_git(args, open))
        .or_else(|| remote::classify_git(args, open))
    {
        v.push(found);
    }
    v.extend(branch::classify_local_updates(args));
    v.extend(push::classify_git(args));
    v.extend(takes::classify_git(args, open));
    v
}

/// A `!` alias: its shell text runs at the top of the worktree, with the alias's arguments.
fn shell_alias(
    cx: &Ctx<'_>,
    text: &str,
    inv: &GitInvocation,
    alias: &mut AliasLookup<'_>,
    depth: usize,
    out: &mut Vec<Guarded>,
) {
    let top = git::invocation_worktree(inv).map_or_else(|| inv.cwd.clone(), |w| w.root);
    let args: Vec<String> = inv.args[1..].iter().map(|a| show_word(a)).collect();
    let line = format!("{text} {}", args.join(" "));
    // git hands the line's config to the commands the alias runs (`git y` inside it).
    let cx = Ctx {
        passes: super::gitline::config_parameters(inv),
        display: cx.display.clone(),
        ..*cx
    };
    nested(&cx, &line, &top, "alias for", alias, depth, out);
}

/// Shell text a command runs (an alias, a package script), read like `bash -c TEXT` in `top`.
fn nested(
    cx: &Ctx<'_>,
    line: &str,
    top: &Path,
    what: &str,
    alias: &mut AliasLookup<'_>,
    depth: usize,
    out: &mut Vec<Guarded>,
) {
    match crate::shell::parse(line, top) {
        Ok(mut cmds) if depth < MAX_ALIASES => {
            for c in &mut cmds {
                if let Some(p) = &cx.passes {
                    c.assignments
                        .insert(0, ("GIT_CONFIG_PARAMETERS".into(), p.clone()));
                }
            }
            for c in &cmds {
                let before = out.len();
                classify_one(c, alias, depth + 1, out);
                for g in &mut out[before..] {
                    g.display = format!("{} ({what}: {line})", cx.display);
                    g.bypass |= cx.bypass;
                }
            }
        }
        _ => out.push(cx.opaque(
            Op::Unreadable {
                text: line.to_owned(),
            },
            format!("its {} cannot be read", what.trim_end_matches(" for")),
        )),
    }
}

/// Whether more arguments are appended when the command runs (`xargs`, `find -exec`).
fn open_ended(cmd: &SimpleCommand) -> bool {
    cmd.unknown == Some(Unknown::Xargs)
}

/// Whether `path` lies inside a git directory's refs or names its `.git` entry.
pub(super) fn is_git_entry(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == ".git")
}
