//! Unit tests of rendering: every (host, response) pair on the events that matter, asserting
//! the exact JSON each host is sent, and that Codex is never sent a field it would reject.

use serde_json::{Value, json};

use super::*;

fn event(host: Host, name: &str) -> Event {
    Event {
        host,
        session_id: "s".into(),
        cwd: "/r".into(),
        event_name: name.into(),
        actor: None,
        call: None,
        kind: EventKind::Ignored,
    }
}

fn warn() -> Response {
    Response::Warn {
        person: "P".into(),
        model: "M".into(),
    }
}

fn deny(person: Option<&str>) -> Response {
    Response::Deny {
        reason: "R".into(),
        person: person.map(str::to_owned),
    }
}

fn ask() -> Response {
    Response::Ask { reason: "Q".into() }
}

/// The JSON printed (exit 0 required).
fn json_of(host: Host, name: &str, r: &Response) -> Value {
    let out = render(&event(host, name), r);
    assert_eq!(out.code, 0, "{host:?} {name} {r:?}: {out:?}");
    assert_eq!(out.stderr, None);
    serde_json::from_str(out.stdout.as_deref().expect("stdout")).unwrap()
}

/// Exit 2, nothing on stdout, `text` on stderr.
fn blocks_with(host: Host, name: &str, r: &Response, text: &str) {
    let out = render(&event(host, name), r);
    assert_eq!(
        out,
        Output {
            stdout: None,
            stderr: Some(text.into()),
            code: 2
        },
        "{host:?} {name}"
    );
}

/// Exit 0, nothing on stdout.
fn quiet(host: Host, name: &str, r: &Response) -> Output {
    let out = render(&event(host, name), r);
    assert_eq!(
        (out.code, out.stdout.as_deref()),
        (0, None),
        "{host:?} {name} {r:?}"
    );
    out
}

fn asked(q: &str) -> String {
    format!("{q}{CANNOT_ASK}")
}

/// The person's copy of a question turned into a refusal: it says how to go ahead deliberately.
fn asked_person(q: &str) -> String {
    format!("{q}{CANNOT_ASK}{CANNOT_ASK_PERSON}")
}

#[test]
fn silent_prints_nothing_for_every_host() {
    for (host, name) in [
        (Host::Claude, "PreToolUse"),
        (Host::Cursor, "preToolUse"),
        (Host::Gemini, "BeforeTool"),
        (Host::Codex, "PreToolUse"),
    ] {
        assert_eq!(
            render(&event(host, name), &Response::Silent),
            Output::default()
        );
    }
}

#[test]
fn cursor_rendering() {
    let h = Host::Cursor;
    for name in ["preToolUse", "beforeShellExecution"] {
        assert_eq!(
            json_of(h, name, &warn()),
            json!({"user_message": "P", "agent_message": "M"})
        );
        assert_eq!(
            json_of(h, name, &deny(Some("p"))),
            json!({"permission": "deny", "user_message": "p", "agent_message": "R"})
        );
        assert_eq!(
            json_of(h, name, &deny(None)),
            json!({"permission": "deny", "user_message": "R", "agent_message": "R"})
        );
    }
    assert_eq!(
        json_of(h, "beforeShellExecution", &ask()),
        json!({"permission": "ask", "user_message": "Q", "agent_message": "Q"})
    );
    // preToolUse accepts `ask` without enforcing it: a refusal that says why.
    assert_eq!(
        json_of(h, "preToolUse", &ask()),
        json!({"permission": "deny", "user_message": asked_person("Q"), "agent_message": asked("Q")})
    );
    assert_eq!(
        json_of(h, "postToolUse", &warn()),
        json!({"additional_context": "M"})
    );
    assert_eq!(
        json_of(h, "sessionStart", &warn()),
        json!({"additional_context": "M"})
    );
    assert_eq!(
        json_of(h, "beforeSubmitPrompt", &warn()),
        json!({"continue": true, "user_message": "P"})
    );
    assert_eq!(
        json_of(h, "beforeSubmitPrompt", &deny(None)),
        json!({"continue": false, "user_message": "R"})
    );
    // afterFileEdit takes no answer: the warning goes to stderr (Cursor's log) only.
    let out = quiet(h, "afterFileEdit", &warn());
    assert_eq!(out.stderr.as_deref(), Some("P"));
    blocks_with(h, "afterFileEdit", &deny(None), "R");
    // Claude's names on imported hooks are answered in Cursor's terms.
    assert_eq!(
        json_of(h, "PreToolUse", &deny(None)),
        json!({"permission": "deny", "user_message": "R", "agent_message": "R"})
    );
}

