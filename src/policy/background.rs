//! Command lines that start a job which goes on after the line returns: a command put in the
//! background with `&`, or a program that detaches one (`nohup`, `setsid`, `disown`,
//! `daemonize`, `start-stop-daemon`, `screen -d`, `tmux new -d`). Pure: the text alone. What a
//! script does is not read here; the processes a command left running are found by state
//! (`platform::started_in`).

/// Programs whose use means a job outlives the command line.
const DETACHERS: &[&str] = &[
    "nohup",
    "setsid",
    "disown",
    "daemonize",
    "start-stop-daemon",
];
/// Programs that run the next word as the command (their options and numbers skipped).
const WRAPPERS: &[&str] = &[
    "sudo", "env", "time", "nice", "command", "exec", "timeout", "ionice",
];

/// Wrapper options followed by a value.
const VALUED: &[&str] = &["-u", "-g", "-n", "-s", "-k", "-c", "-C", "-p"];

/// Whether `command` puts something in the background or detaches it.
pub(crate) fn starts_job(command: &str) -> bool {
    let (commands, background) = split(command);
    background || commands.iter().any(|words| detaches(words))
}

/// Whether one simple command's words (quotes removed) run a detacher.
fn detaches(words: &[String]) -> bool {
    let program = |w: &str| w.rsplit('/').next().unwrap_or(w).to_owned();
    let mut i = 0;
    while let Some(w) = words.get(i) {
        let wrapper = WRAPPERS.contains(&program(w).as_str());
        if !(wrapper || w.starts_with('-') || w.contains('=') || w.parse::<f64>().is_ok()) {
            break;
        }
        // A wrapper's option that takes a value (`sudo -u web`, `nice -n 5`, `timeout -s 9`).
        i += if VALUED.contains(&w.as_str()) { 2 } else { 1 };
    }
    let Some(first) = words.get(i) else {
        return false;
    };
    let name = program(first);
    let args: Vec<&String> = words[i + 1..].iter().collect();
    DETACHERS.contains(&name.as_str())
        || (name == "screen"
            && args
                .iter()
                .any(|w| w.starts_with("-d") || w.starts_with("-Dm")))
        || (name == "tmux" && args.iter().any(|w| *w == "-d"))
}

/// The simple commands of `command` as words (quotes removed, split at `;`, `|`, `&`,
/// parentheses and newlines; comments dropped), and whether a `&` puts one in the background.
fn split(command: &str) -> (Vec<Vec<String>>, bool) {
    let mut commands: Vec<Vec<String>> = vec![Vec::new()];
    let mut word = String::new();
    let mut quoted = false;
    let mut quote: Option<char> = None;
    let mut background = false;
    let chars: Vec<char> = command.chars().collect();
    let end_word = |commands: &mut Vec<Vec<String>>, word: &mut String, quoted: &mut bool| {
        if !word.is_empty() || *quoted {
            commands
                .last_mut()
                .expect("one command")
                .push(std::mem::take(word));
        }
        *quoted = false;
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('"') | None, '\\') => {
                i += 1;
                if let Some(&n) = chars.get(i) {
                    word.push(n);
                }
            }
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                quoted = true;
            }
            (None, '#') if word.is_empty() && !quoted => {
                while i + 1 < chars.len() && chars[i + 1] != '\n' {
                    i += 1;
                }
            }
            (None, c) if c.is_whitespace() && c != '\n' => {
                end_word(&mut commands, &mut word, &mut quoted);
            }
            (None, c) if "&;|()\n".contains(c) => {
                let before = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
                let after = chars.get(i + 1).copied();
                if c == '&'
                    && !matches!(before, Some('&' | '>' | '<' | '|'))
                    && !matches!(after, Some('&' | '>'))
                {
                    background = true;
                }
                end_word(&mut commands, &mut word, &mut quoted);
                if commands.last().is_some_and(|c| !c.is_empty()) {
                    commands.push(Vec::new());
                }
            }
            (None, c) => word.push(c),
        }
        i += 1;
    }
    end_word(&mut commands, &mut word, &mut quoted);
    (commands, background)
}

#[cfg(test)]
mod tests {
    use super::starts_job;

    #[test]
    fn background_operators_and_detachers_are_told_from_lookalikes() {
        for yes in [
            "./gen.sh &",
            "npm run dev & sleep 1",
            "(cd web && vite) &",
            "python3 -m http.server 8000 &>/dev/null &",
            "nohup ./server",
            "/usr/bin/nohup make watch > log",
            "setsid -f ./watch.sh",
            "./x.sh & disown",
            "screen -dmS build make",
            "tmux new -d 'cargo watch'",
            "sleep 5&",
            "sudo -u web nohup ./serve",
            "FOO=1 nice -n 5 setsid ./w",
            "a; nohup b",
        ] {
            assert!(starts_job(yes), "{yes}");
        }
        for no in [
            "make && make test",
            "cargo test 2>&1 | tail",
            "ls &>/dev/null",
            "echo a >&2",
            "cat <&3",
            "make |& tee log",
            "echo 'a & b'",
            "echo \"x & y\"",
            "echo a\\&b",
            "grep nohup notes.txt # a & b",
            "echo disown setsid",
            "git commit -m 'nohup &'",
            "git log --oneline",
        ] {
            assert!(!starts_job(no), "{no}");
        }
    }
}
