//! A fuzz target for the shell parser and the guard's classification, run briefly by every
//! `cargo test` (CI included) through proptest: the corpora's command lines mutated byte by byte
//! (insertions of shell metacharacters, deletions, duplications, splices of two lines) never
//! panic the parser or the classifier, and each parse finishes in bounded time. Longer runs:
//! `DIBS_FUZZ_CASES=100000 cargo test --release --test fuzz_parser`.

use std::path::Path;
use std::time::{Duration, Instant};

use git_dibs::policy::guard;
use proptest::prelude::*;

/// The slowest a parse and classification of one mutated line may take (debug build).
const BOUND: Duration = Duration::from_secs(2);

fn seeds() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut out = Vec::new();
    for name in ["everyday.txt", "destructive.txt"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        out.extend(
            text.lines()
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(|l| l.replace("\\n", "\n")),
        );
    }
    out
}

fn cases() -> u32 {
    std::env::var("DIBS_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400)
}

#[derive(Debug, Clone)]
enum Edit {
    Insert(usize, &'static str),
    Delete(usize, usize),
    Duplicate(usize, usize),
    Splice(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let piece = prop::sample::select(vec![
        "'",
        "\"",
        "\\",
        "$",
        "$(",
        "`",
        "(",
        ")",
        "{",
        "}",
        ";",
        "&&",
        "||",
        "|",
        "<",
        ">",
        "<<",
        "<<'EOF'\nx\nEOF\n",
        "\n",
        "*",
        "?",
        "[",
        "]",
        ",",
        "..",
        "~",
        "=",
        "#",
        "!",
        "bash -c '",
        "eval ",
        "xargs ",
        "cd - && ",
        "for x in a b; do ",
        "; done",
        "if true; then ",
        "; fi",
        "$((1+",
        "))",
        "arr=(",
        "${x:-",
        "WT_GUARD_BYPASS=1 ",
        "git -c alias.a='!",
        "--",
    ]);
    prop_oneof![
        (any::<usize>(), piece).prop_map(|(i, p)| Edit::Insert(i, p)),
        (any::<usize>(), 0usize..8).prop_map(|(i, n)| Edit::Delete(i, n)),
        (any::<usize>(), 0usize..16).prop_map(|(i, n)| Edit::Duplicate(i, n)),
        any::<usize>().prop_map(Edit::Splice),
    ]
}

fn apply(mut s: Vec<char>, edits: &[Edit], seeds: &[String]) -> String {
    for e in edits {
        let at = |i: usize, len: usize| if len == 0 { 0 } else { i % (len + 1) };
        match e {
            Edit::Insert(i, p) => {
                let k = at(*i, s.len());
                s.splice(k..k, p.chars());
            }
            Edit::Delete(i, n) => {
                let k = at(*i, s.len());
                let end = (k + n).min(s.len());
                s.drain(k..end);
            }
            Edit::Duplicate(i, n) => {
                let k = at(*i, s.len());
                let end = (k + n).min(s.len());
                let copy: Vec<char> = s[k..end].to_vec();
                s.splice(end..end, copy);
            }
            Edit::Splice(i) => {
                let other = &seeds[i % seeds.len()];
                let k = at(*i, s.len());
                s.splice(k..k, format!(" && {other}").chars());
            }
        }
    }
    s.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn mutated_command_lines_never_panic_and_parse_in_bounded_time(
        pick in any::<usize>(),
        edits in prop::collection::vec(edit(), 1..12),
    ) {
        let seeds = seeds();
        let line = apply(seeds[pick % seeds.len()].chars().collect(), &edits, &seeds);
        let start = Instant::now();
        if let Ok(cmds) = git_dibs::shell::parse(&line, Path::new("/nonexistent-dibs/w")) {
            let guarded = guard::classify(&cmds, &mut |_, _| Some("!git reset --hard".into()));
            for g in &guarded {
                let _ = guard::evaluate(g, &guard::Facts::None);
            }
        } else {
            let _ = guard::closed::unparsable(&line, "x");
        }
        prop_assert!(start.elapsed() < BOUND, "{:?} for {line:?}", start.elapsed());
    }
}
