//! git aliases are resolved as git itself resolves them: from the files `GIT_CONFIG_GLOBAL` and
//! `GIT_CONFIG_SYSTEM` name (in the hook's environment, on the line, or exported earlier in
//! it), `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`, `include.path` and `includeIf`, `--config-env`,
//! `-c alias.x=…`, and a `git config alias.x …` earlier on the line; git's dashed programs
//! (`/usr/lib/git-core/git-reset`, `"$(git --exec-path)"/git-clean`) are the subcommands they
//! are (red-team findings 12 and 19, git part). Aliases of harmless commands stay silent.

mod common;
mod guard_support;

use std::fs;

use common::*;
use guard_support::*;

#[test]
fn aliases_from_every_config_git_reads_are_seen_through() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    let global = f.base.join("global.cfg");
    fs::write(
        &global,
        "[alias]\n  gl = reset --hard\n  lg = log --oneline\n",
    )
    .unwrap();
    let system = f.base.join("system.cfg");
    fs::write(&system, "[alias]\n  sy = stash -u\n").unwrap();
    let g = global.to_str().unwrap();
    let s = system.to_str().unwrap();
    let stopped_env = |cmd: &str, env: &[(&str, &str)]| {
        let run = bash_env(r, cmd, env);
        match decision(&run) {
            Some((d, reason, _)) if d == "deny" => {
                assert!(reason.contains("[guard:peer-files]"), "{cmd}: {reason}");
            }
            other => panic!("`{cmd}` went through: {other:?} / {}", run.stderr),
        }
    };
    stopped_env("git gl", &[("GIT_CONFIG_GLOBAL", g)]);
    stopped_env(
        "git sy",
        &[("GIT_CONFIG_SYSTEM", s), ("GIT_CONFIG_NOSYSTEM", "0")],
    );
    stopped_env(
        "git cc",
        &[
            ("GIT_CONFIG_COUNT", "1"),
            ("GIT_CONFIG_KEY_0", "alias.cc"),
            ("GIT_CONFIG_VALUE_0", "checkout -- ."),
        ],
    );
    // Named on the line, or exported earlier in it.
    denied(r, &format!("GIT_CONFIG_GLOBAL={g} git gl"));
    denied(r, &format!("export GIT_CONFIG_GLOBAL={g}; git gl"));
    denied(r, &format!("env GIT_CONFIG_GLOBAL={g} git gl"));
    // Included files, conditional includes.
    let inc = f.base.join("inc.cfg");
    fs::write(
        &inc,
        "[alias]\n  inc = reset --hard\n  ii = !git clean -fd\n",
    )
    .unwrap();
    git(r, &["config", "include.path", inc.to_str().unwrap()]);
    denied(r, "git inc");
    let cond = f.base.join("cond.cfg");
    fs::write(&cond, "[alias]\n  cond = restore .\n").unwrap();
    git(
        r,
        &[
            "config",
            &format!("includeIf.gitdir:{}/.path", r.display()),
            cond.to_str().unwrap(),
        ],
    );
    denied(r, "git cond");
    denied(r, "git ii");
    // On the line itself.
    denied(r, "V='reset --hard' git --config-env=alias.ce=V ce");
    denied(r, "git -c alias.x='reset --hard' x");
    denied(r, "git config alias.zap 'reset --hard' && git zap");
    denied(r, "git config --local alias.zz '!git stash -u'; git zz");
    denied(r, "git config set alias.yy 'reset --hard' && git yy");
    // Aliases of harmless commands.
    let run = bash_env(r, "git lg", &[("GIT_CONFIG_GLOBAL", g)]);
    assert_eq!(run.stdout, "", "git lg: {}", run.stdout);
    allowed(r, "git config alias.st status && git st");
    allowed(r, "git lfs ls-files");
}

#[test]
fn gits_dashed_programs_are_the_subcommands_they_are() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    for cmd in [
        "/usr/lib/git-core/git-reset --hard",
        "git-checkout -- .",
        "/usr/lib/git-core/git-stash -u",
        "git --exec-path=/tmp reset --hard",
        "GIT_EXEC_PATH=/tmp git reset --hard",
    ] {
        let reason = denied(r, cmd);
        assert!(reason.contains("[guard:peer-files]"), "{cmd}: {reason}");
    }
    let reason = stopped(r, "\"$(git --exec-path)\"/git-clean -fd");
    assert!(reason.contains("notes.txt"), "{reason}");
    let reason = denied(r, "/usr/lib/git-core/git-branch -D topic");
    assert!(reason.contains("[guard:branch-unpushed]"), "{reason}");
    for cmd in [
        "/usr/lib/git-core/git-status",
        "git-log --oneline",
        "git --exec-path",
        "git-dibs status",
        "\"$(git --exec-path)\"/git-status --short",
    ] {
        allowed(r, cmd);
    }
}

#[test]
fn submodule_foreach_is_judged_in_each_submodule() {
    let repo = TestRepo::new();
    let r = &repo.root;
    let url = repo.remote.to_str().unwrap().to_owned();
    add_submodule(r, &url, "lib");
    git(r, &["commit", "-qm", "lib"]);
    // A peer edits a file inside the submodule.
    let lib = r.join("lib");
    let file = lib.join("src/lib.rs");
    hook(&lib, &edit_event("PreToolUse", "Write", PEER, &lib, &file));
    fs::write(&file, "pub fn peer() {}\n").unwrap();
    hook(&lib, &edit_event("PostToolUse", "Write", PEER, &lib, &file));
    for cmd in [
        "git submodule foreach git reset --hard",
        "git submodule foreach 'git checkout -- .'",
        "git submodule --quiet foreach --recursive git stash",
    ] {
        let reason = denied(r, cmd);
        assert!(reason.contains("src/lib.rs"), "{cmd}: {reason}");
    }
    for cmd in [
        "git submodule foreach git status",
        "git submodule foreach 'git log -1'",
        "git submodule status",
        "git submodule update --init",
    ] {
        allowed(r, cmd);
    }
}

/// Red team 8b/23, 24: a `!` alias's shell text gets the line's config from git
/// (`GIT_CONFIG_PARAMETERS`), so a `git y` inside it resolves `y` from the same line's `-c`,
/// whichever comes first; programs set on the line reach it too.
#[test]
fn aliases_inside_a_bang_alias_resolve_with_the_lines_config() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    for cmd in [
        "git -c alias.y='!git checkout .' -c alias.x='!git y' x",
        "git -c alias.co=checkout -c alias.x='!git co .' x",
        "git -c alias.x='!git co .' -c alias.co=checkout x",
        "git -c alias.x='!f() { git co .; }; f' -c alias.co=checkout x",
        "git -c alias.x='!sh -c \"git co .\"' -c alias.co=checkout x",
        "git -c alias.y=\"!git checkout '.'\" -c alias.x='!git y' x",
        "git -c alias.z='stash -u' -c alias.y='!git z' -c alias.x='!git y' x",
        "GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=alias.y GIT_CONFIG_VALUE_0='!git stash' \
         GIT_CONFIG_KEY_1=alias.x GIT_CONFIG_VALUE_1='!git y' git x",
        "git -c core.pager='rm notes.txt' -c alias.x='!git log' x",
    ] {
        stopped(r, cmd);
    }
    for cmd in [
        "git -c alias.lg='log --oneline' -c alias.x='!git lg -3' x",
        "git -c alias.st=status -c alias.x='!git st && git diff --stat' x",
    ] {
        allowed(r, cmd);
    }
}
