//! Support for the snapshot tests of messages: the test clock, runs of the binary and the hook
//! at that clock, and stable text (temporary folders as `[REPO]` / `[TMP]`, object ids as
//! `[COMMIT]`, a set-aside record's time masked).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Output;

use serde_json::Value;

use super::*;

/// The test clock: 2026-11-29T06:40:00Z.
pub const NOW: &str = "1795934400";

/// `text` with the repository's temporary folder written as `[REPO]` / `[TMP]`.
pub fn redact(repo: &TestRepo, text: &str) -> String {
    let base = repo.tmp.path().canonicalize().unwrap();
    text.replace(repo.root.to_str().unwrap(), "[REPO]")
        .replace(base.to_str().unwrap(), "[TMP]")
}

/// Every object id of the repository at `root` (commits, trees, blobs; reachable or not).
fn object_ids(root: &Path) -> BTreeSet<String> {
    let out = git_out(
        root,
        &[
            "cat-file",
            "--batch-all-objects",
            "--batch-check=%(objectname)",
        ],
    );
    out.lines().map(str::to_owned).collect()
}

/// `text` with every object id of the repository, whole or abbreviated to 7–12 digits (as
/// messages print them), written as `[COMMIT]`: commit dates, so ids, change from run to run.
pub fn redact_ids(root: &Path, text: &str) -> String {
    let ids = object_ids(root);
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let start_ok = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let run = bytes[i..]
            .iter()
            .take_while(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
            .count();
        let end_ok = bytes
            .get(i + run)
            .is_none_or(|b| !b.is_ascii_alphanumeric());
        if start_ok && end_ok && (7..=40).contains(&run) {
            let word = &text[i..i + run];
            if ids.iter().any(|id| id.starts_with(word)) {
                out.push_str("[COMMIT]");
                i += run;
                continue;
            }
        }
        let ch = text[i..].chars().next().unwrap();
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// [`redact`] and [`redact_ids`] together.
pub fn stable(repo: &TestRepo, text: &str) -> String {
    redact(repo, &redact_ids(&repo.root, text))
}

/// A hook call at the test clock.
pub fn at_now(cwd: &Path, event: &Value) -> HookRun {
    hook_raw(cwd, format!("{event}\n").as_bytes(), &[("DIBS_NOW", NOW)])
}

/// A hook call with `--host HOST` at the test clock.
pub fn at_now_as(cwd: &Path, host: &str, event: &Value) -> HookRun {
    hook_host(cwd, host, event, &[("DIBS_NOW", NOW)])
}

/// The command line at the test clock, as `session` (or a person called sam), with a fixed
/// author so commits it makes can be.
pub fn cli(dir: &Path, session: Option<&str>, args: &[&str]) -> Output {
    dibs_env(
        dir,
        session,
        args,
        &[
            ("DIBS_NOW", NOW),
            ("USER", "sam"),
            ("GIT_AUTHOR_NAME", "Test"),
            ("GIT_AUTHOR_EMAIL", "test@example.invalid"),
            ("GIT_COMMITTER_NAME", "Test"),
            ("GIT_COMMITTER_EMAIL", "test@example.invalid"),
        ],
    )
}

/// Run [`cli`] with `args` and keep them with what it did, for a transcript.
pub fn step<'a>(
    runs: &mut Vec<(&'a [&'a str], Output)>,
    dir: &Path,
    session: Option<&str>,
    args: &'a [&'a str],
) -> Output {
    let out = cli(dir, session, args);
    runs.push((args, out.clone()));
    out
}

/// Exit code, stdout and stderr of a run, as a snapshot shows them.
pub fn both(out: &Output) -> String {
    format!(
        "exit {}\n--- stdout\n{}--- stderr\n{}",
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Several command lines, each as `$ git dibs ARGS` and what it did, made stable.
pub fn transcript(repo: &TestRepo, runs: &[(&[&str], Output)]) -> String {
    let mut text = String::new();
    for (args, out) in runs {
        text.push_str(&format!("$ git dibs {}\n{}\n", args.join(" "), both(out)));
    }
    stable(repo, &text)
}

/// A hook's answer, pretty-printed (exit code, the JSON or `(silent)`, stderr).
pub fn answer(repo: &TestRepo, run: &HookRun) -> String {
    let body = if run.stdout.trim().is_empty() {
        "(silent)".to_owned()
    } else {
        serde_json::to_string_pretty(&run.json()).unwrap()
    };
    redact(repo, &format!("exit {}\n{body}\n{}", run.code, run.stderr))
}

/// A fixture of `host` with its example repository path replaced by `root`.
pub fn fixture(host: &str, name: &str, root: &Path) -> Value {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hooks");
    let text = std::fs::read_to_string(dir.join(host).join(name)).unwrap();
    serde_json::from_str(&text.replace("/home/dev/work/acme-api", root.to_str().unwrap())).unwrap()
}

/// A Codex `apply_patch` of `src/lib.rs` in `root` (the Bash fixture, retooled).
pub fn codex_patch(root: &Path) -> Value {
    let mut v = fixture("codex", "PreToolUse-Bash.json", root);
    v["tool_name"] = serde_json::json!("apply_patch");
    v["tool_input"] = serde_json::json!({"command":
        "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n-pub fn a() {}\n+pub fn b() {}\n*** End Patch\n"});
    v
}

/// `.corrupt-<secs>` and the RFC 3339 time next to it, from the real clock, masked.
pub fn mask_corrupt_stamp(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(".corrupt-") {
        out.push_str(&rest[..i + ".corrupt-".len()]);
        rest = &rest[i + ".corrupt-".len()..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        out.push_str("[SECS]");
        rest = &rest[digits..];
    }
    out.push_str(rest);
    // "set aside at 2026-...Z as" → "set aside at [TIME] as"
    let mut masked = String::new();
    let mut rest = out.as_str();
    while let Some(i) = rest.find("set aside at ") {
        masked.push_str(&rest[..i + "set aside at ".len()]);
        rest = &rest[i + "set aside at ".len()..];
        let end = rest.find(' ').unwrap_or(rest.len());
        masked.push_str("[TIME]");
        rest = &rest[end..];
    }
    masked.push_str(rest);
    masked
}

/// `text` with every `YYYY-MM-DDTHH:MM:SSZ` time written as `[TIME]`.
pub fn mask_times(text: &str) -> String {
    let shape = |w: &[u8]| {
        w.iter().enumerate().all(|(i, &b)| match i {
            4 | 7 => b == b'-',
            10 => b == b'T',
            13 | 16 => b == b':',
            19 => b == b'Z',
            _ => b.is_ascii_digit(),
        })
    };
    let mut out = String::new();
    let mut i = 0;
    while i < text.len() {
        if text.len() - i >= 20 && shape(&text.as_bytes()[i..i + 20]) {
            out.push_str("[TIME]");
            i += 20;
        } else {
            let c = text[i..].chars().next().expect("a char");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}
