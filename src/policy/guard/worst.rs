//! Words only known when a git command runs, tried at their most destructive: an option from an
//! unquoted expansion (`git reset $MODE`), and the subcommand or options `xargs` adds from its
//! input (`echo reset --hard | xargs git`) when that input is not known here.

use super::Op;

/// The words that make a git subcommand destroy the most, tried for an expansion.
pub(super) fn words(sub: &str) -> &'static [&'static str] {
    match sub {
        "branch" => &["-D"],
        "push" => &["--delete"],
        "reset" => &["--hard"],
        "checkout" => &["-f"],
        "add" => &["-A"],
        "commit" => &["-a"],
        "stash" => &["clear", "-u"],
        "clean" => &["-ffdx"],
        "worktree" => &["remove"],
        "restore" => &["."],
        "rm" => &["-rf"],
        "update-ref" => &["-d"],
        _ => &[],
    }
}

/// Subcommands tried, with their worst options, when `xargs`'s input supplies git's subcommand.
const SUBCOMMANDS: &[&[&str]] = &[
    &["reset", "--hard"],
    &["clean", "-ffdx"],
    &["checkout", "-f", "--", "."],
    &["stash", "-u"],
];

/// `xargs git ARGS` with input not known here: the operations it performs at its most destructive
/// (the worst subcommands when `ARGS` has none, else the subcommand's worst options), each with
/// why it is tried.
pub(super) fn xargs_git(
    args: &[String],
    ops: impl Fn(&[String]) -> Vec<(Op, Vec<String>)>,
) -> Vec<(Op, String)> {
    let mut out = Vec::new();
    match args.first() {
        None => {
            for tried in SUBCOMMANDS {
                let words: Vec<String> = tried.iter().map(|w| (*w).to_owned()).collect();
                let why = format!(
                    "its subcommand comes from `xargs`'s input when it runs and may be `{}`",
                    tried.join(" ")
                );
                out.extend(ops(&words).into_iter().map(|(op, _)| (op, why.clone())));
            }
        }
        Some(sub) => {
            for worst in words(sub) {
                let mut full = args.to_vec();
                full.push((*worst).to_owned());
                let why = format!(
                    "its options come from `xargs`'s input when it runs and may include `{worst}`"
                );
                if let Some((op, _)) = ops(&full).into_iter().next() {
                    out.push((op, why));
                    break;
                }
            }
        }
    }
    out
}
