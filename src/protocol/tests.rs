//! Unit tests of host detection and parsing: every fixture in `tests/fixtures/hooks/` (read at
//! test time when present, else the copy embedded here) and the variations around them.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::*;

/// The fixture folder: `tests/fixtures/hooks` (each host's sample inputs, kept in the repo).
fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hooks")
}

fn fixture(host: &str, name: &str) -> Option<Vec<u8>> {
    std::fs::read(fixture_dir().join(host).join(name)).ok()
}

pub(super) fn parse(v: &Value) -> Event {
    parse_event(v.to_string().as_bytes(), None).expect("parses")
}

fn ev(host: Host, session: &str, cwd: &str, name: &str, kind: EventKind) -> Event {
    Event {
        host,
        session_id: session.into(),
        cwd: cwd.into(),
        event_name: name.into(),
        actor: None,
        call: None,
        kind,
    }
}

const CURSOR_ID: &str = "c2e7a9f0-4d13-4b6a-8f25-7e1d3c9b0a64";
const REPO: &str = "/home/dev/work/acme-api";

/// Every fixture of the three hosts parses to the expected event; a fixture folder that lacks
/// one of them fails the test (the list below is the whole folder).
#[test]
fn fixtures_parse_to_expected_events() {
    let cases: Vec<(&str, &str, Event)> = vec![
        (
            "cursor",
            "afterFileEdit-Write.json",
            ev(
                Host::Cursor,
                CURSOR_ID,
                REPO,
                "afterFileEdit",
                EventKind::AfterEdit {
                    tool: "Write".into(),
                    paths: vec![format!("{REPO}/src/parser.rs").into()],
                },
            ),
        ),
        (
            "cursor",
            "beforeShellExecution-Shell.json",
            ev(
                Host::Cursor,
                CURSOR_ID,
                REPO,
                "beforeShellExecution",
                EventKind::BeforeShell {
                    command: "git branch -D feature/auth".into(),
                },
            ),
        ),
        (
            "cursor",
            "preToolUse-Write.json",
            Event {
                call: Some("call_7fK2mQ9xL1".into()),
                ..ev(
                    Host::Cursor,
                    CURSOR_ID,
                    REPO,
                    "preToolUse",
                    EventKind::BeforeEdit {
                        tool: "Write".into(),
                        paths: vec![format!("{REPO}/src/lexer.rs").into()],
                        change: EditChange::Whole("// lexer\n".into()),
                    },
                )
            },
        ),
        (
            "gemini-cli",
            "BeforeTool-replace.json",
            ev(
                Host::Gemini,
                "7d2b9e41-6c0a-4f3e-a8b5-1e9c4d7f2a06",
                REPO,
                "BeforeTool",
                EventKind::BeforeEdit {
                    tool: "replace".into(),
                    paths: vec![format!("{REPO}/src/parser.rs").into()],
                    change: EditChange::Replace(vec![(
                        "fn parse(input: &str)".into(),
                        "fn parse(input: &str, opts: &ParseOptions)".into(),
                        false,
                    )]),
                },
            ),
        ),
        (
            "codex",
            "PreToolUse-Bash.json",
            Event {
                call: Some("call_Jx81sKq2VdE4".into()),
                ..ev(
                    Host::Codex,
                    "019a7c3e-5b21-7d40-9e8f-3c6a1b2d4e5f",
                    REPO,
                    "PreToolUse",
                    EventKind::BeforeShell {
                        command: "git worktree remove ../acme-api-wt-feature-auth".into(),
                    },
                )
            },
        ),
    ];
    let dir = fixture_dir();
    for host in ["cursor", "gemini-cli", "codex"] {
        let mut names: Vec<String> = std::fs::read_dir(dir.join(host))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".json"))
            .collect();
        names.sort();
        let mut covered: Vec<String> = cases
            .iter()
            .filter(|(h, _, _)| *h == host)
            .map(|(_, n, _)| n.to_string())
            .collect();
        covered.sort();
        assert_eq!(names, covered, "fixtures of {host} without a test case");
    }
    for (host, name, want) in cases {
        let bytes = fixture(host, name).unwrap();
        let got = parse_event(&bytes, None).unwrap_or_else(|e| panic!("{host}/{name}: {e}"));
        assert_eq!(got, want, "{host}/{name}");
    }
}

