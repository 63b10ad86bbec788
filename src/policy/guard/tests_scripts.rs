//! Script files judged by what they can destroy (red-team 2/19): everyday project scripts
//! (Django's manage.py, a version script, a build helper that writes its output) run nothing
//! worth asking about; scripts that delete, move, truncate or run unknown commands, in every
//! spelling an adversary reaches for, are caught; literal commands are handed back to be judged.
//! Also which links a deleting `find` follows and where `rsync --delete` goes (red-team 2/15).

use super::readonly::{Lang, Power, power};

const MANAGE_PY: &str = r#"#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""
import os
import sys


def main():
    """Run administrative tasks."""
    os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'mysite.settings')
    try:
        from django.core.management import execute_from_command_line
    except ImportError as exc:
        raise ImportError(
            "Couldn't import Django. Are you sure it's installed?"
        ) from exc
    execute_from_command_line(sys.argv)


if __name__ == '__main__':
    main()
"#;

fn runs(lang: Lang, text: &str) -> Vec<String> {
    match power(lang, text) {
        Some(Power::Runs(c)) => c,
        other => panic!("{text}: {other:?}"),
    }
}

fn destroys(lang: Lang, text: &str) -> String {
    match power(lang, text) {
        Some(Power::Destroys(why)) => why,
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn everyday_scripts_run_nothing_to_ask_about() {
    for text in [
        MANAGE_PY,
        "import os\nprint(os.getcwd())\n",
        "import json, yaml\nfrom pathlib import Path\nd = yaml.safe_load(Path('a.yml').read_text())\n\
         Path('out.json').write_text(json.dumps(d))\n",
        "import csv\nwith open('report.csv', 'w', newline='') as f:\n    csv.writer(f).writerow([1])\n",
        "from os.path import join\nimport asyncio\nasyncio.run(main())\nprint('a'.replace('a', 'b'))\n",
        "import requests\nr = requests.get(URL)\nitems.remove(3)\nd.pop('k')\n",
        "def remove(x):\n    return x\nremove(1)\n",
        "import os\nos.makedirs('build', exist_ok=True)\nos.chdir('build')\n",
        "class A:\n    def rename(self): pass\nA().rename()\n",
    ] {
        assert_eq!(runs(Lang::Python, text), Vec::<String>::new(), "{text}");
    }
    for text in [
        "const fs = require('fs');\nfs.writeFileSync('dist/v.txt', process.version);\n",
        "import fs from 'node:fs';\nconsole.log(fs.readFileSync('a', 'utf8'));\n",
        "const re = /x/g; console.log(re.exec('x'));\nconst a = [1]; a.splice(0, 1);\n",
        "const path = require('path'); module.exports = { entry: path.join(__dirname, 'src') };\n",
    ] {
        assert_eq!(runs(Lang::Js, text), Vec::<String>::new(), "{text}");
    }
}

#[test]
fn literal_commands_are_handed_back() {
    assert_eq!(
        runs(
            Lang::Js,
            "const { execSync } = require('child_process');\nconsole.log(execSync('git rev-parse HEAD').toString());\n"
        ),
        ["git rev-parse HEAD"]
    );
    assert_eq!(
        runs(
            Lang::Js,
            "import { spawnSync } from 'child_process'\nspawnSync('git', ['status', '--short'], { stdio: 'inherit' })"
        ),
        ["git status --short"]
    );
    assert_eq!(
        runs(
            Lang::Js,
            "const cp = require('node:child_process'); cp.execSync(`git log -1`)"
        ),
        ["git log -1"]
    );
    assert_eq!(
        runs(
            Lang::Python,
            "import subprocess\nout = subprocess.check_output(\n    ['git', 'describe', '--tags'],\n    text=True,\n)\n"
        ),
        ["git describe --tags"]
    );
    assert_eq!(
        runs(Lang::Python, "import os\nos.system('git reset --hard')\n"),
        ["git reset --hard"]
    );
    assert_eq!(
        runs(
            Lang::Python,
            "from subprocess import run as r\nr('git clean -fd'.split())\n"
        ),
        ["git clean -fd"]
    );
    assert_eq!(
        runs(
            Lang::Python,
            "import subprocess as sp\nsp.run(['rm', '-rf', 'my dir'])\n"
        ),
        ["rm -rf 'my dir'"]
    );
}

#[test]
fn scripts_that_destroy_or_cannot_be_judged() {
    for text in [
        "import shutil\nshutil.rmtree(path)\n",
        "import shutil as s\ns.move('a', '/tmp/a')\n",
        "from shutil import rmtree\n",
        "from os import remove as r\nr('x')\n",
        "import os as o\no.replace('a', 'b')\n",
        "import os\nos.truncate('src/lib.rs', 0)\n",
        "from pathlib import Path\nPath('src/lib.rs').unlink()\n",
        "import pathlib\npathlib.Path('a').rename('b')\n",
        "from pathlib import Path\nPath('a').replace('b')\n",
        "import os\nfor p in os.listdir('.'):\n    Path(p).rmdir()\n",
        "import subprocess\nsubprocess.run(cmd, shell=True)\n",
        "import subprocess\nsubprocess.run(['git', branch, '-D'])\n",
        "import subprocess\nsubprocess.run(f'git reset {mode}', shell=True)\n",
        "import subprocess\nsubprocess.run('git reset ' + mode, shell=True)\n",
        "import subprocess\nrun = subprocess.run\n",
        "import os\no = os\no.remove('x')\n",
        "import os\ngetattr(os, 'rem' + 'ove')('x')\n",
        "getattr(__import__('o' + 's'), 'remove')('x')\n",
        "exec(open('other.py').read())\n",
        "eval(code)\n",
        "import importlib\nimportlib.import_module('shutil').rmtree('x')\n",
        "import sys\nsys.modules['os'].remove('x')\n",
        "from os import *\nremove('x')\n",
        "import os\nos.execvp('git', ['git', 'reset', '--hard'])\n",
        "import pty\npty.spawn('sh')\n",
        "import sh\nsh.git('reset', '--hard')\n",
        "print('unterminated\n",
    ] {
        destroys(Lang::Python, text);
    }
    for text in [
        "import { promises as fs } from 'fs'\nawait fs.rename('a', 'b')",
        "require('fs').rmSync(dir, { recursive: true })",
        "const fse = require('fs-extra'); fse.emptyDirSync('src')",
        "const rimraf = require('rimraf'); rimraf.sync('src')",
        "require('shelljs').rm('-rf', 'src')",
        "const { execSync } = require('child_process'); execSync(cmd)",
        "const { execSync } = require('child_process'); execSync(`git reset ${mode}`)",
        "const { execSync } = require('child_process'); execSync('git reset ' + mode)",
        "const { spawn } = require('child_process'); spawn('git', args)",
        "const { exec } = require('child_process'); const run = exec;",
        "const m = 'child_' + 'process'; require(m).execSync('x')",
        "eval(process.argv[2])",
        "new Function(code)()",
        "Deno.remove('src', { recursive: true })",
        "await import(name)",
        "require('fs')['rm'+'Sync']('src/lib.rs')",
        "const f = require('fs'); f[process.argv[2]]('src')",
        "import * as fs from 'fs'; fs['unlink' + 'Sync']('x')",
        "process['binding']('fs')",
    ] {
        destroys(Lang::Js, text);
    }
    assert_eq!(
        runs(
            Lang::Js,
            "const a = [1, 2]; const fs = require('fs'); console.log(a[i], fs.readFileSync('x')[0]);"
        ),
        Vec::<String>::new()
    );
    let why = destroys(Lang::Python, "import shutil\nshutil.rmtree(path)\n");
    assert_eq!(why, "calls `shutil.rmtree`");
    assert_eq!(power(Lang::Perl, "unlink 'x'"), None);
}

/// Which links a deleting `find` follows (red-team 2/15), and `rsync --delete` judged through a
/// link at its destination.
#[test]
fn find_follows_links_and_rsync_goes_into_its_destination() {
    use super::Op;
    use super::tests::op;
    let follow = |l: &str| match op(l) {
        Some(Op::FindDelete { follow, .. }) => follow,
        other => panic!("{l}: {other:?}"),
    };
    assert_eq!(follow("find . -delete"), None);
    assert_eq!(follow("find -P . -delete"), None);
    assert_eq!(follow("find -H L -delete"), Some(false));
    assert_eq!(follow("find -L . -delete"), Some(true));
    assert_eq!(follow("find -L -P . -delete"), None);
    assert_eq!(follow("find . -follow -name x -delete"), Some(true));
    match op("rsync -a --delete e/ L") {
        Some(Op::RemoveTree { paths }) => {
            assert_eq!(paths, [std::path::PathBuf::from("/w/repo/L/")]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_removal_of_a_literal_path_is_judged_as_rm() {
    for (lang, text, want) in [
        (
            Lang::Python,
            "import shutil\nshutil.rmtree('build', ignore_errors=True)\n",
            "rm -rf -- build",
        ),
        (
            Lang::Python,
            "import os\nos.unlink('src/lib.rs')\n",
            "rm -rf -- src/lib.rs",
        ),
        (
            Lang::Python,
            "import shutil\nshutil.rmtree('my dir')\n",
            "rm -rf -- 'my dir'",
        ),
        (
            Lang::Js,
            "require('fs').rmSync('dist', { recursive: true, force: true })",
            "rm -rf -- dist",
        ),
        (
            Lang::Js,
            "const fs = require('fs'); fs.unlinkSync('src/lib.rs')",
            "rm -rf -- src/lib.rs",
        ),
        (
            Lang::Js,
            "const fsp = require('fs/promises'); await fsp.rm('out', { recursive: true })",
            "rm -rf -- out",
        ),
    ] {
        assert_eq!(runs(lang, text), vec![want.to_owned()], "{text}");
    }
}
