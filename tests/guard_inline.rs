//! Inline code (`python3 -c`, `node -e`) and code on standard input are judged as a script
//! file is (red-team 3/09): by what they can destroy, not by their imports or writes. Writing a
//! file beside a live peer, or with only the session's own work at risk, is silent; deleting,
//! running a built command or reaching powers by name is still put to the person; a literal
//! command it runs is judged as that command.

mod common;
mod guard_support;

use guard_support::*;

#[test]
fn inline_code_that_only_writes_is_silent_beside_work_at_risk() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    for cmd in [
        r#"python3 -c "open('out.txt','w').write('x')""#,
        r#"python3 -c "import json; json.dump({}, open('out.json','w'))""#,
        r#"node -e "require('fs').writeFileSync('out.txt','x')""#,
        r#"echo "print(open('README.md').read())" | python3"#,
        r#"python3 -c "import subprocess; print(subprocess.check_output(['git','log','-1']))""#,
    ] {
        allowed(r, cmd);
    }
}

#[test]
fn inline_code_that_destroys_or_hides_what_it_runs_is_still_asked() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    for cmd in [
        r#"python3 -c "import shutil; shutil.rmtree('src')""#,
        r#"python3 -c "import os; os.remove('notes.txt')""#,
        r#"python3 -c "import os; getattr(os, 'rem'+'ove')('notes.txt')""#,
        r#"node -e "require('fs').rmSync('src', {recursive: true})""#,
        r#"python3 -c "import subprocess, sys; subprocess.run(sys.argv[1], shell=True)" x"#,
        r#"echo "import os; os.unlink('notes.txt')" | python3"#,
        // Writing over a file that exists (the peer's) is put to the person as before.
        r#"python3 -c "open('notes.txt', 'w')""#,
        r#"python3 -c "from pathlib import Path; Path('src/lib.rs').write_text('')""#,
        r#"node -e "require('fs').writeFileSync('notes.txt', '')""#,
    ] {
        let reason = stopped(r, cmd);
        assert!(reason.contains("[guard:"), "{cmd}: {reason}");
    }
    // A literal command it runs is judged as itself: a stash over the peer's files.
    let reason = stopped(
        r,
        r#"python3 -c "import subprocess; subprocess.run(['git', 'stash', '-u'])""#,
    );
    assert!(
        reason.contains("[guard:peer-files]") || reason.contains("stash"),
        "{reason}"
    );
}

#[test]
fn a_build_step_deleting_its_own_literal_build_folder_is_silent_beside_a_peer() {
    let f = fixture();
    let r = &f.repo.root;
    two_sessions(&f);
    std::fs::create_dir_all(r.join("build")).unwrap();
    std::fs::create_dir_all(r.join("scripts")).unwrap();
    std::fs::write(
        r.join("scripts/build.js"),
        "const fs = require('fs');\nfs.rmSync('dist', {recursive: true, force: true});\nfs.mkdirSync('dist');\n",
    )
    .unwrap();
    for cmd in [
        r#"python3 -c "import shutil; shutil.rmtree('build', ignore_errors=True)""#,
        r#"node -e "require('fs').rmSync('dist', {recursive: true, force: true})""#,
        "node scripts/build.js",
    ] {
        allowed(r, cmd);
    }
    // The same removal of the peer's folder is refused as `rm -rf src` is.
    let reason = denied(r, r#"python3 -c "import shutil; shutil.rmtree('src')""#);
    assert!(reason.contains("[guard:peer-files]"), "{reason}");
}
