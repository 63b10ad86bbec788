//! Ignore rules are anyone's to write, so they do not decide what is kept: only HEAD's
//! `.gitignore` files do. Rules anywhere else (`*` or `*.py` appended to `.git/info/exclude`,
//! a `core.excludesFile`, a `.gitignore` not committed or changed since, one of `*` dropped into
//! a folder) hide nothing from the scan after a shell command, whatever their spelling; a file
//! a committed rule hides (`out/`) that a shell command wrote is listed by `recover` as not
//! kept, with why.
//! A command that makes more files than one scan takes (512) leaves a mark that the next
//! command of any session that may destroy finishes first.

mod common;
mod recover_support;

use std::path::Path;

use common::*;
use recover_support::*;

/// The paths `recover --json` lists as snapshotted, and as not kept (with the reason).
fn listing(root: &Path) -> (Vec<String>, Vec<(String, String)>) {
    let (code, out, _) = recover(root, &["--json"]);
    if code != 0 {
        return (Vec::new(), Vec::new());
    }
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let files = listed_paths(&v).into_iter().map(str::to_owned).collect();
    let skipped = v["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_owned(),
                f["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (files, skipped)
}

/// Each way to hide every name, as a shell command (run in the repository).
const CATCH_ALLS: &[&str] = &[
    "echo '*' >> .git/info/exclude",
    "printf '/*\\n' > .gitignore",
    "printf '**\\n' > ../everything && git config core.excludesFile ../everything",
];

#[test]
fn a_catch_all_ignore_rule_hides_nothing_from_the_scan() {
    for hide in CATCH_ALLS {
        let repo = TestRepo::new();
        let root = &repo.root;
        let s2 = Agent::new("hider", root);
        s2.bash(hide);
        let s1 = Agent::new("reporter", root);
        s1.bash(
            "python3 -c \"import os; os.makedirs('out', exist_ok=True); \
             open('report.csv','w').write('s1 results'); open('out/deep.txt','w').write('deep')\"",
        );
        let (files, _) = listing(root);
        assert!(
            files.contains(&"report.csv".to_owned()) && files.contains(&"out/deep.txt".to_owned()),
            "after `{hide}`: {files:?}"
        );
        s2.bash("git clean -fdxq");
        collect_garbage(root);
        assert_recovers(
            root,
            &["."],
            &[
                (root.join("report.csv"), b"s1 results".to_vec()),
                (root.join("out/deep.txt"), b"deep".to_vec()),
            ],
        );
    }
}

/// Rules that hide some of the files [`WRITTEN`] holds (not every name: one no rule is written
/// for is not hidden by most of them), as a shell command (run in the repository).
const SPELLINGS: &[&str] = &[
    "echo '*.*' >> .git/info/exclude",
    "echo '*.py' >> .git/info/exclude && echo '*.rs' >> .git/info/exclude",
    "printf 'src/\\n' > .gitignore",
    "printf '**/*.c\\n*.csv\\n' > .gitignore",
    "printf '/*\\n!.gitignore\\n' > .gitignore",
    "printf '*\\n!*/\\n' > .gitignore",
    "printf '*.*\\n' > ../rules && git config core.excludesFile ../rules",
    "printf '*\\n' > src/.gitignore && printf '*\\n' > lib/.gitignore",
    "printf 'target/\\n' > .gitignore && git add .gitignore && git commit -qm rules && \
     printf '*.py\\n**/*.rs\\n' >> .gitignore && echo '*.c' >> .git/info/exclude",
];

/// What the writer's shell command writes: (path, bytes).
const WRITTEN: &[(&str, &str)] = &[
    ("report.csv", "s1 results"),
    ("src/gen.py", "print(42)"),
    ("src/deep/mod.rs", "pub mod deep;"),
    ("lib/util.c", "int util(void);"),
];

#[test]
fn a_rule_not_committed_hides_nothing_whatever_its_spelling() {
    for hide in SPELLINGS {
        let repo = TestRepo::new();
        let root = &repo.root;
        std::fs::create_dir_all(root.join("lib")).unwrap();
        Agent::new("hider", root).bash(hide);
        let writes: Vec<String> = WRITTEN
            .iter()
            .map(|(p, b)| format!("printf %s '{b}' > {p}"))
            .collect();
        let writer = Agent::new("writer", root);
        writer.bash(&format!("mkdir -p src/deep lib && {}", writes.join(" && ")));
        let (listed, _) = listing(root);
        for (p, _) in WRITTEN {
            assert!(
                listed.contains(&(*p).to_owned()),
                "after `{hide}`: {listed:?}"
            );
        }
        Agent::new("cleaner", root).bash("git clean -fdxq && rm -rf src/deep lib");
        collect_garbage(root);
        let want: Vec<_> = WRITTEN
            .iter()
            .map(|(p, b)| (root.join(p), b.as_bytes().to_vec()))
            .collect();
        assert_recovers(root, &["."], &want);
    }
}

#[test]
fn committed_rules_leave_build_output_out_beside_rules_of_ones_own() {
    // Rules of one's own (a line in `info/exclude`, an excludes file, a `.gitignore` changed
    // and not committed yet) do not make what HEAD's rules hide kept.
    let repo = TestRepo::new();
    let root = &repo.root;
    repo.write(root, ".gitignore", "target/\n*.log\n");
    sh(root, "git add .gitignore && git commit -qm ignore");
    sh(
        root,
        "echo '*.swp' >> .git/info/exclude && echo '.idea/' > ../mine && \
         git config core.excludesFile ../mine && echo 'dist/' >> .gitignore",
    );
    let s1 = Agent::new("builder", root);
    s1.bash("mkdir -p target/debug && echo o > target/debug/app.o && echo l > build.log");
    let (files, skipped) = listing(root);
    assert_eq!(
        files,
        [".gitignore"],
        "only the changed rules file is kept: {files:?}"
    );
    let left: Vec<&str> = skipped.iter().map(|(p, _)| p.as_str()).collect();
    assert!(
        left.contains(&"target/debug/app.o") && left.contains(&"build.log"),
        "{skipped:?}"
    );
}

#[test]
fn a_file_an_ordinary_rule_hides_is_listed_as_not_kept() {
    let repo = TestRepo::new();
    let root = &repo.root;
    repo.write(root, ".gitignore", "out/\n*.log\n");
    sh(root, "git add .gitignore && git commit -qm ignore");
    let s1 = Agent::new("builder", root);
    s1.bash(
        "mkdir -p out && python3 -c \"open('out/report.csv','w').write('x'); \
         open('build.log','w').write('log')\"",
    );
    let (files, skipped) = listing(root);
    assert!(files.is_empty(), "ignored output is not kept: {files:?}");
    let reasons: Vec<&str> = skipped.iter().map(|(p, _)| p.as_str()).collect();
    assert!(
        reasons.contains(&"out/report.csv") && reasons.contains(&"build.log"),
        "{skipped:?}"
    );
    assert!(
        skipped
            .iter()
            .all(|(_, why)| why == "ignored by git, written by a shell command"),
        "{skipped:?}"
    );
    let (code, text, _) = recover(root, &[]);
    assert_eq!(code, 0);
    assert!(
        text.contains("not kept: ") && text.contains("out/report.csv (ignored by git"),
        "{text}"
    );
    // Listed once: the next command's scan finds it unchanged.
    s1.bash("touch other.txt");
    let (_, again) = listing(root);
    assert_eq!(again.len(), 2, "{again:?}");
}

#[test]
fn a_big_ignored_build_tree_is_neither_kept_nor_listed_past_a_few() {
    let repo = TestRepo::new();
    let root = &repo.root;
    repo.write(root, ".gitignore", "target/\n");
    sh(root, "git add .gitignore && git commit -qm ignore");
    let s1 = Agent::new("tester", root);
    s1.bash(
        "mkdir -p target/debug/deps && for i in $(seq 1 300); do echo o > target/debug/deps/$i.o; \
         done && echo mine > mine.txt",
    );
    let (files, skipped) = listing(root);
    assert_eq!(files, ["mine.txt"]);
    assert!(
        !skipped.is_empty() && skipped.len() <= 64,
        "{}",
        skipped.len()
    );
}

#[test]
fn thousands_of_generated_files_survive_a_peers_rm_after_one_more_call() {
    let repo = TestRepo::new();
    let root = &repo.root;
    let s1 = Agent::new("generator", root);
    s1.bash("mkdir gen && for i in $(seq 1 1500); do echo \"generated $i\" > gen/f$i.txt; done");
    let s2 = Agent::new("remover", root);
    s2.bash("rm -rf gen");
    collect_garbage(root);
    let (code, out, err) = recover(root, &["gen"]);
    assert_eq!(code, 0, "{out}{err}");
    let back = std::fs::read_dir(root.join("gen")).unwrap().count();
    assert_eq!(back, 1500, "every generated file is back");
    assert_eq!(
        std::fs::read(root.join("gen/f1234.txt")).unwrap(),
        b"generated 1234\n"
    );
    // The scan is finished: its mark is gone.
    assert_eq!(
        std::fs::read_dir(repo.store_dir().join("pending")).map_or(0, |d| d.count()),
        0
    );
}
