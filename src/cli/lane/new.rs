//! `git dibs lane new`: a linked worktree under the lanes folder on a new branch `lane/NAME`
//! from the base, claimed (`worktree:` and `branch:`) for the session. Every refusal happens
//! before anything is made, and a failure after that rolls back what was made.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow, bail};
use serde::Serialize;

use super::{Ctx, LANE_PREFIX, SHARED_TARGET_GROUP, caller_session, check_name};
use crate::git::lanes::{BASE_KEY, LaneRepo, checked_out_branch, git, short_sha};
use crate::git::{self, Repo};
use crate::policy::claims::describe;
use crate::store::{ClaimRequest, Grant, Target, Writer};

/// Options of `lane new`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The lane's name (default: the session's short id); the branch is `lane/NAME`.
    pub(crate) name: Option<String>,
    /// Where the lane starts: a branch, remote branch or commit (default: the current branch's
    /// upstream, else HEAD). A branch (or a remote branch with a local twin) becomes the lane's
    /// base for `land`.
    #[arg(long, value_name = "REF")]
    pub(crate) base: Option<String>,
    /// The session that holds the lane (default: `DIBS_SESSION`, `CLAUDE_CODE_SESSION_ID`, you).
    #[arg(long, value_name = "ID")]
    pub(crate) session: Option<String>,
    /// Build into the main worktree's cargo target folder (see the README for why and how).
    #[arg(long)]
    pub(crate) shared_target: bool,
    /// Start from a local branch even though its checkout has uncommitted changes.
    #[arg(long)]
    pub(crate) allow_dirty_base: bool,
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

/// The `--json` answer.
#[derive(Debug, Serialize)]
struct Made {
    name: String,
    path: PathBuf,
    branch: String,
    base: Option<String>,
    start: String,
    session: String,
    shared_target: Option<PathBuf>,
}

/// Where the lane starts and what it lands on.
struct Start {
    commit: String,
    base: Option<String>,
    /// Whether the start is the local tip of `base` (so its checkout's dirt matters).
    local: bool,
    shown: String,
}

fn resolve_start(ctx: &Ctx, repo: &LaneRepo, spec: Option<&str>) -> Result<Start> {
    if let Some(spec) = spec {
        let commit = repo
            .commit_of(spec)
            .with_context(|| format!("--base `{spec}` names no commit here"))?;
        let full = repo.full_ref_name(spec);
        let (base, local) = match full.as_deref() {
            Some(f) if f.starts_with("refs/heads/") => (Some(f[11..].to_owned()), true),
            Some(f) if f.starts_with("refs/remotes/") => {
                let name = f[13..].split_once('/').map(|(_, b)| b.to_owned());
                (name.filter(|b| repo.branch_tip(b).is_some()), false)
            }
            _ => (None, false),
        };
        return Ok(Start {
            commit,
            base,
            local,
            shown: spec.to_owned(),
        });
    }
    let here = checked_out_branch(&ctx.here.git_dir);
    if let Some(b) = &here
        && let Some((_, up)) = repo.upstream_ref(b)
        && let Some(tip) = repo.ref_tip(&up)
    {
        return Ok(Start {
            commit: tip,
            base: Some(b.clone()),
            local: false,
            shown: up.trim_start_matches("refs/remotes/").to_owned(),
        });
    }
    let commit = repo
        .commit_of("HEAD")
        .context("HEAD names no commit yet; make a first commit before a lane")?;
    Ok(Start {
        commit,
        base: here.clone(),
        local: true,
        shown: here.unwrap_or_else(|| "HEAD".into()),
    })
}

/// Refuse when the start is a local tip whose checkout holds uncommitted changes: those would
/// silently be missing from the lane.
fn check_dirty_base(ctx: &Ctx, start: &Start) -> Result<()> {
    if !start.local {
        return Ok(());
    }
    for entry in git::list_worktrees(&ctx.common) {
        let here = entry.git_dir == ctx.here.git_dir;
        let on_base = match &start.base {
            Some(b) => checked_out_branch(&entry.git_dir).as_deref() == Some(b.as_str()),
            None => here,
        };
        if !on_base || entry.husk {
            continue;
        }
        let status = Repo::open(&entry.root)?.status()?;
        if !status.is_empty() {
            let names: Vec<String> = status.iter().map(|f| f.porcelain()).collect();
            return Err(Refused(format!(
                "the base {} is checked out in {} with {} uncommitted change(s), which would not \
                 be in the lane:\n    {}\ncommit them first, start from the upstream with \
                 --base <remote>/<branch>, or pass --allow-dirty-base",
                start.shown,
                entry.root.display(),
                names.len(),
                names.join("\n    ")
            ))
            .into());
        }
    }
    Ok(())
}

