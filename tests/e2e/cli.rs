//! The real Claude Code CLI for the end-to-end tests: the platform package at a pinned version,
//! fetched once per machine by the npm fetcher the Gemini CLI and Codex tests use too
//! (`tests/e2e_hosts/fetch.rs`: a cache folder outside the repository, filled atomically under a
//! file lock).

use std::path::PathBuf;

#[path = "../e2e_hosts/fetch.rs"]
mod fetch;

/// The npm package that holds the self-contained `claude` executable.
pub const PACKAGE: &str = "@anthropic-ai/claude-code-linux-x64";
/// The pinned version (see `../shared/reference/real-host-testing.md`).
pub const VERSION: &str = "2.1.332";

const CLAUDE: fetch::Package = fetch::Package {
    name: PACKAGE,
    version: VERSION,
    spec: "@anthropic-ai/claude-code-linux-x64@2.1.332",
    key: "claude",
    entry: "package/claude",
    override_var: "GIT_DIBS_E2E_CLAUDE",
};

/// The path of the cached `claude` executable, fetching it on first use. Panics with a message
/// naming the package and version when it cannot be had. `GIT_DIBS_E2E_CLAUDE` may name an
/// existing executable instead.
pub fn claude() -> PathBuf {
    CLAUDE.program()
}
