//! Table tests for command runners, non-POSIX shells, zsh precommand words, commands given in
//! options or the environment, and `((` under a POSIX shell.

use super::tests::p;

/// Each emitted command as `argv [unknown]`.
fn shown(cmd: &str) -> Vec<String> {
    p(cmd)
        .iter()
        .map(|c| match c.unknown {
            Some(u) => format!("{} [{u:?}]", c.argv.join(" ")),
            None => c.argv.join(" "),
        })
        .collect()
}

#[track_caller]
fn check(table: &[(&str, &[&str])]) {
    for (cmd, want) in table {
        assert_eq!(shown(cmd), *want, "{cmd:?}");
    }
}

#[test]
fn runners_are_peeled_to_the_command_they_run() {
    check(&[
        ("perf stat -o /dev/null git clean -fdx", &["git clean -fdx"]),
        ("perf stat -e cycles -r 3 rm -rf x", &["rm -rf x"]),
        ("perf list", &["perf list"]),
        ("valgrind -q --leak-check=full rm -rf x", &["rm -rf x"]),
        ("gdb -q -batch -ex run --args rm -rf x", &["rm -rf x"]),
        ("gdb ./app", &["gdb ./app"]),
        ("uv run --with rich rm -rf x", &["rm -rf x"]),
        ("uv pip install x", &["uv pip install x"]),
        ("uvx ruff check", &["ruff check"]),
        ("poetry run pytest -x", &["pytest -x"]),
        ("pipenv run rm -rf x", &["rm -rf x"]),
        ("pdm run rm -rf x", &["rm -rf x"]),
        ("hatch run rm -rf x", &["rm -rf x"]),
        ("rye run rm -rf x", &["rm -rf x"]),
        ("pixi run rm -rf x", &["rm -rf x"]),
        ("devbox run rm -rf x", &["rm -rf x"]),
        ("conda run -n dev rm -rf x", &["rm -rf x"]),
        ("direnv exec . rm -rf x", &["rm -rf x"]),
        ("nix develop -c rm -rf x", &["rm -rf x"]),
        ("nix develop .#ci --command rm -rf x", &["rm -rf x"]),
        ("nix build", &["nix build"]),
        ("mise exec node@20 -- rm -rf x", &["rm -rf x"]),
        ("asdf exec rm -rf x", &["rm -rf x"]),
        ("cross-env A=1 B=2 rm -rf x", &["rm -rf x"]),
        ("dotenv -e .env -- rm -rf x", &["rm -rf x"]),
        ("env-cmd -f .env rm -rf x", &["rm -rf x"]),
        ("rlwrap -c rm -rf x", &["rm -rf x"]),
        ("cpulimit -l 50 -- rm -rf x", &["rm -rf x"]),
        ("pueue add -- rm -rf x", &["rm -rf x"]),
        ("watchexec -e rs -- rm -rf x", &["rm -rf x"]),
        ("fd -e rs -x rm -rf", &["rm -rf [Xargs]"]),
        ("entr rm -rf x", &["rm -rf x [Xargs]"]),
    ]);
}

#[test]
fn shell_text_in_arguments_and_options_is_read() {
    check(&[
        (
            "nix-shell -p jq --run 'rm -rf x'",
            &["rm -rf x", "nix-shell -p jq --run rm -rf x"],
        ),
        (
            "hyperfine -p 'rm -rf y' 'rm -rf x'",
            &["rm -rf x", "rm -rf y", "hyperfine -p rm -rf y rm -rf x"],
        ),
        (
            "concurrently -n a 'rm -rf x'",
            &["rm -rf x", "concurrently -n a rm -rf x"],
        ),
        (
            "nodemon --exec 'rm -rf x'",
            &["rm -rf x", "nodemon --exec rm -rf x"],
        ),
        (
            "tar -cf a.tar --checkpoint-action=exec='rm -rf x' .",
            &[
                "rm -rf x",
                "tar -cf a.tar --checkpoint-action=exec=rm -rf x .",
            ],
        ),
        (
            "tar -xf a.tar --to-command 'rm -rf x'",
            &["rm -rf x", "tar -xf a.tar --to-command rm -rf x"],
        ),
        (
            "tar -I 'rm -rf x' -cf a.tar .",
            &["rm -rf x", "tar -I rm -rf x -cf a.tar ."],
        ),
        (
            "rsync -e 'rm -rf x' a b",
            &["rm -rf x", "rsync -e rm -rf x a b"],
        ),
        ("man -P 'rm -rf x' ls", &["rm -rf x", "man -P rm -rf x ls"]),
        (
            "zip -T -TT 'rm -rf x' a.zip",
            &["rm -rf x", "zip -T -TT rm -rf x a.zip"],
        ),
        (
            "git submodule foreach --recursive 'rm -rf x'",
            &["rm -rf x", "git submodule foreach --recursive rm -rf x"],
        ),
        (
            "expect -c 'spawn rm -rf x; expect eof'",
            &["rm -rf x", "expect -c spawn rm -rf x; expect eof"],
        ),
        ("at now <<< 'rm -rf x'", &["rm -rf x"]),
        ("at -l", &["at -l"]),
    ]);
    let c = &p("LESSOPEN='|rm -rf x %s' less README")[0];
    assert_eq!(c.argv.join(" "), "rm -rf x README");
}

