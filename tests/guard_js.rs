//! The JavaScript world's runners and deletion programs (red-team 3/01, 3/03): `npx rimraf`,
//! `npm exec -- rimraf`, `pnpm dlx`, `bunx`, `node_modules/.bin/rimraf`, `npx -c TEXT`, `shx rm`
//! and package scripts run as `pnpm X` are judged as the `rm -rf` or shell text they run; the
//! everyday ones (`npx tsc`, `npx prettier --write`, `pnpm install`, `npx rimraf dist` of a
//! build folder) pass in silence. Real repositories, the real binary.

mod common;
mod guard_support;

use std::fs;

use guard_support::*;

#[test]
fn runners_and_deleters_over_a_peers_file_or_the_store_are_refused() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    for cmd in [
        "npx rimraf notes.txt",
        "npx --yes rimraf@5 notes.txt",
        "npx -p rimraf rimraf notes.txt",
        "npm exec -- rimraf notes.txt",
        "npm x --yes -- rimraf notes.txt",
        "pnpm dlx rimraf notes.txt",
        "pnpm exec rimraf notes.txt",
        "yarn dlx rimraf notes.txt",
        "bunx rimraf notes.txt",
        "bun x rimraf notes.txt",
        "node_modules/.bin/rimraf notes.txt",
        "./node_modules/.bin/del-cli notes.txt",
        "npx del-cli --force notes.txt",
        "npx trash notes.txt",
        "npx shx rm -rf notes.txt",
        "npx -c 'rm notes.txt'",
        "npm exec -c 'git checkout -- src/lib.rs'",
        "npx --call='git stash -u'",
        "npx rimraf .git/dibs",
        "bunx rimraf .git/refs/dibs",
    ] {
        let reason = stopped(r, cmd);
        assert!(
            reason.contains("[guard:peer-files]") || reason.contains("[guard:self-protect]"),
            "{cmd}: {reason}"
        );
    }
    assert!(r.join("notes.txt").exists());
}

#[test]
fn pnpm_and_bun_run_a_script_by_its_bare_name() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    fs::write(
        r.join("package.json"),
        r#"{"scripts": {"clean": "rimraf dist notes.txt", "build": "tsc -p ."}}"#,
    )
    .unwrap();
    for cmd in ["pnpm clean", "bun clean", "pnpm run clean", "npm run clean"] {
        let reason = stopped(r, cmd);
        assert!(reason.contains("rimraf dist notes.txt"), "{cmd}: {reason}");
    }
    for cmd in [
        "pnpm build",
        "bun build",
        "pnpm install",
        "bun install",
        "pnpm test",
    ] {
        allowed(r, cmd);
    }
}

#[test]
fn everyday_runs_stay_silent_beside_a_live_peer() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    fs::create_dir_all(r.join("dist")).unwrap();
    for cmd in [
        "npx tsc --noEmit",
        "npx prettier --write mine.rs",
        "npx eslint .",
        "npx rimraf dist",
        "npx -y create-vite@latest app",
        "npm exec -- jest",
        "pnpm dlx @biomejs/biome check .",
        "bunx vitest run",
        "npx shx ls",
        "npm install",
        "npm ci",
    ] {
        allowed(r, cmd);
    }
}
