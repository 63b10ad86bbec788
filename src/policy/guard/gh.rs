//! The GitHub CLI's branch-deleting forms, judged as the git commands they run: `gh pr close
//! PR --delete-branch` (the remote branch deleted, then the local one: `git push --delete` and
//! `git branch -D`), `gh pr merge PR --delete-branch` (the local one: the remote branch's
//! commits are merged), `gh api -X DELETE repos/O/R/git/refs/heads/B` (`git push --delete`), a
//! GraphQL `deleteRef` (a remote branch named by an id only GitHub knows), and `gh repo delete`
//! (the whole repository: always put to the person). A pull request named by number or URL is
//! looked up through `gh`; when it cannot be, the deletion is asked while unpushed work is in
//! reach.

use super::explain::Reach;
use super::{BranchState, Finding, Guarded, Op, RemoteBranchState, Verdict, branch, remote};

/// Which branch a `gh` command deletes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GhBranch {
    /// The current branch (`gh pr close -d` with no argument).
    Current,
    /// A branch by name.
    Named(String),
    /// The head branch of the pull request with this number or URL (known to GitHub).
    Pr(String),
    /// A branch only GitHub can name, and why.
    Unnamed(String),
}

/// What a `gh` command that deletes a pull request's branch deletes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GhDelete {
    /// The branch.
    pub(crate) branch: GhBranch,
    /// The repository as `gh api` names it (`OWNER/REPO`), when not this one's default.
    pub(crate) repo: Option<String>,
    /// The local branch is deleted (`git branch -D`).
    pub(crate) local: bool,
    /// The remote branch is deleted (`git push --delete`), its commits not merged first.
    pub(crate) remote: bool,
}

/// The facts of a [`GhDelete`]: the branch it resolved to, and its local and remote states;
/// or, when the branch cannot be known here, what is at risk within reach.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GhFacts {
    /// The branch, when known.
    pub(crate) branch: Option<String>,
    /// Why it is not known.
    pub(crate) unknown: Option<String>,
    /// The local branch, when deleted.
    pub(crate) local: Vec<BranchState>,
    /// The remote branch, when deleted.
    pub(crate) remote: Vec<RemoteBranchState>,
    /// What is at risk within reach (gathered only when the branch is not known).
    pub(crate) reach: Reach,
}

/// `gh pr close|merge … -d`, `gh repo delete`, `gh api` deleting a branch.
pub(crate) fn classify(argv: &[String]) -> Option<Op> {
    let base = argv.first()?.rsplit('/').next()?;
    if base != "gh" {
        return None;
    }
    match (argv.get(1)?.as_str(), argv.get(2).map(String::as_str)) {
        ("pr", Some(verb @ ("close" | "merge"))) => pr_delete(&argv[3..], verb == "close"),
        ("repo", Some("delete")) => Some(Op::RepoDelete),
        ("api", _) => api(&argv[2..]),
        _ => None,
    }
}

/// `gh pr close|merge [PR] [flags]`: a [`GhDelete`] when it deletes the branch.
fn pr_delete(args: &[String], close: bool) -> Option<Op> {
    let valued_long: &[&str] = if close {
        &["--comment", "--repo"]
    } else {
        &[
            "--body",
            "--body-file",
            "--subject",
            "--author-email",
            "--match-head-commit",
            "--repo",
        ]
    };
    let valued_short: &[char] = if close {
        &['c', 'R']
    } else {
        &['b', 'F', 't', 'A', 'R']
    };
    let mut delete = false;
    let mut pr = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--" {
            pr = pr.or_else(|| it.next().cloned());
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            match long.split_once('=') {
                Some(("delete-branch", v)) => delete = v != "false",
                Some(_) => {}
                None if long == "delete-branch" => delete = true,
                None if valued_long.contains(&a.as_str()) => {
                    it.next();
                }
                None => {}
            }
        } else if let Some(shorts) = a.strip_prefix('-').filter(|s| !s.is_empty()) {
            for (i, c) in shorts.char_indices() {
                if valued_short.contains(&c) {
                    if i + c.len_utf8() == shorts.len() {
                        it.next();
                    }
                    break;
                }
                delete |= c == 'd';
            }
        } else if pr.is_none() {
            pr = Some(a.clone());
        }
    }
    if !delete {
        return None;
    }
    let branch = match pr {
        None => GhBranch::Current,
        Some(p) if p.chars().all(|c| c.is_ascii_digit()) || p.contains("/pull/") => {
            GhBranch::Pr(p.trim_start_matches('#').to_owned())
        }
        Some(p) if p.starts_with('#') => GhBranch::Pr(p[1..].to_owned()),
        // `OWNER:branch` names a fork's branch.
        Some(p) => GhBranch::Named(p.rsplit(':').next().unwrap_or(&p).to_owned()),
    };
    Some(Op::GhDelete(GhDelete {
        branch,
        repo: None,
        local: true,
        remote: close,
    }))
}

