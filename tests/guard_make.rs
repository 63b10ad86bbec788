//! make's included makefiles (red team 4/13): `include`, `-include`, `sinclude`, includes
//! named by variables, globs and `$(VAR:.o=.d)`, found in make's folder and its `-I` folders,
//! `MAKEFILES`, several `-f`, `GNUmakefile` before `Makefile`: their recipes are judged like the
//! top makefile's; an include that cannot be read is asked about when the target's recipe may
//! come from it. Everyday makefiles that include configuration and dependency files stay
//! silent. Real repositories, the real binary.

mod common;
mod guard_support;

use common::snap::answer;
use guard_support::*;

fn put(dir: &std::path::Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

const WIPE: &str = "wipe:\n\trm -f notes.txt\n";

#[test]
fn regression_recipes_in_included_makefiles_are_read() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    put(r, "mk/other.mk", "all:\n\trm -f notes.txt\n");
    put(r, "mk/wipe.mk", WIPE);
    put(r, "inc/other.mk", "all:\n\trm -f notes.txt\n");
    put(r, "top.mk", "include mk/other.mk\n");
    put(r, "dash.mk", "-include mk/other.mk\n");
    put(r, "sinc.mk", "sinclude mk/other.mk\n");
    put(r, "var.mk", "DIR = mk\ninclude $(DIR)/other.mk\n");
    put(r, "glob.mk", "include mk/*.mk\n");
    put(r, "search.mk", "include other.mk\n");
    put(r, "nested.mk", "include top.mk\n");
    put(
        r,
        "gen.mk",
        "include generated.mk\nall:\n\ttrue\ngenerated.mk:\n\trm -f notes.txt\n",
    );
    put(r, "plain.mk", "build:\n\tcargo build\n");
    put(r, "up.mk", "all:\n\trm -f ../notes.txt\n");
    put(r, "sub/Makefile", "include ../up.mk\n");
    for cmd in [
        "make -f top.mk",
        "make -s -f dash.mk",
        "make -f sinc.mk",
        "make -f var.mk",
        "make -f glob.mk",
        "make -f glob.mk wipe",
        "make -I inc -f search.mk",
        "make -Iinc -f search.mk",
        "make --include-dir=inc -f search.mk",
        "make -f nested.mk",
        "make -f gen.mk all",
        "make -f plain.mk -f mk/wipe.mk wipe",
        "MAKEFILES=mk/wipe.mk make -f plain.mk wipe",
        "export MAKEFILES=mk/wipe.mk; make -f plain.mk wipe",
        "make -f plain.mk wipe MAKEFILES=mk/wipe.mk",
        "make -C sub",
        "gmake -f top.mk",
        "remake -f top.mk",
        "cd sub && make",
    ] {
        let reason = stopped(r, cmd);
        assert!(reason.contains("[guard:"), "{cmd}: {reason}");
    }
    // GNUmakefile comes before makefile and Makefile.
    put(r, "Makefile", "build:\n\tcargo build\n");
    allowed(r, "make");
    put(r, "GNUmakefile", "include mk/wipe.mk\n");
    stopped(r, "make");
    std::fs::remove_file(r.join("GNUmakefile")).unwrap();
    put(r, "makefile", WIPE);
    stopped(r, "make");
}

#[test]
fn an_include_that_cannot_be_read_is_asked_when_the_recipe_may_come_from_it() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    put(r, "shell.mk", "include $(shell echo mk/x.mk)\n");
    put(
        r,
        "late.mk",
        "build:\n\tcargo build\n-include $(shell ls *.dep)\n",
    );
    put(
        r,
        "made.mk",
        "include generated.mk\ngenerated.mk:\n\trm -f notes.txt\n",
    );
    for cmd in [
        "make -f shell.mk",
        "make -f late.mk wipe",
        "make -f made.mk",
    ] {
        let reason = asked(r, cmd);
        assert!(reason.contains("[guard:runs-code]"), "{cmd}: {reason}");
    }
    // The target's own rule is in the makefile read: its recipe is that one.
    allowed(r, "make -f late.mk build");
    allowed(r, "make -f late.mk");
}