/// The Claude Code fixtures are still read as Claude Code's (detection does not steal them).
#[test]
fn claude_fixtures_stay_claude() {
    let dir = fixture_dir().join("claude-code");
    let entries = std::fs::read_dir(&dir).expect("the Claude Code fixtures are in the repo");
    for e in entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
    {
        let bytes = std::fs::read(e.path()).unwrap();
        let got = parse_event(&bytes, None).unwrap();
        assert_eq!(got.host, Host::Claude, "{}", e.path().display());
    }
}

#[test]
fn detection_follows_the_markers() {
    let base = json!({"session_id": "s", "cwd": "/r", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let with = |k: &str, v: Value| {
        let mut x = base.clone();
        x[k] = v;
        x
    };
    assert_eq!(parse(&base).host, Host::Claude);
    assert_eq!(parse(&with("turn_id", json!("3"))).host, Host::Codex);
    assert_eq!(
        parse(&with("timestamp", json!("2026-11-29T06:31:12Z"))).host,
        Host::Gemini
    );
    // A numeric timestamp is not Gemini's.
    assert_eq!(parse(&with("timestamp", json!(17))).host, Host::Claude);
    // Cursor's markers win over everything, even a Claude-shaped event.
    let cursor = with("conversation_id", json!("conv"));
    assert_eq!(parse(&cursor).host, Host::Cursor);
    assert_eq!(parse(&cursor).session_id, "conv");
    let cursor = with("cursor_version", json!("2.3.8"));
    assert_eq!(parse(&cursor).host, Host::Cursor);
    // Codex's SessionStart has no turn_id but both model and permission_mode.
    let start = json!({"session_id": "s", "cwd": "/r", "hook_event_name": "SessionStart",
        "source": "startup", "model": "gpt-5.5", "permission_mode": "default"});
    assert_eq!(parse(&start).host, Host::Codex);
    let mut claude_start = start.clone();
    claude_start
        .as_object_mut()
        .unwrap()
        .remove("permission_mode");
    assert_eq!(parse(&claude_start).host, Host::Claude);
    // Gemini-only event names are Gemini's even without a timestamp.
    let agent = json!({"session_id": "s", "cwd": "/r", "hook_event_name": "BeforeAgent",
        "prompt": "hi"});
    assert_eq!(parse(&agent).host, Host::Gemini);
}

#[test]
fn explicit_host_wins() {
    let v = json!({"session_id": "s", "cwd": "/r", "hook_event_name": "PreToolUse",
        "turn_id": "1", "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let e = parse_event(v.to_string().as_bytes(), Some(Host::Claude)).unwrap();
    assert_eq!(e.host, Host::Claude);
    let e = parse_event(v.to_string().as_bytes(), Some(Host::Codex)).unwrap();
    assert_eq!(e.host, Host::Codex);
}

#[test]
fn input_is_read_to_its_end_and_refused_past_the_cap() {
    use std::io::Read;
    let small = read_input(&b"{\"a\":1}"[..]).unwrap();
    assert_eq!(small, b"{\"a\":1}");
    // Past the cap: refused, and the rest read all the same (the host never sees a broken pipe).
    let mut over = std::io::repeat(b' ').take(MAX_INPUT as u64 + 5000);
    assert!(matches!(
        read_input(&mut over),
        Err(ProtocolError::TooLarge)
    ));
    assert_eq!(over.limit(), 0);
    let exactly = read_input(std::io::repeat(b' ').take(MAX_INPUT as u64)).unwrap();
    assert_eq!(exactly.len(), MAX_INPUT);
}
