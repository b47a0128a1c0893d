//! `supernova gui` against hostile clients, end to end through the binary
//! with raw TCP clients: a huge header line, too many headers, a long
//! request line, hundreds of idle connections and a slow-loris are cut off
//! early with little memory and few threads while ordinary requests are
//! still served; requests from other sites' pages (a foreign `Origin`, DNS
//! rebinding, two `Origin`s, a `Referer` alone, ...) are refused with a
//! JSON error and change nothing; `--allow-host` adds a name; `HEAD`
//! answers like `GET` without a body.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::Value;

mod gui_support;

use gui_support::{http, parse, start_gui, Guard};

/// How long the server gives a client to send a whole request (the
/// server's own bound, src/tools/gui/server.rs), and a generous margin for a
/// shared machine on top of it.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
const MARGIN: Duration = Duration::from_secs(10);

/// Writes `request` on a new connection and reads the answer until the
/// server closes the connection or `limit` passes; the text read, and
/// whether the server closed it (a reset counts as closed).
fn exchange(port: u16, request: &[u8], limit: Duration) -> (String, bool) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("the GUI accepts");
    stream.write_all(request).expect("the request is sent");
    read_until_closed(&mut stream, limit)
}

/// Reads until the peer closes or `limit` passes: the text, and whether it
/// was closed.
fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> (String, bool) {
    let deadline = Instant::now() + limit;
    let mut bytes = Vec::new();
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return (String::from_utf8_lossy(&bytes).into_owned(), false);
        }
        stream.set_read_timeout(Some(left)).unwrap();
        match stream.read(&mut chunk) {
            Ok(0) => return (String::from_utf8_lossy(&bytes).into_owned(), true),
            Ok(read) => bytes.extend_from_slice(&chunk[..read]),
            Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => return (String::from_utf8_lossy(&bytes).into_owned(), true),
        }
    }
}

/// The status of the first answer in `text` (0 for none).
fn status(text: &str) -> u16 {
    text.split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0)
}

/// A field of `/proc/PID/status` (`VmRSS`, `Threads`), as a number.
fn process_status(gui: &Guard, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{}/status", gui.0.id())).ok()?;
    text.lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The page is still served, promptly.
fn page_is_served(port: u16) {
    let started = Instant::now();
    let (code, body) = http(port, "GET", "/", "").expect("the page");
    assert_eq!(code, 200, "{body}");
    assert!(
        body.contains("<html") || body.contains("<!DOCTYPE"),
        "{body}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the page took {:?}",
        started.elapsed()
    );
}

#[test]
fn a_huge_header_is_refused_early_with_little_memory() {
    let (gui, _, port) = start_gui(&[]);
    page_is_served(port);
    let before = process_status(&gui, "VmRSS");
    // 8 MB of one header line with no end, written by a thread of its own
    // (the server stops reading, so the writes block and then fail).
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut writer = stream.try_clone().unwrap();
    let sender = std::thread::spawn(move || {
        let start = format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Long: ");
        let _ = writer.write_all(start.as_bytes());
        let chunk = vec![b'a'; 64 * 1024];
        for _ in 0..128 {
            if writer.write_all(&chunk).is_err() {
                break;
            }
        }
    });
    let started = Instant::now();
    let (answer, closed) = read_until_closed(&mut stream, Duration::from_secs(5));
    assert!(
        status(&answer) == 431 || (answer.is_empty() && closed),
        "expected 431 or a closed connection within 5 s, got {:?} (closed: {closed}) after {:?}",
        answer.lines().next(),
        started.elapsed()
    );
    if status(&answer) == 431 {
        assert!(answer.contains("\"error\""), "{answer}");
    }
    drop(stream);
    let _ = sender.join();
    if let (Some(before), Some(after)) = (before, process_status(&gui, "VmRSS")) {
        assert!(
            after < before + 4 * 1024,
            "the server grew from {before} kB to {after} kB"
        );
    }
    page_is_served(port);
}

#[test]
fn too_many_headers_or_a_long_request_line_are_refused() {
    let (_gui, _, port) = start_gui(&[]);
    let many: String = (0..500).map(|index| format!("X-{index}: a\r\n")).collect();
    let request =
        format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{many}Connection: close\r\n\r\n");
    let (answer, _) = exchange(port, request.as_bytes(), MARGIN);
    assert_eq!(status(&answer), 431, "{answer}");
    let long = "a".repeat(20_000);
    let request =
        format!("GET /{long} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    let (answer, _) = exchange(port, request.as_bytes(), MARGIN);
    assert_eq!(status(&answer), 414, "{}", &answer[..answer.len().min(200)]);
    page_is_served(port);
}

#[test]
fn idle_connections_neither_block_requests_nor_stay_open() {
    let (gui, _, port) = start_gui(&[]);
    let idle: Vec<TcpStream> = (0..400)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).expect("a connection"))
        .collect();
    page_is_served(port);
    if let Some(threads) = process_status(&gui, "Threads") {
        assert!(threads <= 100, "the server holds {threads} threads");
    }
    // Every idle connection is closed by the server: those beyond its
    // bound at once, the others once they have been idle too long.
    let deadline = Instant::now() + REQUEST_TIMEOUT + MARGIN;
    for mut stream in idle {
        let left = deadline.saturating_duration_since(Instant::now());
        let (answer, closed) = read_until_closed(&mut stream, left.max(Duration::from_millis(1)));
        assert!(closed, "an idle connection is still open: {answer:?}");
        assert!(status(&answer) != 200, "{answer}");
    }
    page_is_served(port);
}

