//! Table tests for the shell parser.

use std::path::{Path, PathBuf};

use super::{SimpleCommand, Unknown, parse_with_home};

pub(super) fn p(cmd: &str) -> Vec<SimpleCommand> {
    parse_with_home(cmd, Path::new("/w"), Some(Path::new("/home/u")))
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"))
}

fn argvs(cmd: &str) -> Vec<String> {
    p(cmd).iter().map(|c| c.argv.join(" ")).collect()
}

#[test]
fn lists_pipelines_and_newlines() {
    let table: &[(&str, &[&str])] = &[
        ("git status", &["git status"]),
        ("a; b && c || d | e & f", &["a", "b", "c", "d", "e", "f"]),
        ("a\nb\n\nc", &["a", "b", "c"]),
        ("a |& b", &["a", "b"]),
        ("a &&\n b", &["a", "b"]),
        ("a |\n b", &["a", "b"]),
        ("! git add -A", &["git add -A"]),
        ("time git add -A", &["git add -A"]),
        ("time -p git push", &["git push"]),
        ("  ", &[]),
        ("", &[]),
    ];
    for (cmd, want) in table {
        assert_eq!(argvs(cmd), *want, "{cmd:?}");
    }
}

#[test]
fn subshells_groups_and_compound_commands() {
    let table: &[(&str, &[&str])] = &[
        ("(git add -A)", &["git add -A"]),
        ("( a; (b) )", &["a", "b"]),
        ("{ a; b; }", &["a", "b"]),
        ("{ echo }; }", &["echo }"]),
        (
            "if git diff --quiet; then git stash; else git add .; fi",
            &["git diff --quiet", "git stash", "git add ."],
        ),
        ("if a; then b; elif c; then d; fi", &["a", "b", "c", "d"]),
        (
            "while true; do git clean -f; done",
            &["true", "git clean -f"],
        ),
        ("until a\ndo\n b\ndone", &["a", "b"]),
        (
            "for x in git branch -D; do rm -rf $x; done",
            &["rm -rf git", "rm -rf branch", "rm -rf -D"],
        ),
        ("for x in $L; do rm -rf $x; done", &["rm -rf $x"]),
        ("for ((i=0;i<3;i++)); do b; done", &["b"]),
        (
            "case $x in a|b) git reset --hard;; *) echo no;; esac",
            &["git reset --hard", "echo no"],
        ),
        ("case x in (a) b ;& c) d ;;& esac", &["b", "d"]),
        ("f() { git branch -D x; }", &["git branch -D x"]),
        ("function g { a; }; g", &["a", "g"]),
        ("[[ -d wt && $x == y ]] && rm -rf wt", &["rm -rf wt"]),
        ("(( x > 1 )) && a", &["a"]),
        ("((cd sub); b)", &["cd sub", "b"]),
        ("x=1", &[]),
        ("A=(a b c) git status", &["git status"]),
    ];
    for (cmd, want) in table {
        assert_eq!(argvs(cmd), *want, "{cmd:?}");
    }
}

