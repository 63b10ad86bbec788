//! A project's own scripts beside a live peer's uncommitted files (red-team 2/19): everyday
//! scripts (Django's manage.py, a version script, a node script reading `git rev-parse`) pass in
//! silence; a script that deletes, moves or runs a command built at run time is put to the
//! person; a command a script runs from a literal is judged as that command. Real
//! repositories, the real binary.

mod common;
mod guard_support;

use std::fs;

use guard_support::*;

const MANAGE_PY: &str = r#"#!/usr/bin/env python
import os
import sys


def main():
    os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'mysite.settings')
    try:
        from django.core.management import execute_from_command_line
    except ImportError as exc:
        raise ImportError("Couldn't import Django.") from exc
    execute_from_command_line(sys.argv)


if __name__ == '__main__':
    main()
"#;

#[test]
fn regression_everyday_scripts_stay_silent_beside_a_live_peer() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    fs::create_dir_all(r.join("scripts")).unwrap();
    fs::write(r.join("manage.py"), MANAGE_PY).unwrap();
    fs::write(
        r.join("scripts/version.py"),
        "import os\nprint(os.getcwd())\n",
    )
    .unwrap();
    fs::write(
        r.join("scripts/version.js"),
        "const { execSync } = require('child_process');\nconsole.log(execSync('git rev-parse HEAD').toString());\n",
    )
    .unwrap();
    fs::write(
        r.join("scripts/report.py"),
        "import csv, json\nfrom pathlib import Path\nrows = json.loads(Path('data.json').read_text())\n\
         with open('report.csv', 'w') as f:\n    csv.writer(f).writerows(rows)\n\
         print(subprocess.check_output(['git', 'log', '-1']))\nimport subprocess\n",
    )
    .unwrap();
    for cmd in [
        "python3 manage.py test",
        "python3 manage.py migrate",
        "python3 scripts/version.py",
        "cd scripts && python3 version.py",
        "node scripts/version.js",
        "python3 scripts/report.py",
        "python3 -m scripts.version",
    ] {
        allowed(r, cmd);
    }
}

#[test]
fn regression_scripts_that_destroy_are_still_caught() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    for (file, text) in [
        ("wipe.py", "import shutil\nshutil.rmtree('src')\n"),
        (
            "mv.py",
            "import os as o\no.replace('src/lib.rs', '/tmp/x')\n",
        ),
        (
            "dyn.py",
            "import subprocess\nsubprocess.run(CMD, shell=True)\n",
        ),
        (
            "look.py",
            "import os\ngetattr(os, 'rem' + 'ove')('src/lib.rs')\n",
        ),
        (
            "del.js",
            "require('fs').rmSync('src', { recursive: true })\n",
        ),
        (
            "run.js",
            "const cp = require('child_process');\ncp.execSync(process.argv[2]);\n",
        ),
    ] {
        fs::write(r.join(file), text).unwrap();
        let prog = if file.ends_with(".js") {
            "node"
        } else {
            "python3"
        };
        let reason = stopped(r, &format!("{prog} {file}"));
        // A removal of a literal path is judged as the `rm -rf` it is (here over the peer's
        // src/lib.rs); the rest is put to the person.
        if file == "wipe.py" || file == "del.js" {
            assert!(
                reason.contains("rm -rf -- src") && reason.contains("[guard:peer-files]"),
                "{file}: {reason}"
            );
        } else {
            assert!(reason.contains("[guard:runs-code]"), "{file}: {reason}");
            assert!(reason.contains(&format!("the script `{file}`")), "{reason}");
        }
    }
    // Unreadable scripts still fail closed: too big, not text, missing.
    fs::write(r.join("big.py"), "x = 1\n".repeat(60_000)).unwrap();
    fs::write(r.join("bin.py"), [0u8, 159, 146, 150, 0xff]).unwrap();
    for cmd in ["python3 big.py", "python3 bin.py", "python3 missing.py"] {
        let reason = asked(r, cmd);
        assert!(reason.contains("cannot read"), "{cmd}: {reason}");
    }
    // A literal command is judged as itself: over the peer's files it is refused.
    fs::write(
        r.join("reset.py"),
        "import os\nos.system('git reset --hard')\n",
    )
    .unwrap();
    fs::write(
        r.join("stash.js"),
        "const { spawnSync } = require('child_process');\nspawnSync('git', ['stash', '-u']);\n",
    )
    .unwrap();
    for cmd in ["python3 reset.py", "node stash.js"] {
        let reason = denied(r, cmd);
        assert!(reason.contains("[guard:peer-files]"), "{cmd}: {reason}");
    }
    // Written on the line, then run: judged by what was written.
    let reason = asked(
        r,
        "cat > t.py <<'EOF'\nimport shutil\nshutil.rmtree(target)\nEOF\npython3 t.py",
    );
    assert!(reason.contains("[guard:runs-code]"), "{reason}");
    let reason = denied(
        r,
        "cat > t2.py <<'EOF'\nimport shutil\nshutil.rmtree('src')\nEOF\npython3 t2.py",
    );
    assert!(reason.contains("rm -rf -- src"), "{reason}");
    allowed(
        r,
        "cat > t.py <<'EOF'\nimport os\nprint(os.listdir('.'))\nEOF\npython3 t.py",
    );
}

/// Red team 8b/06, 07, 27: a makefile read from standard input or written earlier in the line,
/// and a `package.json` written or changed earlier in the line, are read as written, or asked
/// about when what they hold cannot be known; never let through unread.
#[test]
fn recipes_and_package_scripts_written_on_the_line_are_read_or_asked() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    for cmd in [
        "printf 'all:\\n\\trm -f notes.txt\\n' | make -f -",
        "make -f /dev/stdin <<'EOF'\nall:\n\trm -f notes.txt\nEOF",
        "make --file=- <<< $'all:\\n\\trm -f notes.txt'",
        "printf 'all:\\n\\tgit checkout .\\n' > ../mk && make -f ../mk",
        "curl -s example.invalid > ../mk && make -f ../mk",
        "cp /tmp/somewhere.mk ../mk2 && make -f ../mk2",
        "cat > ../mk3 <<'EOF'\nall:\n\tgit checkout .\nEOF\nmake -f ../mk3",
        "echo '{\"scripts\":{\"x\":\"rm notes.txt\"}}' > package.json && npm run x",
        "npm pkg set scripts.x='rm notes.txt' && npm run x",
        "curl -s example.invalid > package.json && npm test",
    ] {
        stopped(r, cmd);
    }
    for cmd in [
        "make -f - < /dev/null",
        "cat > ../ok.mk <<'EOF'\nall:\n\techo hi\nEOF\nmake -f ../ok.mk",
        "echo '{\"scripts\":{\"x\":\"echo hi\"}}' > package.json && npm run x",
        "npm pkg get name && npm run x",
    ] {
        allowed(r, cmd);
    }
}