#[test]
fn everyday_makefiles_with_includes_stay_silent() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    put(
        r,
        "Makefile",
        "include config.mk\nOBJS = main.o util.o\nall: app\napp: $(OBJS)\n\t$(CC) -o $@ $^\n\
         clean:\n\trm -f app $(OBJS) $(OBJS:.o=.d)\n-include $(OBJS:.o=.d)\n-include local.mk\n",
    );
    put(r, "config.mk", "CC = cc\nCFLAGS = -O2\ninclude Makefile\n");
    put(r, "main.d", "main.o: main.c util.h\nutil.h:\n");
    put(r, "util.d", "util.o: util.c util.h\n");
    for cmd in ["make", "make all", "make clean", "make -j4", "make -n wipe"] {
        allowed(r, cmd);
    }
}

#[test]
fn commands_make_runs_as_it_reads_its_makefiles_are_judged() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    put(r, "bang.mk", "X != rm -f notes.txt\nall:\n\ttrue\n");
    put(
        r,
        "shell.mk",
        "X := $(shell rm -f notes.txt)\nall:\n\ttrue\n",
    );
    put(
        r,
        "lazy.mk",
        "X = $(shell $(RM) notes.txt)\nall:\n\techo $(X)\n",
    );
    put(
        r,
        "cond.mk",
        "ifeq ($(shell git clean -fdq),)\nendif\nall:\n\ttrue\n",
    );
    put(r, "curly.mk", "X := ${shell git stash -u}\nall:\n\ttrue\n");
    put(r, "inc.mk", "include bang.mk\n");
    put(r, "sub/Makefile", "X != rm -f ../notes.txt\nall:\n\ttrue\n");
    put(
        r,
        "deep.mk",
        "X := $(shell echo $(shell rm -f notes.txt))\nall:\n\ttrue\n",
    );
    let abs = r.join("bang.mk");
    for cmd in [
        "make -f bang.mk".to_owned(),
        "make -f shell.mk".to_owned(),
        "make -n -f shell.mk".to_owned(),
        "make -q -f bang.mk".to_owned(),
        "make --dry-run -f bang.mk all".to_owned(),
        "make -f lazy.mk".to_owned(),
        "make -f cond.mk".to_owned(),
        "make -f curly.mk".to_owned(),
        "make -f inc.mk".to_owned(),
        "make -C sub".to_owned(),
        "cd sub && make".to_owned(),
        "gmake -f bang.mk".to_owned(),
        "command make -f shell.mk".to_owned(),
        "sh -c 'make -f bang.mk'".to_owned(),
        "env FOO=1 make -f bang.mk".to_owned(),
        format!("make -f {}", abs.display()),
        "printf 'X != rm -f notes.txt\\n' > w.mk && make -f w.mk".to_owned(),
        "MAKEFILES=bang.mk make -f inc.mk".to_owned(),
    ] {
        let reason = denied(r, &cmd);
        assert!(reason.contains("notes.txt"), "{cmd}: {reason}");
    }
    let run = bash(r, "make -f bang.mk");
    insta::assert_snapshot!("make_bang_assignment", answer(&f.repo, &run));
    // A call whose command cannot be expanded: asked.
    asked(r, "make -f deep.mk");
    // Everyday makefiles that ask the shell for a version or a date.
    put(
        r,
        "Makefile",
        "VERSION := $(shell git describe --tags --always)\nDATE != date +%F\n\
         CC := $(shell which cc)\nOUT = $(shell pwd)/build\nall:\n\techo $(VERSION) $(DATE)\n\
         log:\n\t@echo $$(date) >> build.log\n",
    );
    put(
        r,
        "out.mk",
        "$(file >build/out.txt,x)\n$(file >>notes.txt,x)\nall:\n\ttrue\n",
    );
    for cmd in ["make", "make all", "make -n", "make log", "make -f out.mk"] {
        allowed(r, cmd);
    }
}
