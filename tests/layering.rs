//! The module boundaries DESIGN draws, checked on the source: the store knows no wire format
//! (nothing under `src/store/` names `crate::protocol`), and `serde_json::Value` stays in
//! `src/protocol/`; libgit2 is used only in `src/git/`.

use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The files under `src/` (outside `except`) whose text contains any of `needles`.
fn naming(under: &Path, except: Option<&Path>, needles: &[&str]) -> Vec<String> {
    let files = rust_files(under);
    assert!(files.len() > 3, "no sources under {}", under.display());
    files
        .into_iter()
        .filter(|f| except.is_none_or(|e| !f.starts_with(e)))
        .filter(|f| {
            let text = fs::read_to_string(f).unwrap();
            needles.iter().any(|n| text.contains(n))
        })
        .map(|f| f.display().to_string())
        .collect()
}

#[test]
fn the_store_does_not_know_the_wire_formats() {
    let found = naming(
        &src().join("store"),
        None,
        &["crate::protocol", "protocol::", "serde_json::Value"],
    );
    assert!(
        found.is_empty(),
        "the store imports the protocol: {found:?}"
    );
}

#[test]
fn json_values_stay_in_the_protocol() {
    let found = naming(
        &src(),
        Some(&src().join("protocol")),
        &["serde_json::Value", "serde_json::Map", "json!("],
    );
    assert!(
        found.is_empty(),
        "serde_json::Value outside src/protocol: {found:?}"
    );
}

#[test]
fn libgit2_is_used_only_in_the_git_module() {
    let found = naming(&src(), Some(&src().join("git")), &["git2::"]);
    assert!(
        found.is_empty(),
        "git access outside src/git/ (DESIGN: all git access lives there): {found:?}"
    );
}