#[test]
fn a_slow_loris_is_cut_off() {
    let (_gui, _, port) = start_gui(&[]);
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: "
    )
    .unwrap();
    let started = Instant::now();
    let mut answer = Vec::new();
    let cut_off = loop {
        // One byte a second, as long as the server takes them.
        if stream.write_all(b"a").is_err() {
            break true;
        }
        let (text, closed) = read_until_closed(&mut stream, Duration::from_secs(1));
        answer.extend_from_slice(text.as_bytes());
        if closed {
            break true;
        }
        if started.elapsed() > REQUEST_TIMEOUT + MARGIN {
            break false;
        }
    };
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        cut_off,
        "a byte a second kept the connection open for {:?}",
        started.elapsed()
    );
    assert!(status(&answer) == 408 || answer.is_empty(), "{answer}");
    page_is_served(port);
}

/// The state's version (with the server's own address as `Host`).
fn version(port: u16) -> Value {
    let (code, body) = http(port, "GET", "/api/state", "").unwrap();
    assert_eq!(code, 200, "{body}");
    parse(&body)["version"].clone()
}

/// A `POST /api/mode` that would change the game, with `headers` (each
/// line ending in CRLF) in place of the usual `Host` and `Origin`.
fn mode_change(port: u16, headers: &str) -> String {
    let body = r#"{"mode": "review"}"#;
    let request = format!(
        "POST /api/mode HTTP/1.1\r\n{headers}Content-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    exchange(port, request.as_bytes(), MARGIN).0
}

#[test]
fn only_the_gui_own_page_may_change_the_game() {
    let (_gui, _, port) = start_gui(&[]);
    let good = format!("127.0.0.1:{port}");
    let evil = format!("evil.example:{port}");
    let forms = [
        (
            "a foreign Origin",
            format!("Host: {good}\r\nOrigin: http://evil.example\r\n"),
        ),
        (
            "DNS rebinding: Host and Origin both another site's",
            format!("Host: {evil}\r\nOrigin: http://{evil}\r\n"),
        ),
        (
            "two Origins, the good one first",
            format!("Host: {good}\r\nOrigin: http://{good}\r\nOrigin: http://evil.example\r\n"),
        ),
        (
            "two Origins, the good one last",
            format!("Host: {good}\r\nOrigin: http://evil.example\r\nOrigin: http://{good}\r\n"),
        ),
        (
            "two Origins in one header",
            format!("Host: {good}\r\nOrigin: http://{good}, http://evil.example\r\n"),
        ),
        (
            "a foreign Referer and no Origin",
            format!("Host: {good}\r\nReferer: http://evil.example/page.html\r\n"),
        ),
        ("no Origin at all", format!("Host: {good}\r\n")),
        ("Origin null", format!("Host: {good}\r\nOrigin: null\r\n")),
        (
            "another scheme",
            format!("Host: {good}\r\nOrigin: https://{good}\r\n"),
        ),
        (
            "another port",
            format!("Host: {good}\r\nOrigin: http://127.0.0.1:1\r\n"),
        ),
        (
            "the good address as a prefix",
            format!("Host: {good}\r\nOrigin: http://{good}.evil.example\r\n"),
        ),
        (
            "the good address after user information",
            format!("Host: {good}\r\nOrigin: http://evil.example@{good}\r\n"),
        ),
        ("no Host", format!("Origin: http://{good}\r\n")),
        (
            "two Hosts",
            format!("Host: {good}\r\nHost: {evil}\r\nOrigin: http://{good}\r\n"),
        ),
        (
            "a name not given on the command line",
            format!("Host: localhost:{port}\r\nOrigin: http://localhost:{port}\r\n"),
        ),
        (
            "a foreign Host with the good Origin",
            format!("Host: {evil}\r\nOrigin: http://{good}\r\n"),
        ),
    ];
    let before = version(port);
    for (form, headers) in &forms {
        let answer = mode_change(port, headers);
        assert_eq!(status(&answer), 403, "{form}: {answer}");
        let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
        assert!(
            parse(body)["error"].is_string(),
            "{form}: not a JSON error: {answer}"
        );
    }
    assert_eq!(version(port), before, "a refused request changed the state");
    // The page's own request, as a browser sends it, is carried out.
    let answer = mode_change(port, &format!("Host: {good}\r\nOrigin: http://{good}\r\n"));
    assert_eq!(status(&answer), 200, "{answer}");
    assert_ne!(version(port), before);
}

#[test]
fn a_foreign_host_can_read_nothing() {
    let (_gui, _, port) = start_gui(&[]);
    for path in ["/", "/page.js", "/api/state", "/api/record"] {
        for headers in [
            format!("Host: evil.example:{port}\r\n"),
            format!("Host: 127.0.0.1:{port}\r\nOrigin: http://evil.example\r\n"),
        ] {
            let request = format!("GET {path} HTTP/1.1\r\n{headers}Connection: close\r\n\r\n");
            let (answer, _) = exchange(port, request.as_bytes(), MARGIN);
            assert_eq!(status(&answer), 403, "{path} {headers}: {answer}");
        }
    }
    // A link from another site's page (a foreign Referer) opens the page.
    let request = format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nReferer: http://evil.example/\r\nConnection: close\r\n\r\n"
    );
    let (answer, _) = exchange(port, request.as_bytes(), MARGIN);
    assert_eq!(status(&answer), 200, "{answer}");
}

