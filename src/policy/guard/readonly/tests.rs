//! The read-only judgement over everyday one-liners and adversarial ones.

use super::*;

#[test]
fn everyday_one_liners_are_read_only() {
    for (lang, code) in [
        (Lang::Python, "import os; print(os.getcwd())"),
        (Lang::Python, "print(1+1)"),
        (
            Lang::Python,
            "import json,sys; print(json.load(open('package.json'))['name'])",
        ),
        (
            Lang::Python,
            "import sys, json; d = json.load(sys.stdin); print(d['a'])",
        ),
        (Lang::Python, "import os.path; print(os.path.exists('x'))"),
        (
            Lang::Python,
            "from os.path import join; print(join('a', 'b'))",
        ),
        (
            Lang::Python,
            "with open('a.txt', encoding='utf-8') as f: print(f.read())",
        ),
        (Lang::Python, "print(open('a.txt', 'rb').read()[:10])"),
        (Lang::Python, "import sys; print(sys.version)  # a comment"),
        (Lang::Python, "print(f'{1+1}')"),
        (Lang::Python, "print(\"it's\".replace('a', 'b'))"),
        (
            Lang::Js,
            "console.log(require('fs').readFileSync('a.txt','utf8'))",
        ),
        (Lang::Js, "console.log(process.version)"),
        (
            Lang::Js,
            "const fs = require('fs'); console.log(fs.readdirSync('.').length)",
        ),
        (
            Lang::Js,
            "console.log(JSON.parse(require('fs').readFileSync('package.json')).name)",
        ),
        (Lang::Js, "console.log(process.argv[2], /a\\/b/.test('x'))"),
        (Lang::Js, "console.log(`v${1+1}`) // done"),
        (Lang::Perl, "print if /x/"),
        (Lang::Perl, "s/a/b/"),
        (Lang::Perl, "print $F[1]"),
        (Lang::Perl, "chomp; print length($_), \"\\n\""),
        (Lang::Perl, "print join(',', split /:/, $ENV{PATH})"),
        (Lang::Perl, "$n++ if /TODO/; END { print $n }"),
        (Lang::Perl, "tr/a-z/A-Z/; print"),
        (Lang::Ruby, "puts 1"),
        (Lang::Ruby, "puts File.read('a.txt').lines.count"),
        (
            Lang::Ruby,
            "require 'json'; puts JSON.parse(STDIN.read)['a']",
        ),
        (Lang::Ruby, "puts ARGV.map(&:upcase).join(' ')"),
    ] {
        assert!(read_only(lang, code), "{lang:?}: {code}");
    }
}

#[test]
fn adversarial_one_liners_are_not() {
    for (lang, code) in [
        (Lang::Python, "import os; os.remove('a.txt')"),
        (
            Lang::Python,
            "getattr(__import__('o'+'s'),'remove')('a.txt')",
        ),
        (Lang::Python, "import os as o; o.replace('a.txt', 'b')"),
        (Lang::Python, "import os; o = os; o.replace('a.txt', 'b')"),
        (Lang::Python, "import os; os.replace('a.txt', 'b')"),
        (Lang::Python, "from os import replace; replace('a', 'b')"),
        (Lang::Python, "from os import *; replace('a', 'b')"),
        (Lang::Python, "open('a.txt', 'w')"),
        (Lang::Python, "open('a.txt', 'r+')"),
        (Lang::Python, "open('a.txt', mode='a')"),
        (Lang::Python, "import sys; open('a.txt', sys.argv[1])"),
        (Lang::Python, "f = open; f('a.txt', 'w')"),
        (Lang::Python, "print(open('a', **{'mode': 'w'}))"),
        (Lang::Python, "exec('import o'+'s')"),
        (Lang::Python, "import glob; glob.os.replace('a', 'b')"),
        (
            Lang::Python,
            "import sys; sys.modules['o'+'s'].replace('a', 'b')",
        ),
        (Lang::Python, "().__class__.__bases__[0].__subclasses__()"),
        (Lang::Python, "import shutil; shutil.rmtree('x')"),
        (Lang::Python, "import tempfile; tempfile.x"),
        (Lang::Python, "import io; io.open('a', 'w')"),
        (Lang::Python, "print('unterminated"),
        (Lang::Python, "import random; random._os.replace('a', 'b')"),
        (Lang::Js, "require('fs').rmSync('a.txt')"),
        (Lang::Js, "require('fs')['rm'+'Sync']('a.txt')"),
        (
            Lang::Js,
            "const fs = require('fs'); const k = 'rm' + 'Sync'; fs[k]('a')",
        ),
        (Lang::Js, "const fs = require('fs'); g(fs)"),
        (
            Lang::Js,
            "const {readFileSync: r, rmSync: x} = require('fs')",
        ),
        (Lang::Js, "require('child' + '_process')"),
        (
            Lang::Js,
            "[]['constr'+'uctor']['constr'+'uctor']('return process')()",
        ),
        (Lang::Js, "process.binding('fs')"),
        (Lang::Js, "process['mainModule']"),
        (
            Lang::Js,
            "/'/; require('chi'+'ld_process').execSync('x') //'",
        ),
        (Lang::Js, "import('fs').then(f => f.rmSync('a'))"),
        (Lang::Perl, "unlink 'a.txt'"),
        (Lang::Perl, "system('git reset --hard')"),
        (Lang::Perl, "`rm a`"),
        (Lang::Perl, "s/x/unlink('a')/e"),
        (Lang::Perl, "s/(.*)/$1/ee"),
        (Lang::Perl, "/(?{ print 1 })/"),
        (Lang::Perl, "open(F, '>a.txt')"),
        (Lang::Perl, "&{'sys'.'tem'}('rm a')"),
        (Lang::Perl, "CORE::GLOBAL::die()"),
        (Lang::Perl, "print <<EOF"),
        (Lang::Perl, "print qq{@{[ 1 ]}}"),
        (Lang::Ruby, "File.delete('a.txt')"),
        (Lang::Ruby, "system('rm a')"),
        (Lang::Ruby, "%x(rm a)"),
        (Lang::Ruby, "File.send(:unlink, 'a')"),
        (Lang::Ruby, "open('|rm a')"),
        (Lang::Ruby, "File.write('a.txt', '')"),
        (Lang::Ruby, "Object.const_get(:File)"),
        (Lang::Ruby, "puts \"#{`rm a`}\""),
        (Lang::Other, "echo 1;"),
        (Lang::Python, "execfile('x.py')"),
        (Lang::Python, "file('a.txt', 'w')"),
        (
            Lang::Python,
            "import sys; sys.path.insert(0, '/tmp/x'); import json",
        ),
        (
            Lang::Ruby,
            "public_method(('sys' + 'tem').to_sym).call('rm a')",
        ),
        (Lang::Perl, "use List::Util; print 1"),
    ] {
        assert!(!read_only(lang, code), "{lang:?}: {code}");
    }
}