/// `gh api [-X DELETE] ENDPOINT …`: a branch deleted through the REST API (`DELETE
/// repos/O/R/git/refs/heads/B`) or a GraphQL `deleteRef`.
fn api(args: &[String]) -> Option<Op> {
    const VALUED: &[&str] = &[
        "-X",
        "--method",
        "-f",
        "--raw-field",
        "-F",
        "--field",
        "-H",
        "--header",
        "--input",
        "-q",
        "--jq",
        "-t",
        "--template",
        "--cache",
        "--hostname",
        "-p",
        "--preview",
    ];
    let mut method = None;
    let mut endpoint = None;
    let mut fields = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, value) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
            _ if a.starts_with("-X") && a.len() > 2 => ("-X", Some(a[2..].to_owned())),
            _ => (a.as_str(), None),
        };
        if VALUED.contains(&name) {
            let value = value.or_else(|| it.next().cloned()).unwrap_or_default();
            match name {
                "-X" | "--method" => method = Some(value.to_ascii_uppercase()),
                "-f" | "--raw-field" | "-F" | "--field" => fields.push(value),
                _ => {}
            }
        } else if !a.starts_with('-') && endpoint.is_none() {
            endpoint = Some(a.clone());
        }
    }
    let endpoint = endpoint?;
    if endpoint == "graphql" {
        return fields.iter().any(|f| f.contains("deleteRef")).then(|| {
            Op::GhDelete(GhDelete {
                branch: GhBranch::Unnamed(
                    "its `deleteRef` names the branch by an id only GitHub knows".into(),
                ),
                repo: None,
                local: false,
                remote: true,
            })
        });
    }
    if method.as_deref() != Some("DELETE") {
        return None;
    }
    let path = endpoint
        .strip_prefix("https://api.github.com/")
        .unwrap_or(&endpoint)
        .trim_start_matches('/');
    let rest = path.strip_prefix("repos/")?;
    let mut parts = rest.splitn(3, '/');
    let (owner, name, refpath) = (parts.next()?, parts.next()?, parts.next()?);
    let branch = refpath.strip_prefix("git/refs/heads/")?;
    let placeholder = |s: &str| s.starts_with('{') || s.starts_with(':');
    let repo = (!placeholder(owner) && !placeholder(name)).then(|| format!("{owner}/{name}"));
    Some(Op::GhDelete(GhDelete {
        branch: GhBranch::Named(percent_decoded(branch)),
        repo,
        local: false,
        remote: true,
    }))
}

/// `feature%2Fx` as `feature/x`.
fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Judge a `gh` deletion of a pull request's branch as the `git branch -D` and `git push
/// --delete` it runs (the pull request it closes or merges does not count against it); one
/// whose branch cannot be known is asked while unpushed work is within reach.
pub(crate) fn check(g: &Guarded, facts: &GhFacts) -> Verdict {
    if let Some(why) = &facts.unknown {
        let r = &facts.reach;
        if r.branches.is_empty() && r.peers.is_empty() {
            return Verdict::Allow;
        }
        let mut parts = Vec::new();
        if !r.branches.is_empty() {
            parts.push(format!("unpushed branches ({})", super::list(&r.branches)));
        }
        if !r.peers.is_empty() {
            parts.push(format!(
                "live sessions' uncommitted files ({})",
                super::list(&r.peers)
            ));
        }
        return Verdict::Ask(Finding::new(
            "gh-branch-unknown",
            format!(
                "git-dibs cannot tell which branch `{}` deletes: {why}, and here are {}. Name \
                 the branch (`gh pr view N --json headRefName`), check it holds nothing unpushed, \
                 or ask the person.",
                g.display,
                parts.join(" and ")
            ),
        ));
    }
    match branch::check(g, &facts.local) {
        Verdict::Allow => remote::check(g, &facts.remote),
        refused => refused,
    }
}

