//! `gh pr create` when the branch already has a pull request: refuse, and name it, so a session
//! pushes to the existing one instead of opening a duplicate (or a new one for landed work).

use super::{Finding, Guarded, Op, Verdict};
use crate::git::PullRequest;

/// `gh pr create [--head B | -H B | --head=B]`.
pub(crate) fn classify(argv: &[String]) -> Option<Op> {
    let base = argv.first()?.rsplit('/').next()?;
    if base != "gh" || argv.get(1)? != "pr" || argv.get(2)? != "create" {
        return None;
    }
    let mut head = None;
    let mut rest = argv[3..].iter();
    while let Some(a) = rest.next() {
        if a == "--head" || a == "-H" {
            head = rest.next().cloned();
        } else if let Some(v) = a.strip_prefix("--head=") {
            head = Some(v.to_owned());
        }
    }
    // `--head owner:branch` names a fork's branch: the part after the colon is the branch.
    let head = head.map(|h| h.rsplit(':').next().unwrap_or(&h).to_owned());
    Some(Op::PrCreate { head })
}

/// Refuse when `branch` already has a pull request in any state.
pub(crate) fn check(g: &Guarded, branch: &str, existing: &[PullRequest]) -> Verdict {
    let Some(first) = existing.first() else {
        return Verdict::Allow;
    };
    let list = existing
        .iter()
        .map(|p| {
            let state = if p.state.is_empty() {
                "known"
            } else {
                p.state.as_str()
            };
            format!("#{} ({}) {}", p.number, state.to_lowercase(), p.url)
        })
        .collect::<Vec<_>>()
        .join(", ");
    let advice = if first.state.eq_ignore_ascii_case("merged") {
        "Its work may already be on the base: check with `git dibs landed` before opening another"
    } else {
        "Push to that pull request instead of opening another"
    };
    Verdict::Block(Finding::new(
        "pr-exists",
        format!(
            "git-dibs refused `{}`: branch {branch} already has a pull request: {list}. {advice}, \
         or ask the person.",
            g.display
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn only_gh_pr_create_is_classified_with_its_head() {
        assert_eq!(
            classify(&words("gh pr create --fill")),
            Some(Op::PrCreate { head: None })
        );
        assert_eq!(
            classify(&words("/usr/bin/gh pr create -H feat --title x")),
            Some(Op::PrCreate {
                head: Some("feat".into())
            })
        );
        assert_eq!(
            classify(&words("gh pr create --head=me:feat")),
            Some(Op::PrCreate {
                head: Some("feat".into())
            })
        );
        assert_eq!(classify(&words("gh pr list")), None);
        assert_eq!(classify(&words("echo gh pr create")), None);
    }

    #[test]
    fn an_existing_pull_request_in_any_state_refuses() {
        let g = Guarded {
            op: Op::PrCreate { head: None },
            cwd: "/w".into(),
            git: None,
            display: "gh pr create --fill".into(),
            bypass: false,
            unknown: None,
            runner: None,
        };
        assert_eq!(check(&g, "feat", &[]), Verdict::Allow);
        let merged = PullRequest {
            number: 12,
            url: "https://example.invalid/pull/12".into(),
            state: "MERGED".into(),
        };
        let Verdict::Block(f) = check(&g, "feat", &[merged]) else {
            panic!("expected a refusal");
        };
        assert!(
            f.reason
                .contains("#12 (merged) https://example.invalid/pull/12"),
            "{}",
            f.reason
        );
        assert!(f.reason.contains("git dibs landed"), "{}", f.reason);
        assert!(!f.reason.contains("WT_GUARD_BYPASS"));
    }
}