#[test]
fn gemini_rendering() {
    let h = Host::Gemini;
    // BeforeTool has no model context: the person is told; the model hears it at AfterTool.
    assert_eq!(
        json_of(h, "BeforeTool", &warn()),
        json!({"systemMessage": "P"})
    );
    assert_eq!(
        json_of(h, "AfterTool", &warn()),
        json!({"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": "M"}})
    );
    for name in ["BeforeAgent", "SessionStart"] {
        assert_eq!(
            json_of(h, name, &warn()),
            json!({"systemMessage": "P",
                   "hookSpecificOutput": {"hookEventName": name, "additionalContext": "M"}})
        );
    }
    assert_eq!(
        json_of(h, "SessionEnd", &warn()),
        json!({"systemMessage": "P"})
    );
    assert_eq!(
        json_of(h, "BeforeTool", &deny(Some("p"))),
        json!({"decision": "deny", "reason": "R", "systemMessage": "p"})
    );
    assert_eq!(
        json_of(h, "BeforeTool", &deny(None)),
        json!({"decision": "deny", "reason": "R"})
    );
    assert_eq!(
        json_of(h, "BeforeAgent", &deny(None)),
        json!({"decision": "deny", "reason": "R"})
    );
    // Gemini's own `ask` hangs a headless run: a refusal that says why.
    for name in ["BeforeTool", "AfterTool", "BeforeAgent"] {
        assert_eq!(
            json_of(h, name, &ask()),
            json!({"decision": "deny", "reason": asked("Q"), "systemMessage": asked_person("Q")})
        );
    }
    blocks_with(h, "SessionStart", &deny(None), "R");
}

/// Top-level fields Codex accepts on each event (from its output schemas).
fn codex_allowed(name: &str) -> &'static [&'static str] {
    match name {
        "PreToolUse" | "SessionStart" => &[
            "continue",
            "stopReason",
            "suppressOutput",
            "systemMessage",
            "hookSpecificOutput",
        ],
        "PostToolUse" | "UserPromptSubmit" => &[
            "continue",
            "stopReason",
            "suppressOutput",
            "systemMessage",
            "hookSpecificOutput",
            "decision",
            "reason",
        ],
        _ => &[],
    }
}

#[test]
fn codex_rendering() {
    let h = Host::Codex;
    for name in [
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "SessionStart",
    ] {
        assert_eq!(
            json_of(h, name, &warn()),
            json!({"systemMessage": "P",
                   "hookSpecificOutput": {"hookEventName": name, "additionalContext": "M"}})
        );
    }
    assert_eq!(
        json_of(h, "PreToolUse", &deny(Some("p"))),
        json!({"systemMessage": "p", "hookSpecificOutput": {"hookEventName": "PreToolUse",
               "permissionDecision": "deny", "permissionDecisionReason": "R"}})
    );
    // No `ask` in Codex: a refusal saying why.
    assert_eq!(
        json_of(h, "PreToolUse", &ask()),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
               "permissionDecision": "deny", "permissionDecisionReason": asked("Q")},
               "systemMessage": asked_person("Q")})
    );
    // A deny always carries a non-empty reason.
    let empty = Response::Deny {
        reason: " ".into(),
        person: None,
    };
    let v = json_of(h, "PreToolUse", &empty);
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(!reason.trim().is_empty());
    assert_eq!(
        json_of(h, "PostToolUse", &deny(None)),
        json!({"decision": "block", "reason": "R"})
    );
    assert_eq!(
        json_of(h, "UserPromptSubmit", &deny(None)),
        json!({"decision": "block", "reason": "R"})
    );
    blocks_with(h, "SessionStart", &deny(None), "R");
    blocks_with(h, "Stop", &deny(None), "R");
    let out = quiet(h, "Stop", &warn());
    assert_eq!(out.stderr.as_deref(), Some("P"));
}

#[test]
fn codex_is_never_sent_a_field_it_rejects() {
    let responses = [warn(), deny(Some("p")), deny(None), ask(), Response::Silent];
    for name in [
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "SessionStart",
        "Stop",
    ] {
        for r in &responses {
            let out = render(&event(Host::Codex, name), r);
            let Some(text) = out.stdout else { continue };
            let v: Value = serde_json::from_str(&text).unwrap();
            for key in v.as_object().unwrap().keys() {
                assert!(
                    codex_allowed(name).contains(&key.as_str()),
                    "{name}: {key} in {v}"
                );
            }
            if let Some(specific) = v.get("hookSpecificOutput") {
                assert_eq!(specific["hookEventName"], name);
                let decision = specific.get("permissionDecision").and_then(Value::as_str);
                assert!(matches!(decision, None | Some("deny")), "{v}");
                for key in specific.as_object().unwrap().keys() {
                    assert!(
                        [
                            "hookEventName",
                            "additionalContext",
                            "permissionDecision",
                            "permissionDecisionReason"
                        ]
                        .contains(&key.as_str()),
                        "{name}: hookSpecificOutput.{key}"
                    );
                }
            }
        }
    }
}

#[test]
fn claude_rendering_is_unchanged() {
    let h = Host::Claude;
    assert_eq!(
        json_of(h, "PreToolUse", &warn()),
        json!({"systemMessage": "P",
               "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "M"}})
    );
    assert_eq!(
        json_of(h, "PreToolUse", &ask()),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
               "permissionDecision": "ask", "permissionDecisionReason": "Q"}})
    );
    blocks_with(h, "SessionStart", &deny(None), "R");
}