#[test]
fn quoting_and_comments() {
    let table: &[(&str, &[&str])] = &[
        ("g'i't \"br\"anch", &["git branch"]),
        (r"g\it add \-A", &["git add -A"]),
        ("echo 'a b'", &["echo a b"]),
        (r#"echo "a \" \$x \\ \q""#, &[r#"echo a " $x \ \q"#]),
        ("echo $'a\\tb\\x41\\101\\u00e9'", &["echo a\tbAAé"]),
        ("echo $\"hi\"", &["echo hi"]),
        ("git add \\\n -A", &["git add -A"]),
        ("git st\\\natus", &["git status"]),
        ("echo hi # git add -A", &["echo hi"]),
        ("# git reset --hard", &[]),
        ("echo a#b", &["echo a#b"]),
        ("echo \"#\" x", &["echo # x"]),
    ];
    for (cmd, want) in table {
        assert_eq!(argvs(cmd), *want, "{cmd:?}");
    }
}

#[test]
fn quoted_words_keep_arguments_together() {
    let c = &p(r#"git commit -m "fix: a b" -- 'x y'"#)[0];
    assert_eq!(c.argv, ["git", "commit", "-m", "fix: a b", "--", "x y"]);
}

#[test]
fn false_positives_are_data() {
    let table: &[(&str, &[&str])] = &[
        (
            r#"git commit -m "git branch -D x""#,
            &["git commit -m git branch -D x"],
        ),
        ("echo 'rm -rf /'", &["echo rm -rf /"]),
        (r#"grep -r "git add -A" ."#, &["grep -r git add -A ."]),
        ("cat <<EOF\ngit worktree remove x\nEOF", &["cat"]),
        (
            "cat <<'EOF' > notes.md\ngit push --delete o b\nEOF\ngit status",
            &["cat", "git status"],
        ),
        (
            r#"python -c "print('git push --delete')""#,
            &["python -c print('git push --delete')"],
        ),
        (
            "echo WT_GUARD_BYPASS=1 git branch -D x",
            &["echo WT_GUARD_BYPASS=1 git branch -D x"],
        ),
        ("echo 'a;b && c'", &["echo a;b && c"]),
        (
            "git log --format='%H %s' | head",
            &["git log --format=%H %s", "head"],
        ),
    ];
    for (cmd, want) in table {
        assert_eq!(argvs(cmd), *want, "{cmd:?}");
        assert!(p(cmd).iter().all(|c| c.unknown.is_none()), "{cmd:?}");
    }
}

#[test]
fn nested_shells_are_parsed() {
    let table: &[(&str, &[&str])] = &[
        ("bash -c 'git branch -D x'", &["git branch -D x"]),
        ("sh -c \"cd wt && git add -A\"", &["cd wt", "git add -A"]),
        ("bash -lc 'git stash'", &["git stash"]),
        ("zsh -c 'a; b'", &["a", "b"]),
        (
            "/bin/bash -e -o pipefail -c 'git reset --hard' name arg",
            &["git reset --hard"],
        ),
        (
            "bash -c \"bash -c 'sh -c \\\"git clean -fd\\\"'\"",
            &["git clean -fd"],
        ),
        ("bash <<EOF\ngit branch -D x\nEOF", &["git branch -D x"]),
        (
            "bash <<-'END'\n\tgit stash\n\tEND\necho done",
            &["git stash", "echo done"],
        ),
        ("sh <<<'git push o --delete b'", &["git push o --delete b"]),
        (
            "echo 'git add -A' | bash",
            &["echo git add -A", "git add -A"],
        ),
        (
            "printf 'git stash\\n' | sh -s",
            &["printf git stash\\n", "git stash"],
        ),
        (
            "cat <<EOF | bash\ngit reset --hard\nEOF",
            &["cat", "git reset --hard"],
        ),
        ("bash script.sh", &["bash script.sh"]),
        ("bash", &["bash"]),
    ];
    for (cmd, want) in table {
        assert_eq!(argvs(cmd), *want, "{cmd:?}");
    }
    let c = &p("cd /r && bash -c 'cd sub; git add -A'; git status");
    assert_eq!(c[2].cwd, Path::new("/r/sub"));
    assert_eq!(
        c[3].cwd,
        Path::new("/r"),
        "a nested cd stays in the nested shell"
    );
    let c = &p("curl -s https://x | bash");
    assert_eq!(c[1].argv, ["bash"]);
    assert_eq!(c[1].unknown, Some(Unknown::Eval));
    assert_eq!(p("bash < script.sh")[0].unknown, Some(Unknown::Eval));
}

#[test]
fn wrappers_are_peeled() {
    let table: &[(&str, &str)] = &[
        ("env git add -A", "git add -A"),
        ("env -i -u HOME A=1 B=2 git add -A", "git add -A"),
        ("env - PATH=/x git stash", "git stash"),
        ("env -S 'git branch -D x'", "git branch -D x"),
        ("sudo -u root -E git clean -fdx", "git clean -fdx"),
        ("sudo -uroot --preserve-env=A X=1 rm -rf wt", "rm -rf wt"),
        ("command git stash", "git stash"),
        ("command -v git", "command -v git"),
        ("builtin cd x", "cd x"),
        ("exec -a name git reset --hard", "git reset --hard"),
        ("nohup git push o :b", "git push o :b"),
        ("/usr/bin/time -v git add .", "git add ."),
        ("timeout 10 git push", "git push"),
        ("timeout -s KILL -k 5 10s git push", "git push"),
        ("timeout --signal=TERM 1m git push", "git push"),
        ("nice git gc", "git gc"),
        ("nice -n 10 git gc", "git gc"),
        ("nice -n10 git gc", "git gc"),
        ("nice -5 git gc", "git gc"),
        ("stdbuf -o0 git log", "git log"),
        (
            "sudo env A=1 nohup timeout 5 nice -n 1 /usr/bin/git branch -D x",
            "/usr/bin/git branch -D x",
        ),
        ("sudo bash -c 'git stash'", "git stash"),
        ("sudo -l", "sudo -l"),
        ("env", "env"),
        ("timeout", "timeout"),
    ];
    for (cmd, want) in table {
        assert_eq!(argvs(cmd), [*want], "{cmd:?}");
        assert_eq!(p(cmd)[0].unknown, None, "{cmd:?}");
    }
}

#[test]
fn assignments() {
    let c = &p("WT_GUARD_BYPASS=1 git branch -D x")[0];
    assert_eq!(c.argv, ["git", "branch", "-D", "x"]);
    assert_eq!(
        c.assignments,
        [("WT_GUARD_BYPASS".to_string(), "1".to_string())]
    );
    let c = &p("A=\"x y\" env B=2 sudo C=3 git x")[0];
    let names: Vec<&str> = c.assignments.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["A", "B", "C"]);
    assert_eq!(c.assignments[0].1, "x y");
    let cs = p("WT_GUARD_BYPASS=1; git branch -D x");
    assert_eq!(cs.len(), 1);
    assert!(
        cs[0].assignments.is_empty(),
        "an assignment on another command does not apply"
    );
    let cs = p("WT_GUARD_BYPASS=1 bash -c 'git stash'");
    assert_eq!(cs[0].assignments[0].0, "WT_GUARD_BYPASS");
    let c = &p("git commit -m x A=1")[0];
    assert!(c.assignments.is_empty());
    assert_eq!(c.argv.last().map(String::as_str), Some("A=1"));
}

#[test]
fn unknowns() {
    let table: &[(&str, &str, Option<Unknown>)] = &[
        (
            "git branch -D $(git branch --show-current)",
            "git branch -D $(git branch --show-current)",
            Some(Unknown::CommandSubstitution),
        ),
        ("rm -rf `pwd`", "rm -rf /w", None),
        (
            "rm -rf `ls`",
            "rm -rf `ls`",
            Some(Unknown::CommandSubstitution),
        ),
        ("rm -rf \"$(pwd)/wt\"", "rm -rf /w/wt", None),
        (
            "$GIT branch -D x",
            "$GIT branch -D x",
            Some(Unknown::Variable),
        ),
        ("rm -rf ${WT}", "rm -rf ${WT}", Some(Unknown::Variable)),
        (
            "rm -rf wt$((1+1))",
            "rm -rf wt$((1+1))",
            Some(Unknown::Variable),
        ),
        (
            "eval git branch -D x",
            "git branch -D x",
            Some(Unknown::Eval),
        ),
        (
            "eval 'git stash; git add -A'",
            "git add -A",
            Some(Unknown::Eval),
        ),
        // A script that does not exist runs nothing.
        ("source ./x.sh", "source ./x.sh", None),
        (". ./x.sh", ". ./x.sh", None),
        ("source $F", "source $F", Some(Unknown::Eval)),
        (
            "git worktree list | xargs git worktree remove",
            "git worktree remove",
            Some(Unknown::Xargs),
        ),
        (
            "xargs -0 -n 1 -I{} rm -rf {}",
            "rm -rf {}",
            Some(Unknown::Xargs),
        ),
        (
            "xargs -r sh -c 'git branch -D \"$1\"' _",
            "git branch -D $1",
            Some(Unknown::Xargs),
        ),
        ("xargs", "echo", Some(Unknown::Xargs)),
        ("sudo -u $U git status", "git status", None),
    ];
    for (cmd, want, unknown) in table {
        let cs = p(cmd);
        let c = cs.last().unwrap_or_else(|| panic!("{cmd:?}"));
        assert_eq!(c.argv.join(" "), *want, "{cmd:?}");
        assert_eq!(c.unknown, *unknown, "{cmd:?}");
    }
    let cs = p("eval 'git stash; git add -A'");
    assert!(cs.iter().all(|c| c.unknown == Some(Unknown::Eval)));
}

#[test]
fn substitutions_run_their_commands() {
    let table: &[(&str, &[&str])] = &[
        (
            "echo $(git branch -D x)",
            &["git branch -D x", "echo $(git branch -D x)"],
        ),
        ("echo \"`git stash`\"", &["git stash", "echo `git stash`"]),
        ("X=$(git reset --hard)", &["git reset --hard"]),
        (
            "diff <(git show a) <(git show b)",
            &[
                "git show a",
                "git show b",
                "diff <(git show a) <(git show b)",
            ],
        ),
        (
            "echo ${x:-$(git clean -f)}",
            &["git clean -f", "echo ${x:-$(git clean -f)}"],
        ),
        ("cat <<EOF\n$(git add -A)\nEOF", &["git add -A", "cat"]),
        ("cat <<'EOF'\n$(git add -A)\nEOF", &["cat"]),
        (
            "echo $(case x in a) b;; esac)",
            &["b", "echo $(case x in a) b;; esac)"],
        ),
        (
            "echo $(echo $(echo `a`))",
            &[
                "a",
                "echo `a`",
                "echo $(echo `a`)",
                "echo $(echo $(echo `a`))",
            ],
        ),
    ];
    for (cmd, want) in table {
        assert_eq!(argvs(cmd), *want, "{cmd:?}");
    }
}

#[test]
fn working_directory() {
    let table: &[(&str, &str, bool)] = &[
        ("git status", "/w", true),
        ("cd a && git status", "/w/a", true),
        ("cd a; git status", "/w/a", true),
        ("cd a\ngit status", "/w/a", true),
        ("cd /r/x/../y && git status", "/r/y", true),
        ("cd a; cd ..; cd b/./c; git status", "/w/b/c", true),
        ("cd && git status", "/home/u", true),
        ("cd ~ && git status", "/home/u", true),
        ("cd ~/p && git status", "/home/u/p", true),
        ("cd -P -- a && git status", "/w/a", true),
        ("cd - && git status", "/w", false),
        ("cd $D && git status", "/w", false),
        (
            "cd \"$(git rev-parse --show-toplevel)\" && git status",
            "/w",
            false,
        ),
        ("cd $D; cd /abs; git status", "/abs", true),
        ("(cd a; git x); git status", "/w", true),
        ("{ cd a; git x; }; git status", "/w/a", true),
        ("cd a | cat; git status", "/w", true),
        ("cd a & git status", "/w", true),
        ("if x; then cd a; fi; git status", "/w", false),
        ("if x; then cd a; else cd a; fi; git status", "/w/a", true),
        ("for d in a; do cd $d; done; git status", "/w", false),
        ("pushd a && git x && popd && git status", "/w", true),
        ("pushd a >/dev/null; git status", "/w/a", true),
        ("env -C sub git status", "/w/sub", true),
        ("sudo -D /r git status", "/r", true),
        ("sudo cd /r; git status", "/w", true),
        ("f() { cd a; }; git status", "/w", true),
        ("echo $(cd a); git status", "/w", true),
    ];
    for (cmd, cwd, known) in table {
        let cs = p(cmd);
        let c = cs.last().unwrap_or_else(|| panic!("{cmd:?}"));
        assert_eq!(c.argv.join(" "), "git status", "{cmd:?}");
        assert_eq!(
            (c.cwd.as_path(), c.cwd_known),
            (Path::new(cwd), *known),
            "{cmd:?}"
        );
    }
    let cs = p("cd a && git x");
    assert_eq!(
        cs[0].cwd,
        Path::new("/w"),
        "cd itself runs in the old directory"
    );
    let cs = parse_with_home("cd && git x", Path::new("/w"), None).unwrap();
    assert!(!cs[1].cwd_known);
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[test]
fn moderate_nesting_is_fine() {
    let mut nested = String::from("git stash");
    for _ in 0..4 {
        nested = format!("bash -c {}", shell_quote(&nested));
    }
    assert_eq!(argvs(&nested), ["git stash"]);
    let cs = p("if a; then for x in y; do while b; do (c; { d; }); done; done; fi");
    assert_eq!(cs.len(), 4);
    let _ = PathBuf::new();
}

#[test]
fn double_parens_are_arithmetic_as_in_bash() {
    // bash reads `((...))` as arithmetic and runs nothing, even if the text looks like commands.
    assert!(p("((echo hi; git stash))").is_empty());
    assert_eq!(argvs("( (git stash) )"), ["git stash"]);
}

#[test]
fn literal_substitutions_are_replaced_by_their_output() {
    // The way Claude Code writes commit messages: the message is data, and known.
    let cmd = "git commit -m \"$(cat <<'EOF'\nfix: x\n\ngit reset --hard\nEOF\n)\"";
    let cs = p(cmd);
    assert_eq!(cs.len(), 2);
    assert_eq!(cs[0].argv, ["cat"]);
    assert_eq!(
        cs[1].argv,
        ["git", "commit", "-m", "fix: x\n\ngit reset --hard"]
    );
    assert_eq!(cs[1].unknown, None);
    let c = &p("git branch -D \"$(echo feat)\"")[1];
    assert_eq!(
        (c.argv.join(" "), c.unknown),
        ("git branch -D feat".to_string(), None)
    );
    let c = &p("git branch -D \"x-$(printf '%s' feat)\"")[1];
    assert_eq!(c.argv.join(" "), "git branch -D x-feat");
    // Unquoted output that would split into fields, and unknown output, stay unknown.
    let c = &p("git branch -D $(echo feat)")[1];
    assert_eq!(c.argv.join(" "), "git branch -D feat");
    let c = &p("git branch -D $(echo a b)")[1];
    assert_eq!(c.unknown, Some(Unknown::CommandSubstitution));
    let c = &p("git branch -D \"$(git branch --show-current)\"")[1];
    assert_eq!(c.unknown, Some(Unknown::CommandSubstitution));
    let c = &p("git branch -D \"$(echo $B)\"")[1];
    assert_eq!(c.unknown, Some(Unknown::CommandSubstitution));
}
