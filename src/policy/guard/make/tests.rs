//! make's table tests: recipes of the targets built, included makefiles, what is asked and
//! what is looked at as a whole.

use super::*;

/// The recipe lines of `make ARGS` over makefiles given by name (`None`: not followed or
/// asked).
fn run(args: &str, files: &[(&str, &str)]) -> Recipes {
    let args: Vec<String> = args.split_whitespace().map(str::to_owned).collect();
    let text = |p: &Path| {
        files
            .iter()
            .find(|(n, _)| p == Path::new("/n").join(n))
            .map(|(_, t)| Some((*t).to_owned()))
    };
    recipes(&args, Path::new("/n"), &[], &text)
}

fn lines(args: &str, files: &[(&str, &str)]) -> Option<Vec<String>> {
    match run(args, files) {
        Recipes::Lines { lines, .. } => Some(lines),
        _ => None,
    }
}

#[test]
fn recipes_of_the_targets_built() {
    let mk = "RM_ALL = $(RM) -r\nOUT := build\n\nall: build\n\nbuild: gen\n\tcargo build\n\
              gen:\n\t@echo gen > $@.txt\nclean:\n\t-$(RM_ALL) $(OUT) *.txt\n\
              clean2: ; rm -rf .worktrees\n.PHONY: all clean\n";
    let mkfile = |args: &str| lines(args, &[("Makefile", mk)]);
    assert_eq!(
        mkfile("-f Makefile").unwrap(),
        ["echo gen > gen.txt", "cargo build"]
    );
    assert_eq!(
        mkfile("-fMakefile clean clean2").unwrap(),
        ["rm -f -r build *.txt", "rm -rf .worktrees"]
    );
    assert_eq!(
        mkfile("-f Makefile clean OUT=dist").unwrap(),
        ["rm -f -r dist *.txt"]
    );
    assert_eq!(
        mkfile("-f Makefile -n clean").unwrap(),
        Vec::<String>::new()
    );
    assert_eq!(
        mkfile("-f Makefile -j 4 test").unwrap(),
        Vec::<String>::new()
    );
    assert!(mkfile("-f Makefile -sk clean").is_some());
}

#[test]
fn included_makefiles_are_read_like_the_top_one() {
    let other = ("other.mk", "all:\n\trm -f new.txt\n");
    let rm = vec!["rm -f new.txt".to_owned()];
    for top in [
        "include other.mk\n",
        "-include other.mk\n",
        "sinclude other.mk\n",
        "MK = other\ninclude $(MK).mk\n",
        "include missing.mk other.mk\n",
        "OBJS = other.o\n-include $(OBJS:.o=.mk)\n",
    ] {
        assert_eq!(
            lines("-f top.mk", &[("top.mk", top), other]),
            Some(rm.clone()),
            "{top}"
        );
    }
    // In an -I folder; several -f; MAKEFILES first, not the default goal.
    let inc = ("inc/other.mk", "all:\n\trm -f new.txt\n");
    assert_eq!(
        lines("-I inc -f top.mk", &[("top.mk", "include other.mk\n"), inc]),
        Some(rm.clone())
    );
    assert_eq!(
        lines(
            "--include-dir=inc -f top.mk",
            &[("top.mk", "include other.mk\n"), inc]
        ),
        Some(rm.clone())
    );
    assert_eq!(
        lines("-f a.mk -f other.mk", &[("a.mk", "X=1\n"), other]),
        Some(rm.clone())
    );
    assert_eq!(
        lines(
            "-f top.mk MAKEFILES=other.mk",
            &[("top.mk", "build:\n\tcargo build\n"), other]
        ),
        Some(vec!["cargo build".to_owned()])
    );
    assert_eq!(
        lines(
            "-f top.mk all MAKEFILES=other.mk",
            &[("top.mk", "build:\n\tcargo build\n"), other]
        ),
        Some(rm.clone())
    );
    // A cycle is read once.
    assert_eq!(
        lines(
            "-f a.mk",
            &[
                ("a.mk", "include b.mk\nall:\n\ttrue\n"),
                ("b.mk", "include a.mk\n")
            ]
        ),
        Some(vec!["true".to_owned()])
    );
    // A missing makefile a rule makes: that rule runs, and what it makes is not known.
    let generated = ("top.mk", "include gen.mk\ngen.mk:\n\trm -f new.txt\n");
    assert!(matches!(run("-f top.mk", &[generated]), Recipes::Unread(_)));
    assert_eq!(
        lines(
            "-f top.mk all",
            &[(
                "top.mk",
                "include gen.mk\nall:\n\ttrue\ngen.mk:\n\trm -f new.txt\n"
            )]
        ),
        Some(vec!["rm -f new.txt".to_owned(), "true".to_owned()])
    );
    // A missing makefile no rule makes gives nothing.
    assert_eq!(
        lines(
            "-f top.mk",
            &[("top.mk", "-include deps.d\nall:\n\tcargo build\n")]
        ),
        Some(vec!["cargo build".to_owned()])
    );
}

