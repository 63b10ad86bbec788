//! What a forced `git push` writes over on its remote, read through git itself (its config with
//! includes, `-c` and `GIT_CONFIG_*`; its refs): for each remote branch the push forces, the
//! commits of the remote-tracking ref that the pushed commit does not contain and that no other
//! ref (git-dibs's own under `refs/dibs/` aside) has. The remote is asked (`git ls-remote`,
//! bounded) only about a branch never fetched here: one it does not have loses nothing.

use std::collections::BTreeMap;
use std::path::Path;

use super::cli::{CliError, run_with};
use super::facts::CommitInfo;

/// A `git push` as written: which remote, which refspecs, which forcing options.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PushRequest {
    /// The remote as written (a name or a URL); `None`: the branch's push remote.
    pub(crate) remote: Option<String>,
    /// The refspecs as written (empty: the configured ones, or `push.default`'s).
    pub(crate) refspecs: Vec<String>,
    /// `-f` / `--force`.
    pub(crate) force: bool,
    /// The `--force-with-lease` values given (`""` for the bare option).
    pub(crate) lease: Vec<String>,
    /// `--all` / `--branches`.
    pub(crate) all: bool,
    /// `--mirror`.
    pub(crate) mirror: bool,
    /// `-c key=value` given to git.
    pub(crate) config: Vec<String>,
}

/// One remote branch a push forces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForcedUpdate {
    /// The remote's name (or the URL as written).
    pub(crate) remote: String,
    /// The branch on the remote.
    pub(crate) branch: String,
    /// What is pushed there, as written (`main`, `HEAD`, a commit).
    pub(crate) source: String,
    /// Commits the remote branch holds that the push drops and no other ref has.
    pub(crate) dropped: Vec<CommitInfo>,
    /// Why what it drops cannot be told (never fetched, a source that names no commit).
    pub(crate) unknown: Option<String>,
}

