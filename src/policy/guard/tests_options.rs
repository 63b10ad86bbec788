//! Long options in their full spelling, as git and GNU getopt resolve a prefix.

use super::options::*;

fn git(line: &str) -> Vec<String> {
    let mut v: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
    canonical_git(&mut v);
    v
}

#[test]
fn prefixes_resolve_as_git_and_getopt_do() {
    assert_eq!(git("reset --har"), ["reset", "--hard"]);
    assert_eq!(git("add --al"), ["add", "--all"]);
    assert_eq!(
        git("branch --del --forc x"),
        ["branch", "--delete", "--force", "x"]
    );
    assert_eq!(
        git("push --del origin x"),
        ["push", "--delete", "origin", "x"]
    );
    assert_eq!(git("stash --include-u"), ["stash", "--include-untracked"]);
    assert_eq!(git("reset -- --har"), ["reset", "--", "--har"]);
    // Ambiguous: left as written (git refuses it too).
    assert_eq!(git("branch --co x"), ["branch", "--co", "x"]);
    assert_eq!(full("--rec", RM_LONGS), "--recursive");
    assert_eq!(full("--r", RM_LONGS), "--recursive");
    assert_eq!(full("--force=1", RM_LONGS), "--force=1");
}

#[test]
fn the_git_semantics_subcommands_resolve_their_prefixes() {
    assert_eq!(git("merge --abo"), ["merge", "--abort"]);
    assert_eq!(git("fetch --forc . a:b"), ["fetch", "--force", ".", "a:b"]);
    assert_eq!(git("mv --forc a b"), ["mv", "--force", "a", "b"]);
    assert_eq!(
        git("push --force-with=x origin m:x"),
        ["push", "--force-with-lease=x", "origin", "m:x"]
    );
}
