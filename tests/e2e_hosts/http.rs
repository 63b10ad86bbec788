//! A loopback HTTP/1.1 server for stand-in model APIs: one request per connection, answered by
//! a handler and closed; every request is kept so a test can read what the host sent.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::Value;

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST`, ...
    pub method: String,
    /// Path with query.
    pub path: String,
    /// The JSON body (Null when there was none or it did not parse).
    pub body: Value,
}

/// An answer: status, content type and the whole body.
#[derive(Debug, Clone)]
pub struct Reply {
    /// HTTP status code.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: String,
}

impl Reply {
    /// A 200 JSON answer.
    pub fn json(value: &Value) -> Reply {
        Reply {
            status: 200,
            content_type: "application/json",
            body: value.to_string(),
        }
    }

    /// A 200 server-sent-events answer made of `events` (already formatted).
    pub fn sse(events: String) -> Reply {
        Reply {
            status: 200,
            content_type: "text/event-stream",
            body: events,
        }
    }
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// The running server; it serves until the test process ends.
#[derive(Clone)]
pub struct Server {
    port: u16,
    log: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    /// Bind 127.0.0.1 on a free port and answer every request with `handler`.
    pub fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0")
            .unwrap_or_else(|e| panic!("stand-in API: cannot bind a loopback port: {e}"));
        let port = listener.local_addr().unwrap().port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let kept = Arc::clone(&log);
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (log, handler) = (Arc::clone(&kept), Arc::clone(&handler));
                thread::spawn(move || {
                    let _ = serve(stream, &log, &*handler);
                });
            }
        });
        Server { port, log }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }

    /// One line per request, for failure reports.
    pub fn summary(&self) -> String {
        self.requests()
            .iter()
            .map(|r| {
                format!(
                    "  {} {} ({} bytes)\n",
                    r.method,
                    r.path,
                    r.body.to_string().len()
                )
            })
            .collect()
    }
}

fn serve(stream: TcpStream, log: &Mutex<Vec<Request>>, handler: &Handler) -> std::io::Result<()> {
    let (method, path, body) = read_request(&stream)?;
    let request = Request { method, path, body };
    log.lock().unwrap().push(request.clone());
    let reply = handler(&request);
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
        reply.status,
        if reply.status == 200 { "OK" } else { "Error" },
        reply.content_type,
        reply.body.len(),
        reply.body
    )?;
    out.flush()
}

/// Read one request from `stream`: its method, its path with query and its JSON body (Null when
/// there was none or it did not parse). The Claude stand-in (`tests/e2e/api.rs`) reads with it too.
pub fn read_request(stream: &TcpStream) -> std::io::Result<(String, String, Value)> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let path = parts.next().unwrap_or("").to_owned();
    let (mut length, mut chunked) = (0usize, false);
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        let (name, value) = header.split_once(':').unwrap_or((&header, ""));
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().unwrap_or(0),
            "transfer-encoding" => chunked = value.trim().eq_ignore_ascii_case("chunked"),
            _ => {}
        }
    }
    let body = if chunked {
        read_chunked(&mut reader)?
    } else {
        let mut buf = vec![0; length];
        reader.read_exact(&mut buf)?;
        buf
    };
    Ok((
        method,
        path,
        serde_json::from_slice(&body).unwrap_or(Value::Null),
    ))
}

fn read_chunked(reader: &mut impl BufRead) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let mut size = String::new();
        reader.read_line(&mut size)?;
        let size = size.trim().split(';').next().unwrap_or("0");
        let n = usize::from_str_radix(size, 16).unwrap_or(0);
        if n == 0 {
            let mut rest = String::new();
            let _ = reader.read_line(&mut rest);
            return Ok(body);
        }
        let mut chunk = vec![0; n + 2];
        reader.read_exact(&mut chunk)?;
        body.extend_from_slice(&chunk[..n]);
    }
}
