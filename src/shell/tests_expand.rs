//! Table tests for redirections, word expansion and errors.

use std::path::Path;

use super::tests::p;
use super::{ParseError, Redirect, parse_with_home};

#[test]
fn redirects() {
    let r = |fd, append, target: &str, both| Redirect {
        fd,
        append,
        target: target.to_string(),
        both,
        expands: target.contains('$'),
    };
    let table: &[(&str, Vec<Redirect>)] = &[
        ("echo x > a", vec![r(None, false, "a", false)]),
        ("echo x >> 'a b'", vec![r(None, true, "a b", false)]),
        (
            "echo x >| a 2> e",
            vec![r(None, false, "a", false), r(Some(2), false, "e", false)],
        ),
        ("cmd &> a", vec![r(None, false, "a", true)]),
        (
            "echo x > out$n.log",
            vec![r(None, false, "out$n.log", false)],
        ),
        ("cmd &>> a", vec![r(None, true, "a", true)]),
        ("cmd >& a", vec![r(None, false, "a", true)]),
        ("cmd > a 2>&1 < in 3>&-", vec![r(None, false, "a", false)]),
        ("> a cmd", vec![r(None, false, "a", false)]),
        ("echo 2 > a", vec![r(None, false, "a", false)]),
    ];
    for (cmd, want) in table {
        assert_eq!(&p(cmd)[0].redirects, want, "{cmd:?}");
    }
    assert_eq!(p("echo 2 > a")[0].argv, ["echo", "2"]);
    assert_eq!(p("echo 2>a")[0].argv, ["echo"]);
}

#[test]
fn expansion_braces_tilde_globs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    for d in ["wt-a", "wt-b", "other", ".hidden", "wt-a/sub"] {
        std::fs::create_dir_all(root.join(d)).expect("mkdir");
    }
    std::fs::write(root.join("f.txt"), "").expect("write");
    let run = |cmd: &str| -> Vec<String> {
        parse_with_home(cmd, root, Some(Path::new("/home/u"))).expect("parse")[0]
            .argv
            .clone()
    };
    assert_eq!(run("rm -rf wt-*"), ["rm", "-rf", "wt-a", "wt-b"]);
    assert_eq!(run("rm -rf wt-?"), ["rm", "-rf", "wt-a", "wt-b"]);
    assert_eq!(run("rm -rf wt-[a]"), ["rm", "-rf", "wt-a"]);
    assert_eq!(run("rm -rf wt-[!a]"), ["rm", "-rf", "wt-b"]);
    assert_eq!(run("rm -rf */"), ["rm", "-rf", "other/", "wt-a/", "wt-b/"]);
    assert_eq!(run("ls */sub"), ["ls", "wt-a/sub"]);
    assert_eq!(run("ls *"), ["ls", "f.txt", "other", "wt-a", "wt-b"]);
    assert_eq!(run("ls .h*"), ["ls", ".hidden"]);
    assert_eq!(run("rm -rf 'wt-*'"), ["rm", "-rf", "wt-*"]);
    assert_eq!(run("rm -rf wt-\\*"), ["rm", "-rf", "wt-*"]);
    assert_eq!(run("rm -rf nomatch*"), ["rm", "-rf", "nomatch*"]);
    assert_eq!(run("[ -d x ]"), ["[", "-d", "x", "]"]);
    let abs = format!("ls {}/wt-*", root.display());
    assert_eq!(run(&abs)[1], format!("{}/wt-a", root.display()));
    let sub = parse_with_home("cd wt-a && ls s*", root, None).expect("parse");
    assert_eq!(sub[1].argv, ["ls", "sub"]);

    assert_eq!(run("rm -rf {wt-a,wt-b}"), ["rm", "-rf", "wt-a", "wt-b"]);
    assert_eq!(run("echo a{1..3}b"), ["echo", "a1b", "a2b", "a3b"]);
    assert_eq!(run("echo {a..c}"), ["echo", "a", "b", "c"]);
    assert_eq!(run("echo {x,{y,z}}"), ["echo", "x", "y", "z"]);
    assert_eq!(run("echo '{a,b}' {a} {}"), ["echo", "{a,b}", "{a}", "{}"]);
    assert_eq!(
        run("echo ~ ~/x '~' a~"),
        ["echo", "/home/u", "/home/u/x", "~", "a~"]
    );
}