#[test]
fn allow_host_adds_a_name() {
    let (_gui, _, port) = start_gui(&["--allow-host", "localhost", "--allow-host", "gui.lan"]);
    for name in ["localhost", "gui.lan", "127.0.0.1"] {
        let host = format!("{name}:{port}");
        let request =
            format!("GET /api/state HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        let (answer, _) = exchange(port, request.as_bytes(), MARGIN);
        assert_eq!(status(&answer), 200, "{host}: {answer}");
        let answer = mode_change(port, &format!("Host: {host}\r\nOrigin: http://{host}\r\n"));
        assert_eq!(status(&answer), 200, "{host}: {answer}");
    }
    let answer = mode_change(
        port,
        &format!("Host: localhost:{port}\r\nOrigin: http://gui.lan:{port}\r\n"),
    );
    assert_eq!(status(&answer), 403, "{answer}");
}

#[test]
fn head_answers_like_get_without_a_body() {
    let (_gui, _, port) = start_gui(&[]);
    let host = format!("Host: 127.0.0.1:{port}\r\n");
    // HEAD, then GET on the same connection: the first answer has no body,
    // so the second begins right after its head.
    let request =
        format!("HEAD / HTTP/1.1\r\n{host}\r\nGET / HTTP/1.1\r\n{host}Connection: close\r\n\r\n");
    let (answer, _) = exchange(port, request.as_bytes(), MARGIN);
    let (head, rest) = answer.split_once("\r\n\r\n").expect("a head");
    assert_eq!(status(head), 200, "{answer}");
    assert!(
        rest.starts_with("HTTP/1.1 200"),
        "HEAD sent a body: {rest:.200}"
    );
    let (second_head, body) = rest.split_once("\r\n\r\n").expect("a second head");
    let length = |head: &str| {
        head.lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().to_string())
            })
            .unwrap_or_default()
    };
    assert_eq!(length(head), length(second_head), "{head}\n{second_head}");
    assert_eq!(length(second_head), body.len().to_string());
    assert!(head.contains("text/html"), "{head}");
}