#[test]
fn start_up_text_from_the_environment_is_read_or_fails_closed() {
    check(&[
        (
            "BASH_ENV=<(echo 'rm -rf x') bash -c true",
            &["echo rm -rf x", "bash -c true [Eval]"],
        ),
        (
            "PS4='$(rm -rf x)' bash -xc true",
            &["rm -rf x", ": $(rm -rf x) [CommandSubstitution]", "true"],
        ),
        ("PS4='$(rm -rf x)' bash -c true", &["true"]),
        (
            "PROMPT_COMMAND='rm -rf x' bash -i -c true",
            &["rm -rf x", "true"],
        ),
        ("ENV=/dev/stdin sh -c true", &["sh -c true [Eval]"]),
        (
            "echo a<(true)",
            &["true", "echo a<(true) [CommandSubstitution]"],
        ),
    ]);
}

#[test]
fn other_shells_and_zsh_words() {
    check(&[
        ("rbash -c 'rm -rf x'", &["rm -rf x"]),
        ("echo 'rm -rf x' | rbash", &["echo rm -rf x", "rm -rf x"]),
        ("ksh93 -c 'rm -rf x'", &["rm -rf x"]),
        (
            "fish -c 'rm -rf x'",
            &["fish -c rm -rf x -c rm -rf x [Unreadable]"],
        ),
        ("noglob rm -rf *.x", &["rm -rf *.x"]),
        ("nocorrect rm -rf x", &["rm -rf x"]),
        ("repeat 3 rm -rf x", &["rm -rf x"]),
        ("=rm -rf x", &["rm -rf x"]),
        (
            "zsh -c 'noglob repeat 2 =git clean -fdx'",
            &["git clean -fdx"],
        ),
        ("exec -a name rm -rf x", &["rm -rf x"]),
    ]);
}

#[test]
fn double_parens_follow_the_shell() {
    check(&[
        ("dash -c '((rm -rf x))'", &["rm -rf x"]),
        ("sh -c '((rm -rf x) )'", &["rm -rf x"]),
        (
            "posh -c 'echo $((1+2)); ((rm -rf x))'",
            &["echo $((1+2)) [Variable]", "rm -rf x"],
        ),
        (
            "dash -c 'echo $(( (rm -rf x) ))'",
            &["echo $(( (rm -rf x) )) [Variable]"],
        ),
    ]);
    // bash and zsh read `((...))` as arithmetic (bash does not fall back to subshells).
    assert!(
        p("bash -c '((rm -rf x))'")
            .iter()
            .all(|c| c.argv[0] != "rm")
    );
    assert!(p("zsh -c '((rm -rf x))'").iter().all(|c| c.argv[0] != "rm"));
}

#[test]
fn unknown_programs_with_a_judged_command_in_their_arguments() {
    let cmds = p("docker run --rm img git worktree remove --force wt");
    let embedded = &cmds[0];
    assert_eq!(embedded.argv.join(" "), "git worktree remove --force wt");
    assert_eq!(embedded.unknown, Some(super::Unknown::Runner));
    assert_eq!(embedded.runner.as_deref(), Some("docker"));
    assert_eq!(cmds[1].argv[0], "docker");
    for quiet in [
        "echo rm -rf x",
        "printf '%s' git clean -fdx",
        "grep -rn rm src",
        "git commit -m 'rm -rf x'",
        "cargo run -- rm -rf x",
        "command -v git",
        "type -a rm",
        "which git rm",
    ] {
        assert!(
            p(quiet)
                .iter()
                .all(|c| c.unknown != Some(super::Unknown::Runner)),
            "{quiet}"
        );
    }
}