/// The branches a push forces, and what each drops. A push that forces nothing gives none.
pub(crate) fn forced_updates(
    root: &Path,
    req: &PushRequest,
    limit: usize,
) -> Result<Vec<ForcedUpdate>, CliError> {
    let git = |args: &[&str]| -> Result<String, CliError> {
        let mut all: Vec<&str> = Vec::new();
        for kv in &req.config {
            all.extend(["-c", kv.as_str()]);
        }
        all.extend_from_slice(args);
        let out = run_with(root, &all, None, &[])?;
        Ok(String::from_utf8_lossy(&out).into_owned())
    };
    let config = parse_config(&git(&["config", "-z", "--list"]).unwrap_or_default());
    let get = |k: &str| config.get(k).and_then(|v| v.last()).cloned();
    let current = git(&["symbolic-ref", "-q", "HEAD"])
        .ok()
        .and_then(|r| r.trim().strip_prefix("refs/heads/").map(str::to_owned));
    let remotes: Vec<String> = config
        .keys()
        .filter_map(|k| k.strip_prefix("remote.")?.strip_suffix(".url"))
        .map(str::to_owned)
        .collect();
    let written = req.remote.clone().or_else(|| {
        let b = current.as_deref()?;
        get(&format!("branch.{b}.pushremote"))
            .or_else(|| get("remote.pushdefault"))
            .or_else(|| get(&format!("branch.{b}.remote")))
    });
    let written = written.unwrap_or_else(|| "origin".into());
    // A remote named by its URL, or by a path to the same folder (`../repo.git`, `file://…`).
    let as_path = |url: &str| {
        let p = url.strip_prefix("file://").unwrap_or(url);
        (p.starts_with('/') || p.starts_with('.'))
            .then(|| std::fs::canonicalize(root.join(p)).ok())
            .flatten()
    };
    let written_path = as_path(&written);
    let same =
        |url: &String| *url == written || (written_path.is_some() && as_path(url) == written_path);
    let remote: Option<String> = if remotes.contains(&written) {
        Some(written.clone())
    } else {
        remotes
            .iter()
            .find(|r| {
                [format!("remote.{r}.url"), format!("remote.{r}.pushurl")]
                    .iter()
                    .any(|k| config.get(k).is_some_and(|v| v.iter().any(same)))
            })
            .cloned()
    };
    let configured: Vec<String> = remote
        .as_ref()
        .and_then(|r| config.get(&format!("remote.{r}.push")).cloned())
        .unwrap_or_default();
    let mirror = req.mirror
        || (req.refspecs.is_empty()
            && remote
                .as_ref()
                .and_then(|r| get(&format!("remote.{r}.mirror")))
                .is_some_and(|v| v == "true"));
    let any_force = req.force || !req.lease.is_empty() || mirror;
    let mut specs: Vec<String> = if mirror || req.all {
        vec!["refs/heads/*:refs/heads/*".into()]
    } else if !req.refspecs.is_empty() {
        req.refspecs.clone()
    } else if !configured.is_empty() {
        configured
    } else {
        match get("push.default").as_deref() {
            Some("matching") => vec![":".into()],
            Some("nothing") => Vec::new(),
            _ => match &current {
                Some(b) => {
                    let merge = get(&format!("branch.{b}.merge"));
                    let upstream_here =
                        get(&format!("branch.{b}.remote")).as_deref() == remote.as_deref();
                    match merge.filter(|_| upstream_here) {
                        Some(m) => vec![format!("refs/heads/{b}:{m}")],
                        None => vec![format!("refs/heads/{b}")],
                    }
                }
                None => Vec::new(),
            },
        }
    };
    if mirror {
        specs = specs.into_iter().map(|s| format!("+{s}")).collect();
    }
    if !any_force && !specs.iter().any(|s| s.starts_with('+')) {
        return Ok(Vec::new());
    }
    let refs = git(&[
        "for-each-ref",
        "--format=%(objectname) %(refname)",
        "refs/heads",
        "refs/remotes",
    ])?;
    let refs: BTreeMap<String, String> = refs
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(id, name)| (name.to_owned(), id.to_owned()))
        .collect();
    let tracking = |branch: &str| {
        let r = remote.as_ref()?;
        refs.get(&format!("refs/remotes/{r}/{branch}")).cloned()
    };
    let mut out = Vec::new();
    for spec in &specs {
        let forced_spec = spec.starts_with('+');
        let spec = spec.trim_start_matches('+');
        for (src, branch) in expand(spec, current.as_deref(), &refs, &tracking) {
            let lease = lease_for(&req.lease, &branch);
            if !(req.force || forced_spec || mirror || lease.is_some()) {
                continue;
            }
            let mut update = ForcedUpdate {
                remote: remote.clone().unwrap_or_else(|| written.clone()),
                branch: branch.clone(),
                source: src.clone(),
                dropped: Vec::new(),
                unknown: None,
            };
            let expected = match &lease {
                // `--force-with-lease=B:` : git pushes only where B does not exist yet.
                Some(Some(e)) if e.is_empty() => continue,
                Some(Some(e)) => Some(e.clone()),
                _ => tracking(&branch),
            };
            let old = match expected {
                Some(old) => old,
                // With a lease and no remote-tracking ref, git refuses to write over a branch
                // the remote has.
                None if lease.is_some() && !req.force && !forced_spec && !mirror => continue,
                // Never fetched here: the remote says what it holds (a branch it does not
                // have loses nothing), bounded in time; no answer leaves it unknown.
                None => match remote_tip(root, &update.remote, &branch, &req.config) {
                    Some(None) => continue,
                    Some(Some(tip))
                        if git(&["cat-file", "-e", &format!("{tip}^{{commit}}")]).is_ok() =>
                    {
                        tip
                    }
                    Some(Some(tip)) => {
                        update.unknown = Some(format!(
                            "{}/{branch} holds {}, which was never fetched here",
                            update.remote,
                            &tip[..tip.len().min(8)]
                        ));
                        out.push(update);
                        continue;
                    }
                    None => {
                        update.unknown = Some(format!(
                            "{}/{branch} was never fetched here and the remote did not answer, \
                             so what it holds is unknown",
                            update.remote
                        ));
                        out.push(update);
                        continue;
                    }
                },
            };
            let peeled = format!("{src}^{{commit}}");
            let Ok(new) = git(&["rev-parse", "-q", "--verify", "--end-of-options", &peeled]) else {
                update.unknown = Some(format!("`{src}` names no commit here"));
                out.push(update);
                continue;
            };
            let n = format!("-n{limit}");
            let own = remote
                .as_ref()
                .map(|r| format!("--exclude=refs/remotes/{r}/{branch}"));
            // What the pushed branch itself once held (an amend, a rebase of your own branch)
            // was rewritten here on purpose: only commits it never had count.
            let had = source_branch(&src, current.as_deref(), &refs)
                .map(|b| {
                    let r = format!("refs/heads/{b}");
                    git(&["log", "-g", "-n256", "--format=%H", &r, "--"]).unwrap_or_default()
                })
                .unwrap_or_default();
            let mut args = vec!["log", &n, "--format=%H %s", &old, "--not", new.trim()];
            args.extend(had.lines().filter(|l| !l.is_empty()));
            if let Some(own) = &own {
                args.push(own);
            }
            args.extend(["--exclude=refs/dibs/*", "--all"]);
            update.dropped = super::cli::commits_of(&git(&args)?);
            out.push(update);
        }
    }
    Ok(out)
}

