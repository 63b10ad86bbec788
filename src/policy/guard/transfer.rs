//! The command line of git's ref transfers (`push`, `send-pack`, `fetch`, `pull`), read once
//! for the rules that judge them: which remote, which refspecs, and the options that force,
//! delete or prune.

/// What a `git push`/`send-pack`/`fetch`/`pull` command line says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Transfer {
    /// `-f` / `--force` (a later `--no-force` clears it).
    pub(crate) force: bool,
    /// The `--force-with-lease` values given (`""` for the bare option); pushes only.
    pub(crate) lease: Vec<String>,
    /// `--delete` / `-d`; pushes only.
    pub(crate) delete: bool,
    /// `--prune` (`-p` for a fetch or pull).
    pub(crate) prune: bool,
    /// `--mirror`.
    pub(crate) mirror: bool,
    /// `--all` / `--branches`.
    pub(crate) all: bool,
    /// `--dry-run` (`-n` for a push).
    pub(crate) dry_run: bool,
    /// `--repo=R`.
    pub(crate) repo: Option<String>,
    /// The remote (unless `--repo`) and the refspecs, as written.
    pub(crate) positionals: Vec<String>,
}

impl Transfer {
    /// The remote, `--repo` or the first positional; and the refspecs after it.
    pub(crate) fn remote_and_specs(&self) -> (Option<String>, Vec<String>) {
        let mut it = self.positionals.iter().cloned();
        let remote = self.repo.clone().or_else(|| it.next());
        (remote, it.collect())
    }
}

/// Options that take a value (as the next word when not given with `=`).
const VALUED: &[&str] = &[
    "--repo",
    "--push-option",
    "--receive-pack",
    "--upload-pack",
    "--exec",
    "--depth",
    "--deepen",
    "--shallow-since",
    "--shallow-exclude",
    "--refmap",
    "--jobs",
    "--negotiation-tip",
    "--server-option",
    "--filter",
];

/// Read `args` (the subcommand first); `None` for another subcommand.
pub(crate) fn parse(args: &[String]) -> Option<Transfer> {
    let (sub, rest) = args.split_first()?;
    let push = match sub.as_str() {
        "push" | "send-pack" => true,
        "fetch" | "pull" => false,
        _ => return None,
    };
    let mut t = Transfer::default();
    let mut dashdash = false;
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        if dashdash || !a.starts_with('-') || a == "-" {
            t.positionals.push(a.clone());
            continue;
        }
        match a.as_str() {
            "--" => dashdash = true,
            "--force" => t.force = true,
            "--no-force" => t.force = false,
            "--delete" if push => t.delete = true,
            "--prune" => t.prune = true,
            "--mirror" => t.mirror = true,
            "--all" | "--branches" => t.all = true,
            "--dry-run" => t.dry_run = true,
            "--force-with-lease" if push => t.lease.push(String::new()),
            "--no-force-with-lease" => t.lease.clear(),
            "--repo" => t.repo = it.next().cloned(),
            v if VALUED.contains(&v) => {
                it.next();
            }
            long if long.starts_with("--") => {
                if let Some(v) = long.strip_prefix("--force-with-lease=").filter(|_| push) {
                    t.lease.push(v.to_owned());
                } else if let Some(r) = long.strip_prefix("--repo=") {
                    t.repo = Some(r.to_owned());
                }
            }
            short => {
                for (i, c) in short.char_indices().skip(1) {
                    match c {
                        'f' => t.force = true,
                        'd' if push => t.delete = true,
                        'n' if push => t.dry_run = true,
                        'p' if !push => t.prune = true,
                        'o' | 'j' => {
                            if i + 1 == short.len() {
                                it.next();
                            }
                            break;
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    Some(t)
}
