//! Sync copes with a large remote: the refs are listed first and only those under the caps are
//! fetched (a machine's 64 session refs, 32 other machines, 1,024 claim refs; this clone's own
//! always), in pages; what was skipped is said by `sync` and `doctor`. The remote here is a real
//! bare repository holding 5,000 refs, each on a commit of its own, made with `git fast-import`.

mod common;
mod sync_support;

use std::io::Write;
use std::process::Stdio;

use common::*;
use sync_support::*;

/// Write one parentless commit of its own for each of `refs` into the bare remote.
fn flood(m: &Machines, refs: &[String]) {
    let mut script = String::new();
    for (i, name) in refs.iter().enumerate() {
        let msg = format!("flood {i}\n");
        script.push_str(&format!(
            "commit {name}\ncommitter x <x@x> 1700000000 +0000\ndata {}\n{msg}\n",
            msg.len()
        ));
    }
    let mut child = git_command(&m.base)
        .args([
            "--git-dir",
            m.remote.to_str().unwrap(),
            "fast-import",
            "--quiet",
        ])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
}

#[test]
fn a_remote_with_thousands_of_refs_is_read_only_as_far_as_the_caps_and_what_is_skipped_is_said() {
    let m = machines();
    m.config(&m.a, "dibs.sync", "true");
    let mut refs: Vec<String> = (0..3_000)
        .map(|i| format!("refs/dibs/sessions/flood/s{i:04}"))
        .collect();
    refs.extend((0..2_000).map(|i| format!("refs/dibs/claims/{i:040x}")));
    flood(&m, &refs);
    // A session of alpha's own, published and read back whatever the flood.
    edit_alone(&m.a, S1, "src/lib.rs", None);

    let started = std::time::Instant::now();
    let out = run(&m.a, None, &["sync"], &[]);
    let took = started.elapsed();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("machine flood: 2936 of its 3000 session refs (a machine's cap is 64)"),
        "{said}"
    );
    assert!(
        said.contains("976 of 2000 claim refs (at most 1024 are read)"),
        "{said}"
    );
    assert!(said.contains("published 1 session"), "{said}");
    // What was skipped was never fetched; what is under the caps was.
    let oid = |name: &str| {
        m.remote_refs()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, o)| o)
            .unwrap()
    };
    let here = |oid: &str| {
        git_command(&m.a)
            .args(["cat-file", "-e", oid])
            .status()
            .unwrap()
            .success()
    };
    assert!(here(&oid("refs/dibs/sessions/flood/s0000")));
    assert!(!here(&oid("refs/dibs/sessions/flood/s2999")));
    assert!(!here(&oid(&format!("refs/dibs/claims/{:040x}", 1_999))));
    eprintln!("sync of a remote with 5,000 refs took {took:?}");

    let doctor = text(&dibs(&m.a, &["doctor"]));
    assert!(
        doctor.contains("skipped, not fetched, over the caps") && doctor.contains("machine flood"),
        "{doctor}"
    );
    let json = sync_json(&m.a);
    assert_eq!(json["skipped"].as_array().map(Vec::len), Some(2), "{json}");
}
