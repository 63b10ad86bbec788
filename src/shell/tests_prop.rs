//! Property tests: `parse` never panics, whatever the input, and deep nesting is refused.

use std::path::Path;

use proptest::prelude::*;

use super::{ParseError, parse_with_home};

fn run(s: &str) {
    let _ = parse_with_home(
        s,
        Path::new("/nonexistent-dibs"),
        Some(Path::new("/home/u")),
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_strings_never_panic(s in ".{0,200}") {
        run(&s);
    }

    #[test]
    fn arbitrary_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..300)) {
        run(&String::from_utf8_lossy(&b));
    }

    #[test]
    fn shell_like_text_never_panics(
        parts in proptest::collection::vec(
            prop::sample::select(vec![
                "git", " ", "'", "\"", "\\", "$", "(", ")", "{", "}", ";", "&", "|", "<", ">", "<<",
                "EOF", "\n", "`", "$(", "${", "#", "*", "?", "[", "]", ",", "..", "~", "=", "A=1",
                "bash -c ", "sh <<", "<<<", "eval ", "xargs ", "cd ", "if ", "then ", "fi", "do ",
                "done", "case ", " in ", "esac", ";;", "for ", "while ", "2>", "&>", "-", "sudo ",
                "env -S ", "timeout ", "$'", "\\\n", "((", "))", "[[", "]]", "!", "time ", "f()",
            ]),
            0..60,
        )
    ) {
        run(&parts.concat());
    }

    #[test]
    fn deep_nesting_is_too_deep(n in 17usize..2000, kind in 0usize..6) {
        let (open, close) = [
            ("( ", " )"),
            ("$(", ")"),
            ("{ ", "; }"),
            ("if a; then ", "; fi"),
            ("echo \"$(", ")\""),
            ("${x:-", "}"),
        ][kind];
        let s = format!("{}git stash{}", open.repeat(n), close.repeat(n));
        let got = parse_with_home(&s, Path::new("/"), None);
        prop_assert_eq!(got.unwrap_err(), ParseError::TooDeep);
    }
}

#[test]
fn very_deep_unclosed_input_does_not_overflow() {
    for open in [
        "(",
        "$(",
        "{ ",
        "`",
        "${",
        "\"$(",
        "if ",
        "bash -c '",
        "{a,",
        "[[ ",
        "((",
    ] {
        let s = open.repeat(100_000);
        let s = &s[..s.len().min(super::MAX_INPUT)];
        let _ = parse_with_home(s, Path::new("/"), None);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Bounded time: repeated nesting, long words, many globs and loops never take long.
    #[test]
    fn parse_time_is_bounded(
        unit in prop::sample::select(vec![
            "$(", "( ", "{ ", "bash -c '", "for x in a b c d; do ", "*/", "{a,b,c}", "$x", "\"",
            "eval ", "a=( ", "$(( ", "git branch -D x; ",
        ]),
        n in 1usize..400,
    ) {
        let text = unit.repeat(n);
        let start = std::time::Instant::now();
        run(&text);
        prop_assert!(start.elapsed() < std::time::Duration::from_secs(2), "{n} x {unit:?}");
    }
}