/// `gh repo delete`: the GitHub repository, with every branch, pull request and issue on it,
/// for every clone and session.
pub(crate) fn check_repo_delete(g: &Guarded) -> Verdict {
    Verdict::Ask(Finding::new(
        "gh-repo-delete",
        format!(
            "git-dibs asks before `{}`: it deletes the GitHub repository with every branch, pull \
             request and issue on it, for every clone and session that works on it. Only the \
             person decides that.",
            g.display
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(s: &str) -> Option<Op> {
        classify(&s.split(' ').map(str::to_owned).collect::<Vec<_>>())
    }

    fn deletes(branch: GhBranch, local: bool, remote: bool) -> Op {
        Op::GhDelete(GhDelete {
            branch,
            repo: None,
            local,
            remote,
        })
    }

    #[test]
    fn pull_request_forms_that_delete_the_branch() {
        let pr = |n: &str| GhBranch::Pr(n.into());
        assert_eq!(op("gh pr close 12 -d"), Some(deletes(pr("12"), true, true)));
        assert_eq!(
            op("gh pr close -d 12 -c bye"),
            Some(deletes(pr("12"), true, true))
        );
        assert_eq!(
            op("gh pr close -c -d 12 --delete-branch"),
            Some(deletes(pr("12"), true, true))
        );
        assert_eq!(
            op("gh pr merge 12 --delete-branch"),
            Some(deletes(pr("12"), true, false))
        );
        assert_eq!(
            op("gh pr merge -sd 12"),
            Some(deletes(pr("12"), true, false))
        );
        assert_eq!(
            op("gh pr merge https://github.com/o/r/pull/7 -d"),
            Some(deletes(pr("https://github.com/o/r/pull/7"), true, false))
        );
        assert_eq!(
            op("gh pr merge feat -d --squash"),
            Some(deletes(GhBranch::Named("feat".into()), true, false))
        );
        assert_eq!(
            op("gh pr close -d"),
            Some(deletes(GhBranch::Current, true, true))
        );
        assert_eq!(op("gh pr merge 12"), None);
        assert_eq!(op("gh pr merge 12 --squash -t done"), None);
        assert_eq!(op("gh pr merge 12 --delete-branch=false"), None);
        assert_eq!(op("gh pr close 12 -c -d"), None);
        assert_eq!(op("gh pr view 12"), None);
        assert_eq!(op("gh pr create --fill"), None);
        assert_eq!(op("gh repo delete o/r --yes"), Some(Op::RepoDelete));
    }

    #[test]
    fn api_deletions_of_a_branch() {
        let named = |repo: Option<&str>, b: &str| {
            Some(Op::GhDelete(GhDelete {
                branch: GhBranch::Named(b.into()),
                repo: repo.map(str::to_owned),
                local: false,
                remote: true,
            }))
        };
        assert_eq!(
            op("gh api -X DELETE repos/o/r/git/refs/heads/feat"),
            named(Some("o/r"), "feat")
        );
        assert_eq!(
            op("gh api --method DELETE /repos/o/r/git/refs/heads/a%2Fb"),
            named(Some("o/r"), "a/b")
        );
        assert_eq!(
            op("gh api repos/{owner}/{repo}/git/refs/heads/f -XDELETE"),
            named(None, "f")
        );
        assert_eq!(
            op("gh api --method=delete repos/:owner/:repo/git/refs/heads/f"),
            named(None, "f")
        );
        assert_eq!(op("gh api repos/o/r/git/refs/heads/feat"), None);
        assert_eq!(op("gh api -X DELETE repos/o/r/git/refs/tags/v1"), None);
        assert_eq!(op("gh api repos/o/r/pulls"), None);
        assert!(matches!(
            op(
                "gh api graphql -f query=mutation{deleteRef(input:{refId:\"X\"}){clientMutationId}}"
            ),
            Some(Op::GhDelete(GhDelete {
                branch: GhBranch::Unnamed(_),
                ..
            }))
        ));
        assert_eq!(op("gh api graphql -f query={viewer{login}}"), None);
    }
}
