//! Pull requests through the GitHub CLI (`gh pr list --head B --state open|all`). A missing,
//! offline, slow or failing `gh` means "no pull request known": the guard never blocks on it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::Deserialize;

use super::run::{self, RunError};

/// How long `gh` may take before it is stopped and counted as "no answer".
pub(crate) const GH_TIMEOUT: Duration = Duration::from_secs(5);

/// A pull request.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PullRequest {
    /// Its number.
    pub(crate) number: u64,
    /// Its web address.
    #[serde(default)]
    pub(crate) url: String,
    /// `OPEN`, `CLOSED` or `MERGED`, when asked for.
    #[serde(default)]
    pub(crate) state: String,
}

/// The pull requests in any state whose head is `branch`, asking `gh` in `dir`; empty when
/// there are none or `gh` gives no answer.
pub(crate) fn pull_requests(dir: &Path, branch: &str) -> Vec<PullRequest> {
    pr_list(dir, branch, "all", "number,url,state").unwrap_or_default()
}

/// The first open pull request whose head is `branch`, asking `gh` in `dir`. `None` when there
/// is none or when `gh` is missing, fails, prints something unreadable or takes too long.
pub(crate) fn open_pull_request(dir: &Path, branch: &str) -> Option<PullRequest> {
    pr_list(dir, branch, "open", "number,url")
        .ok()?
        .into_iter()
        .next()
}

/// The head branch of pull request `pr` (a number or URL), asking `gh pr view` in `dir`,
/// bounded by [`GH_TIMEOUT`]. `Err` says why there is no answer.
pub(crate) fn pr_head(dir: &Path, pr: &str) -> Result<String, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Head {
        head_ref_name: String,
    }
    let out = gh(dir, &["pr", "view", pr, "--json", "headRefName"], 1 << 16)?;
    // One object; a list of them is read too.
    let head = serde_json::from_str::<Head>(&out)
        .or_else(|_| {
            serde_json::from_str::<Vec<Head>>(&out)
                .map_err(|_| ())
                .and_then(|v| v.into_iter().next().ok_or(()))
        })
        .map_err(|()| "gh printed something unreadable".to_owned())?;
    let name = crate::text::clean(&head.head_ref_name, 255);
    if name.is_empty() {
        return Err("gh named no branch".into());
    }
    Ok(name)
}

/// `gh pr list --head BRANCH --state STATE --json FIELDS`, bounded by [`GH_TIMEOUT`]. `Err`
/// says, for a person, why there is no answer (missing, failing, offline, unreadable).
pub(crate) fn pr_list(
    dir: &Path,
    branch: &str,
    state: &str,
    fields: &str,
) -> Result<Vec<PullRequest>, String> {
    let args = [
        "pr", "list", "--head", branch, "--state", state, "--json", fields,
    ];
    let out = gh(dir, &args, 1 << 20)?;
    serde_json::from_str(&out).map_err(|_| "gh printed something unreadable".to_owned())
}

/// The output of `gh ARGS` in `dir` (no prompt, at most `max` bytes), bounded by
/// [`GH_TIMEOUT`]. `Err` says, for a person, why there is none.
fn gh(dir: &Path, args: &[&str], max: usize) -> Result<String, String> {
    let mut cmd = Command::new("gh");
    cmd.args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .env("GH_PROMPT_DISABLED", "1")
        .env("GH_NO_UPDATE_NOTIFIER", "1");
    let done = match run::bounded(cmd, GH_TIMEOUT, max) {
        Ok(done) => done,
        Err(RunError::Spawn(e)) => return Err(format!("gh is not available ({e})")),
        Err(RunError::TimedOut) => return Err("gh did not answer in time (offline?)".into()),
    };
    if !done.success {
        return Err("gh failed (offline, or not logged in?)".into());
    }
    Ok(done.stdout)
}
