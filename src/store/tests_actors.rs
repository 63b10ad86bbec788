//! Unit tests of actors: a sub-agent is a holder of its own beside its main thread, shares the
//! session's generation and agent process (and its fencing), and what it held becomes the main
//! thread's when it stops.

use super::tests::{key, store};
use super::*;
use crate::host::Host;
use crate::host::SubAgent;

fn process(pid: u32) -> crate::agent::AgentProcess {
    crate::agent::AgentProcess {
        pid,
        start: u64::from(pid) * 10,
        boot: "testboot".into(),
    }
}

fn sub(id: &str) -> SubAgent {
    SubAgent::from_fields(Some(id), Some("general-purpose")).unwrap()
}

fn actor(agent: &SubAgent) -> Actor<'_> {
    Actor {
        session: "s",
        agent: Some(agent),
    }
}

fn call(process: &crate::agent::AgentProcess, register: bool) -> Writer<'_> {
    Writer::Agent { process, register }
}

#[test]
fn threads_of_one_session_are_distinct_holders() {
    let (_dir, store) = store();
    let (a1, a2) = (sub("a1"), sub("a2"));
    let p = process(100);
    store
        .apply("s", Host::Claude, call(&p, true), 1, &[])
        .unwrap();
    let touch = [Change::Touch(vec![key("x.rs")])];
    store
        .apply(actor(&a1), Host::Claude, call(&p, false), 2, &touch)
        .unwrap();
    store
        .apply(actor(&a2), Host::Claude, call(&p, false), 3, &touch)
        .unwrap();
    let of = |except: Actor<'_>| -> Vec<Option<String>> {
        store
            .holders(&key("x.rs"), except, 4)
            .unwrap()
            .into_iter()
            .map(|h| h.session.sub_agent.map(|a| a.id))
            .collect()
    };
    assert_eq!(of(actor(&a1)), [Some("a2".to_owned())]);
    assert_eq!(of(Actor::main("s")).len(), 2);
    assert_eq!(of(Actor::main("other")).len(), 2);
    let rec = store.session(actor(&a1)).unwrap().unwrap();
    assert_eq!(rec.id, "s");
    assert_eq!(rec.agent.as_ref(), Some(&p), "the session's agent process");
    assert_eq!(store.sub_agents_of("s").unwrap().len(), 2);
    assert!(store.sub_agents_of("t").unwrap().is_empty());
}

#[test]
fn a_sub_agent_is_fenced_with_its_session() {
    let (_dir, store) = store();
    let a1 = sub("a1");
    let (p1, p2) = (process(100), process(200));
    store
        .apply("s", Host::Claude, call(&p1, true), 1, &[])
        .unwrap();
    store
        .apply(actor(&a1), Host::Claude, call(&p1, false), 2, &[])
        .unwrap();
    // The session is resumed by another process: the old one's sub-agent may not write.
    store
        .apply("s", Host::Claude, call(&p2, true), 3, &[])
        .unwrap();
    let err = store
        .apply(
            actor(&a1),
            Host::Claude,
            call(&p1, false),
            4,
            &[Change::Touch(vec![key("y.rs")])],
        )
        .unwrap_err();
    assert!(matches!(err, StoreError::Fenced { .. }), "{err}");
    let ok = store
        .apply(actor(&a1), Host::Claude, call(&p2, false), 5, &[])
        .unwrap();
    assert_eq!(ok.generation, 1);
}

#[test]
fn a_stopped_sub_agents_holdings_are_its_sessions() {
    let (_dir, store) = store();
    let a1 = sub("a1");
    let p = process(100);
    let w = call(&p, false);
    store
        .apply("s", Host::Claude, w, 1, &[Change::Touch(vec![key("m.rs")])])
        .unwrap();
    store
        .apply(
            actor(&a1),
            Host::Claude,
            w,
            2,
            &[
                Change::Touch(vec![key("m.rs"), key("x.rs")]),
                Change::Seen(key("x.rs"), "d1".into()),
            ],
        )
        .unwrap();
    store.fold_sub_agent("s", &a1, Host::Claude, w, 3).unwrap();
    let main = store.session("s").unwrap().unwrap();
    let files: Vec<&str> = main.files.iter().map(|f| f.key.path.as_str()).collect();
    assert_eq!(files, ["m.rs", "x.rs"]);
    assert_eq!(main.files[0].last, 2, "the later touch wins");
    assert_eq!(main.seen.len(), 1);
    let gone = store.session(actor(&a1)).unwrap().unwrap();
    assert!(gone.ended.is_some() && gone.files.is_empty());
    assert!(
        store
            .holders(&key("x.rs"), Actor::main("other"), 4)
            .unwrap()
            .iter()
            .all(|h| h.session.sub_agent.is_none())
    );
    // A stop the store never saw a start of creates nothing.
    let never = sub("never");
    store
        .fold_sub_agent("s", &never, Host::Claude, w, 5)
        .unwrap();
    assert!(store.session(actor(&never)).unwrap().is_none());
}
