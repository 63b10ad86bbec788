//! A switch to the commit already checked out changes no file, so it passes in silence even
//! while a live peer has dirty files (`git checkout main` on main, `git checkout --detach`,
//! `git switch -c y HEAD`); a switch elsewhere, or a forced one, is still refused (red-team
//! finding 18).

mod common;
mod guard_support;

use common::*;
use guard_support::*;

#[test]
fn a_switch_to_the_commit_checked_out_passes_and_one_elsewhere_is_refused() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    let head = git_out(r, &["rev-parse", "HEAD"]);
    git(r, &["branch", "same", "HEAD"]);
    commit_in(&f.clean, "other.txt", "elsewhere");
    let other = git_out(&f.clean, &["rev-parse", "HEAD"]);
    git(r, &["branch", "ahead", &other]);
    for cmd in [
        "git checkout main",
        "git switch main",
        "git checkout HEAD",
        "git checkout --detach",
        "git switch --detach",
        "git switch -c y HEAD",
        "git checkout -b x same",
        "git switch same",
        &format!("git checkout {head}"),
    ] {
        allowed(r, cmd);
    }
    for cmd in [
        "git switch ahead",
        "git checkout ahead",
        "git checkout -b z ahead",
        "git checkout -f main",
        "git switch --discard-changes main",
        "git checkout --merge main",
    ] {
        stopped(r, cmd);
    }
}
