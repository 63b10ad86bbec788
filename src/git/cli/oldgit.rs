//! A git too old for the repository: a repository whose config declares a format (reftable
//! refs, SHA-256 object ids, another extension) that the `git` on PATH does not know makes git
//! refuse with `unknown repository extension found`. git-dibs says so in words instead: which
//! git runs (its version), what the repository needs, and which git to put first on PATH.

use std::path::Path;

/// The words git uses when it does not know an extension a repository declares.
const UNKNOWN_EXTENSION: &str = "unknown repository extension";

/// Whether git's stderr `text` says it cannot read the repository's format.
pub(crate) fn is_too_old(text: &str) -> bool {
    text.contains(UNKNOWN_EXTENSION)
}

/// `git --version` of the git on PATH (`git version 2.39.5`), or words saying it did not answer.
fn version() -> String {
    std::process::Command::new("git")
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| crate::text::clean(&String::from_utf8_lossy(&o.stdout), 80))
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "a git that does not say its version".to_owned())
}

/// The extensions git's stderr `text` names after `found:` (indented lines), lowercased.
fn extensions(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| !l.contains(UNKNOWN_EXTENSION))
        .skip(1)
        .take_while(|l| l.starts_with(['\t', ' ']))
        .map(|l| {
            l.trim()
                .split('=')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .filter(|e| !e.is_empty())
        .collect()
}

/// The message for git's stderr `text` (see [`is_too_old`]): one line, naming the git on PATH,
/// what the repository keeps and the git that reads it.
pub(crate) fn message(text: &str) -> String {
    let found = extensions(text);
    let (what, need) = match found.first().map(String::as_str) {
        Some("refstorage") => ("reftable refs".to_owned(), "git 2.45 or later"),
        Some("objectformat") => ("SHA-256 object ids".to_owned(), "git 2.29 or later"),
        Some(_) => (
            format!(
                "a format it does not know ({})",
                found
                    .iter()
                    .map(|e| format!("extensions.{e}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "a newer git",
        ),
        None => ("a format it does not know".to_owned(), "a newer git"),
    };
    let what = crate::text::clean(&what, crate::text::MAX_NOTE);
    format!(
        "the git on PATH ({}) cannot read this repository, which keeps {what}: put {need} first \
         on PATH (`git --version` shows which git runs)",
        version()
    )
}

/// Why the git on PATH cannot read the repository whose common git dir is `common_dir`, when
/// it cannot. Asks git only when the repository's config declares a format beyond the
/// defaults, so an ordinary repository pays one small file read.
pub(crate) fn cannot_read(common_dir: &Path) -> Option<String> {
    super::Format::of_common_dir(common_dir)?;
    let out = super::super::lanes::git_command(common_dir)
        .args([
            "--git-dir",
            &common_dir.to_string_lossy(),
            "rev-parse",
            "--git-dir",
        ])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stderr);
    (!out.status.success() && is_too_old(&text)).then(|| message(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_git_names_says_what_the_repository_needs() {
        let reftable = "fatal: unknown repository extension found:\n\trefstorage\n";
        assert!(is_too_old(reftable));
        assert_eq!(extensions(reftable), ["refstorage"]);
        let m = message(reftable);
        assert!(
            m.contains("reftable refs") && m.contains("git 2.45 or later"),
            "{m}"
        );
        let newer = "fatal: unknown repository extensions found:\n\tobjectformat\n\tfoo\n";
        assert_eq!(extensions(newer), ["objectformat", "foo"]);
        assert!(message(newer).contains("git 2.29 or later"));
        let odd = "fatal: unknown repository extension found:\n\tweird\x1b[31m\n";
        let m = message(odd);
        assert!(
            m.contains("extensions.weird[31m") && m.contains("a newer git"),
            "{m}"
        );
        assert!(!is_too_old("fatal: not a git repository"));
    }
}