#[test]
fn errors() {
    let e = |cmd: &str| parse_with_home(cmd, Path::new("/"), None).unwrap_err();
    assert!(matches!(e("echo 'open"), ParseError::Syntax(_)));
    assert!(matches!(e("echo \"open"), ParseError::Syntax(_)));
    assert!(matches!(e("echo $(open"), ParseError::Syntax(_)));
    assert!(matches!(e("if x; then y"), ParseError::Syntax(_)));
    assert!(matches!(e("a && )"), ParseError::Syntax(_)));
    assert!(matches!(e("{ a }"), ParseError::Syntax(_)));
    let big = "a".repeat(super::MAX_INPUT + 1);
    assert_eq!(e(&big), ParseError::TooLarge);
    assert_eq!(e(&"(".repeat(40)), ParseError::TooDeep);
    assert_eq!(e(&"$(".repeat(40)), ParseError::TooDeep);
    let evals = format!("{}git stash", "eval ".repeat(20));
    assert_eq!(e(&evals), ParseError::TooDeep);
    assert!(e("(").to_string().contains("syntax"));
}

#[test]
fn tildes_ifs_and_stdin_sources() {
    let argv = |line: &str| p(line).last().unwrap().argv.join(" ");
    assert_eq!(argv("rm -rf ~+/x"), "rm -rf /w/x");
    assert_eq!(argv("cd a; ls ~+"), "ls /w/a");
    // `~-` and `~user` are only known when the line runs.
    let c = &p("rm -rf ~-/x")[0];
    assert_eq!(c.argv[2], "~-/x");
    assert!(c.unknown.is_some());
    assert!(p("rm -rf ~nobody/x")[0].unknown.is_some());
    // A changed IFS splits a value where spaces would not.
    assert_eq!(argv("x=reset_--hard; git $x"), "git reset_--hard");
    let c = &p("IFS=_; x=reset_--hard; git $x")[0];
    assert!(c.unknown.is_some(), "{c:?}");
    // Shell text from stdin, a process substitution, a file written on the line.
    for line in [
        "echo 'git stash' | bash -s",
        "bash -s -- a b <<< 'git stash'",
        "sh <(echo git stash)",
        "echo git stash | . /dev/stdin",
        "echo 'git stash' > x.sh; sh x.sh",
        "echo 'git stash' > x.sh; chmod +x x.sh; ./x.sh",
        "alias g='git stash'; g",
    ] {
        assert_eq!(argv(line), "git stash", "{line}");
    }
    // An alias is not expanded inside its own text.
    assert_eq!(argv("alias ls='ls -la'; ls"), "ls -la");
    // Text the shell expands first is not known.
    let c = p("python3 <<< \"$CODE\"");
    assert_eq!(c[0].stdin, super::Input::Unknown);
}

#[test]
fn pipes_reach_the_commands_of_stages_groups_and_nested_shells() {
    use super::Input;
    // The reader of a pipe carries the writer's id, through subshells, groups and `sh -c`.
    for line in [
        "git diff | patch -R",
        "git diff | (cd . && patch -R)",
        "git diff | { cd x; patch -R; }",
        "git diff | sh -c 'patch -R'",
        "(git diff) | patch -R",
        "{ git diff; } | bash -c 'cd x && patch -R'",
    ] {
        let cmds = p(line);
        let diff = cmds.iter().find(|c| c.argv[0] == "git").unwrap();
        let patch = cmds.iter().find(|c| c.argv[0] == "patch").unwrap();
        assert!(diff.pipe_out.is_some(), "{line}: {diff:?}");
        assert_eq!(patch.pipe_in, diff.pipe_out, "{line}");
        assert_eq!(patch.stdin, Input::Unknown, "{line}");
    }
    // A redirection takes the command off the pipe; separate pipelines have separate pipes.
    let cmds = p("git diff > f | patch -R");
    assert!(cmds[0].pipe_out.is_none());
    let cmds = p("git diff | (patch -R < f)");
    assert_eq!(cmds[1].pipe_in, None);
    assert_eq!(cmds[1].stdin_path, Some(std::path::PathBuf::from("/w/f")));
    let cmds = p("a | b; c | d");
    assert_ne!(cmds[0].pipe_out, cmds[2].pipe_out);
    assert_eq!(cmds[3].pipe_in, cmds[2].pipe_out);
    assert_eq!(cmds[2].pipe_in, None);
    // A shell reading its script from the pipe leaves none to its commands.
    let cmds = p("echo 'patch -R' | sh");
    assert_eq!(cmds.last().unwrap().pipe_in, None);
    // Literal text piped into a subshell reaches the commands in it.
    let cmds = p("echo 'git stash' | (bash)");
    assert_eq!(cmds.last().unwrap().argv.join(" "), "git stash");
}