/// How long the remote may take to say what a branch holds.
const ASK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// What `remote` holds at `refs/heads/<branch>`, asked of the remote itself (`git ls-remote`,
/// no prompt, bounded): `Some(None)` when it has no such branch, `None` when it did not answer.
fn remote_tip(
    root: &Path,
    remote: &str,
    branch: &str,
    config: &[String],
) -> Option<Option<String>> {
    let mut cmd = super::lanes::git_command(root);
    cmd.env("GIT_SSH_COMMAND", "ssh -o BatchMode=yes");
    for kv in config {
        cmd.args(["-c", kv]);
    }
    let name = format!("refs/heads/{branch}");
    cmd.args(["ls-remote", "--end-of-options", remote, &name]);
    let done = super::run::bounded(cmd, ASK_TIMEOUT, 64 * 1024).ok()?;
    if !done.success {
        return None;
    }
    Some(done.stdout.lines().find_map(|l| {
        let (oid, r) = l.split_once('\t')?;
        (r.trim() == name).then(|| oid.trim().to_owned())
    }))
}

/// The local branch a push source names (`HEAD` for the current one), if it names one.
fn source_branch(
    src: &str,
    current: Option<&str>,
    refs: &BTreeMap<String, String>,
) -> Option<String> {
    let name = match src {
        "HEAD" | "@" => current?,
        s => s.strip_prefix("refs/heads/").unwrap_or(s),
    };
    refs.contains_key(&format!("refs/heads/{name}"))
        .then(|| name.to_owned())
}

/// `key\nvalue\0` entries of `git config -z --list`, every value of each key in order.
fn parse_config(text: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for entry in text.split('\0').filter(|e| !e.is_empty()) {
        let (k, v) = entry.split_once('\n').unwrap_or((entry, "true"));
        // Section and key are case-insensitive; a subsection (the remote's name) is not.
        let key = match (k.find('.'), k.rfind('.')) {
            (Some(a), Some(b)) if a < b => {
                format!(
                    "{}{}{}",
                    &k[..a].to_ascii_lowercase(),
                    &k[a..b],
                    &k[b..].to_ascii_lowercase()
                )
            }
            _ => k.to_ascii_lowercase(),
        };
        out.entry(key).or_default().push(v.to_owned());
    }
    out
}

/// The lease a push holds on `branch`: `None` without one, `Some(None)` leased on the
/// remote-tracking ref, `Some(Some(expect))` on an explicit value.
fn lease_for(leases: &[String], branch: &str) -> Option<Option<String>> {
    let mut found = None;
    for l in leases {
        if l.is_empty() {
            found.get_or_insert(None);
            continue;
        }
        let (name, expect) = match l.split_once(':') {
            Some((n, e)) => (n, Some(e.to_owned())),
            None => (l.as_str(), None),
        };
        let name = name.strip_prefix("refs/heads/").unwrap_or(name);
        if name == branch {
            found = Some(expect);
        }
    }
    found
}

/// The `(source, remote branch)` pairs one refspec (without `+`) writes: `SRC:DST`, `SRC`
/// alone (its own name), `HEAD`, `:` (matching branches), `refs/heads/*:refs/heads/*`. A
/// deletion (`:DST`) and destinations outside `refs/heads/` give none.
fn expand(
    spec: &str,
    current: Option<&str>,
    refs: &BTreeMap<String, String>,
    tracking: &dyn Fn(&str) -> Option<String>,
) -> Vec<(String, String)> {
    let local = |name: &str| refs.contains_key(&format!("refs/heads/{name}"));
    if spec == ":" {
        return refs
            .keys()
            .filter_map(|r| r.strip_prefix("refs/heads/"))
            .filter(|b| tracking(b).is_some())
            .map(|b| (b.to_owned(), b.to_owned()))
            .collect();
    }
    let (src, dst) = match spec.split_once(':') {
        Some((s, d)) => (s.to_owned(), Some(d.to_owned())),
        None => (spec.to_owned(), None),
    };
    if src.is_empty() {
        return Vec::new();
    }
    if let Some((pre, post)) = src.split_once('*') {
        let full = |s: &str| {
            if s.starts_with("refs/") {
                s.to_owned()
            } else {
                format!("refs/heads/{s}")
            }
        };
        let (pre, dst) = (full(pre), dst.map_or_else(|| full(&src), |d| full(&d)));
        let Some((dpre, dpost)) = dst.split_once('*') else {
            return Vec::new();
        };
        return refs
            .keys()
            .filter_map(|r| {
                let mid = r.strip_prefix(&pre)?.strip_suffix(post)?;
                let to = format!("{dpre}{mid}{dpost}");
                Some((r.clone(), to.strip_prefix("refs/heads/")?.to_owned()))
            })
            .collect();
    }
    let dst = match dst {
        Some(d) if d.is_empty() => return Vec::new(),
        Some(d) => d,
        None if src == "HEAD" || src == "@" => match current {
            Some(b) => b.to_owned(),
            None => return Vec::new(),
        },
        None => src.clone(),
    };
    let dst = if dst == "HEAD" {
        match current {
            Some(b) => b.to_owned(),
            None => return Vec::new(),
        }
    } else {
        dst
    };
    let branch = match dst.strip_prefix("refs/heads/") {
        Some(b) => b.to_owned(),
        None if dst.starts_with("refs/") => return Vec::new(),
        None if dst == src && !local(&dst) => return Vec::new(),
        None => dst,
    };
    vec![(src, branch)]
}