/// Make sure the lanes folder is ignored in the main worktree (`.git/info/exclude`).
fn exclude_lanes_dir(ctx: &Ctx, repo: &LaneRepo) -> Result<()> {
    let Ok(rel) = ctx.dir.strip_prefix(&ctx.main_root) else {
        return Ok(());
    };
    if rel.as_os_str().is_empty() || repo.is_ignored(&rel.join("x")) {
        return Ok(());
    }
    let info = ctx.common.join("info");
    fs::create_dir_all(&info).context("cannot create .git/info")?;
    let path = info.join("exclude");
    let mut text = fs::read_to_string(&path).unwrap_or_default();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let line = format!("/{}/", rel.to_string_lossy().replace('\\', "/"));
    if text.lines().any(|l| l.trim() == line) {
        return Ok(());
    }
    text.push_str(&format!("# git-dibs lanes\n{line}\n"));
    fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// Write the cargo config that points every lane in the shared-target group at the main
/// worktree's `target/`.
fn write_shared_target(group: &Path, target: &Path) -> Result<()> {
    let dir = group.join(".cargo");
    fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let quoted = serde_json::to_string(&target.to_string_lossy())?;
    let text = format!(
        "# Written by `git dibs lane new --shared-target`: lanes in this folder build into the\n\
         # main worktree's target folder, so dependencies compiled there are reused.\n\
         [build]\ntarget-dir = {quoted}\n"
    );
    let path = dir.join("config.toml");
    let mut f =
        fs::File::create(&path).with_context(|| format!("cannot write {}", path.display()))?;
    f.write_all(text.as_bytes())?;
    Ok(())
}

/// The main worktree's cargo config file, when lanes in `group` sit inside the main worktree
/// and that file sets `rustflags` (or `rustdocflags`): cargo reads a config in every folder above
/// the one it builds in and joins array settings, so a lane's own copy of the file and the main
/// worktree's add up, the flags differ from the main worktree's build, and a shared target is
/// rebuilt instead of reused.
fn doubled_cargo_flags(main_root: &Path, group: &Path) -> Option<PathBuf> {
    if !group.starts_with(main_root) {
        return None;
    }
    [".cargo/config.toml", ".cargo/config"]
        .into_iter()
        .map(|rel| main_root.join(rel))
        .find(|path| {
            fs::read_to_string(path).is_ok_and(|text| {
                text.lines().any(|line| {
                    let key = line.split('=').next().unwrap_or("").trim();
                    line.contains('=')
                        && !key.starts_with('#')
                        && key.ends_with("flags")
                        && key.contains("rust")
                })
            })
        })
}

/// Undo a half-made lane: the worktree, the branch and its config.
fn roll_back(ctx: &Ctx, path: &Path, branch: &str, made_dir: bool) {
    let p = path.to_string_lossy();
    let _ = git(
        &ctx.main_root,
        &["worktree", "remove", "--force", "--force", &p],
    );
    let _ = git(&ctx.main_root, &["branch", "-D", branch]);
    let _ = git(
        &ctx.main_root,
        &["config", "--remove-section", &format!("branch.{branch}")],
    );
    let _ = git(&ctx.main_root, &["worktree", "prune"]);
    if made_dir {
        let _ = fs::remove_dir(&ctx.dir);
    }
}

/// Run `lane new`.
pub(crate) fn run(args: Args) -> Result<ExitCode> {
    let ctx = Ctx::open()?;
    let repo = LaneRepo::open(&ctx.here.root)?;
    let (id, host, process) = caller_session(args.session.as_deref());
    let host = ctx.store.session(&id)?.map_or(host, |s| s.host);
    let name = match &args.name {
        Some(n) => n.strip_prefix(LANE_PREFIX).unwrap_or(n).to_owned(),
        None => default_name(&ctx, &repo, &id),
    };
    check_name(&name)?;
    let branch = format!("{LANE_PREFIX}{name}");
    if repo.branch_tip(&branch).is_some() {
        bail!(
            "branch {branch} already exists; pick another name (`git dibs lane list` shows the \
             lanes, `git dibs lane prune` clears finished ones)"
        );
    }
    let group = if args.shared_target {
        ctx.dir.join(SHARED_TARGET_GROUP)
    } else {
        ctx.dir.clone()
    };
    let path = group.join(&name);
    if let Some(clash) = ctx.lanes().into_iter().find(|l| l.name == name) {
        bail!(
            "a lane named `{name}` already exists at {}",
            clash.root().display()
        );
    }
    if fs::symlink_metadata(&path).is_ok() {
        bail!("{} already exists; pick another lane name", path.display());
    }
    let start = resolve_start(&ctx, &repo, args.base.as_deref())?;
    if !args.allow_dirty_base
        && let Err(e) = check_dirty_base(&ctx, &start)
    {
        return refusal(e, args.json, "");
    }
    exclude_lanes_dir(&ctx, &repo)?;
    let made_dir = !ctx.dir.exists();
    fs::create_dir_all(&group).with_context(|| format!("cannot create {}", group.display()))?;
    let p = path.to_string_lossy().into_owned();
    if let Err(e) = git(
        &ctx.main_root,
        &[
            "worktree",
            "add",
            "--quiet",
            "--no-track",
            "-b",
            &branch,
            &p,
            &start.commit,
        ],
    ) {
        roll_back(&ctx, &path, &branch, made_dir);
        return Err(anyhow!(e).context(format!("cannot create the lane worktree at {p}")));
    }
    let path = fs::canonicalize(&path).unwrap_or(path);
    let made = (|| -> Result<Option<PathBuf>> {
        if let Some(base) = &start.base {
            git(
                &ctx.main_root,
                &["config", &format!("branch.{branch}.{BASE_KEY}"), base],
            )?;
        }
        let shared = if args.shared_target {
            let target = ctx.main_root.join("target");
            write_shared_target(&group, &target)?;
            if let Some(config) = doubled_cargo_flags(&ctx.main_root, &group) {
                eprintln!(
                    "warning: the lane reads {} twice, its own copy and the main worktree's \
                     above it, and cargo joins their rustflags: builds in the lane will not \
                     reuse what the main worktree compiled. Keep lanes outside the main \
                     worktree: `git config dibs.worktreesDir <folder outside it>`",
                    config.display()
                );
            }
            Some(target)
        } else {
            None
        };
        let requests: Vec<ClaimRequest> = [
            Target::Worktree { path: path.clone() },
            Target::Branch {
                name: branch.clone(),
            },
        ]
        .into_iter()
        .map(|target| ClaimRequest {
            target,
            intent: Some(format!("lane {name}")),
            exclusive: false,
            ttl: ctx.ttl,
        })
        .collect();
        let writer = Writer::from_process(process.as_ref());
        let grants = ctx
            .store
            .claim(&id, host, writer, ctx.now, &requests, |s| ctx.alive(s))?;
        if let Some(Grant::Refused { target, holder }) =
            grants.iter().find(|g| matches!(g, Grant::Refused { .. }))
        {
            return Err(Refused(format!("{target} is held by {}", describe(holder))).into());
        }
        Ok(shared)
    })();
    let shared = match made {
        Ok(s) => s,
        Err(e) => {
            roll_back(&ctx, &path, &branch, made_dir);
            // Someone else holds what the lane would claim: a refusal (exit 1), not an error.
            return refusal(e, args.json, "; the lane was rolled back")
                .map_err(|e| e.context("the lane was rolled back"));
        }
    };
    if args.json {
        let doc = Made {
            name,
            path,
            branch,
            base: start.base,
            start: start.commit,
            session: id,
            shared_target: shared,
        };
        println!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        eprintln!(
            "lane {name}: branch {branch} from {} ({}), held by {}{}",
            start.shown,
            short_sha(&start.commit),
            crate::store::short_id(&id),
            shared
                .as_ref()
                .map(|t| format!(", cargo target {}", t.display()))
                .unwrap_or_default()
        );
        println!("{}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The session's short id, or with `-2`, `-3`, ... when taken.
fn default_name(ctx: &Ctx, repo: &LaneRepo, id: &str) -> String {
    let stem: String = crate::store::short_id(id)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let stem = stem.trim_start_matches(['-', '.']).to_owned();
    let stem = if stem.is_empty() {
        "lane".to_owned()
    } else {
        stem
    };
    let taken = |n: &str| {
        repo.branch_tip(&format!("{LANE_PREFIX}{n}")).is_some()
            || ctx.dir.join(n).exists()
            || ctx.dir.join(SHARED_TARGET_GROUP).join(n).exists()
    };
    #[allow(
        clippy::maybe_infinite_iter,
        reason = "the names taken are finitely many, so one is free"
    )]
    (1..)
        .map(|i| {
            if i == 1 {
                stem.clone()
            } else {
                format!("{stem}-{i}")
            }
        })
        .find(|n| !taken(n))
        .expect("some name is free")
}

/// A [`Refused`] error as the refusal it is (exit 1; `{"refused": why}` with `--json`), any
/// other as the error; `then` is said after the reason.
fn refusal(e: anyhow::Error, json: bool, then: &str) -> Result<ExitCode> {
    let Some(Refused(why)) = e.downcast_ref::<Refused>() else {
        return Err(e);
    };
    if json {
        #[derive(Serialize)]
        struct Refusal {
            refused: String,
        }
        super::super::print_json(&Refusal {
            refused: format!("{why}{then}"),
        })?;
    } else {
        eprintln!("git dibs: {why}{then}");
    }
    Ok(ExitCode::from(1))
}

/// A claim the lane needs is held by someone else, or its base has uncommitted changes.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Refused(String);