#[test]
fn an_include_that_cannot_be_read_is_asked_when_the_recipe_may_come_from_it() {
    for (top, args) in [
        ("include $(shell echo x.mk)\n", "-f top.mk"),
        ("include $(patsubst %,%.mk,a)\nall:\n\ttrue\n", "-f top.mk"),
        ("-include $(shell ls)\nall:\n\ttrue\n", "-f top.mk clean"),
        ("load x.so\nall:\n\ttrue\n", "-f top.mk clean"),
    ] {
        assert!(
            matches!(run(args, &[("top.mk", top)]), Recipes::Unread(_)),
            "{top}"
        );
    }
    // The target's own rule is known: its recipe is not the include's.
    assert_eq!(
        lines(
            "-f top.mk",
            &[("top.mk", "all:\n\tcargo build\n-include $(shell ls *.d)\n")]
        ),
        Some(vec!["cargo build".to_owned()])
    );
}

#[test]
fn what_is_not_followed_is_left_to_the_whole_look() {
    for mk in [
        "ifeq ($(A),1)\nX=1\nendif\nclean:\n\trm -f x\n",
        "clean:\n\trm -f $(shell ls)\n",
        "X != ls\nclean:\n\trm -f x\n",
        "clean: X = 1\nclean:\n\trm -f x\n",
        "define X\nclean:\n\trm -rf /\nendef\nclean:\n\trm -f x\n",
    ] {
        let got = run("-f M clean", &[("M", mk)]);
        assert!(matches!(got, Recipes::Whole { .. }), "{mk}");
    }
}

/// The commands make runs as it reads `M` for `make ARGS` (`None`: asked).
fn early_of(args: &str, mk: &str) -> Option<Vec<String>> {
    match run(args, &[("M", mk)]) {
        Recipes::Lines { early, .. } | Recipes::Whole { early, .. } => Some(early),
        _ => None,
    }
}

#[test]
fn commands_run_as_the_makefile_is_read() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "-f M",
            "X != rm -f new.txt\nall:\n\ttrue\n",
            &["rm -f new.txt"],
        ),
        (
            "-f M",
            "X := $(shell rm -f new.txt)\nall:\n\ttrue\n",
            &["rm -f new.txt"],
        ),
        ("-f M", "X = ${shell $(RM) new.txt}\n", &["rm -f new.txt"]),
        ("-n -f M", "X != rm -f a\n", &["rm -f a"]),
        (
            "-f M all",
            "all:\n\t@echo $(shell git clean -fd)\n",
            &["git clean -fd"],
        ),
        ("-f M", "ifeq ($(shell rm b),)\nendif\n", &["rm b"]),
        (
            "-f M",
            "$(file >>log.txt,x)\nall:\n\techo $$(shell x)\n",
            &[],
        ),
        ("-f M", "X := $(shell echo $(shell rm c))\n", &["rm c"]),
    ];
    for (args, mk, want) in cases {
        let got = early_of(args, mk);
        if mk.contains("echo $(shell rm c)") {
            // The outer call cannot be expanded: asked.
            assert!(got.is_none(), "{mk}: {got:?}");
            continue;
        }
        let want: Vec<String> = want.iter().map(|w| (*w).to_owned()).collect();
        assert_eq!(got, Some(want), "{mk}");
    }
}
