//! The parsers of what the kernels return, on made-up and on this system's own answers.

use super::*;

#[test]
fn linux_stat_with_spaces_and_parentheses_in_the_name() {
    let text =
        "4242 (my (odd) prog) S 17 4242 4242 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 98765 1 2";
    let info = parse_linux_stat(text).unwrap();
    assert_eq!(info.comm, "my (odd) prog");
    assert_eq!(info.ppid, 17);
    assert_eq!(info.start, 98765);
    assert_eq!(parse_linux_stat("4242 (x) S"), None);
    assert_eq!(parse_linux_stat(""), None);
}

#[test]
fn nul_separated_argv() {
    assert_eq!(
        parse_nul_separated(b"git\0commit\0-m\0x y\0"),
        Some(vec![
            "git".into(),
            "commit".into(),
            "-m".into(),
            "x y".into()
        ])
    );
    assert_eq!(parse_nul_separated(b""), None);
}

#[test]
fn procargs2_layout() {
    let mut buf = 3i32.to_ne_bytes().to_vec();
    buf.extend_from_slice(b"/usr/bin/git\0\0\0\0git\0branch\0-D\0HOME=/x\0");
    assert_eq!(
        parse_procargs2(&buf),
        Some(vec!["git".into(), "branch".into(), "-D".into()])
    );
    // Truncated, negative or absurd counts say nothing rather than something wrong.
    assert_eq!(parse_procargs2(&buf[..10]), None);
    let mut bad = (-1i32).to_ne_bytes().to_vec();
    bad.extend_from_slice(b"/x\0a\0");
    assert_eq!(parse_procargs2(&bad), None);
    let mut short = 5i32.to_ne_bytes().to_vec();
    short.extend_from_slice(b"/x\0a\0b\0");
    assert_eq!(parse_procargs2(&short), None);
    assert_eq!(parse_procargs2(&[]), None);
}

#[test]
fn c_chars_stop_at_the_first_nul() {
    assert_eq!(c_chars(b"zsh\0\0garbage"), "zsh");
    assert_eq!(c_chars(b"full"), "full");
}

#[cfg(any(target_os = "linux", target_os = "macos"))]
#[test]
fn this_process_is_described() {
    let me = proc_info(std::process::id()).expect("this system tells about processes");
    assert_eq!(me.ppid, std::os::unix::process::parent_id());
    assert!(!me.comm.is_empty());
    assert_eq!(proc_info(std::process::id()), Some(me));
    let argv = argv(std::process::id()).expect("argv");
    assert!(!argv.is_empty());
    assert!(boot_id().is_some_and(|b| b.len() == 8));
}
