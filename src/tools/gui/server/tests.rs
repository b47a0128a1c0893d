use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::*;

/// Small bounds, so that the tests hit them quickly.
fn small_limits() -> Limits {
    Limits {
        request_line_bytes: 64,
        head_bytes: 256,
        headers: 4,
        body_bytes: 32,
        request_time: Duration::from_millis(600),
        answer_time: Duration::from_secs(2),
        connections: 3,
        requests_per_connection: 3,
        drain_bytes: 1024,
        drain_time: Duration::from_millis(300),
    }
}

/// A server with `limits` on a free port, answering every request with its
/// method, target and body (`/panic` panics, `/slow` takes half a second);
/// its port. The accepting thread lives as long as the test process.
fn start(limits: Limits) -> u16 {
    let server = Server::bind("127.0.0.1:0", limits).unwrap();
    let port = server.local_address().unwrap().port();
    std::thread::spawn(move || {
        server.serve(|request| {
            if request.target == "/panic" {
                panic!("a handler that fails");
            }
            if request.target == "/slow" {
                std::thread::sleep(Duration::from_millis(500));
            }
            let text = format!(
                "{:?} {} {}",
                request.method,
                request.target,
                String::from_utf8_lossy(&request.body)
            );
            Response {
                status: 200,
                headers: vec![("Content-Type", "text/plain".to_string())],
                body: text.into_bytes(),
            }
        })
    });
    port
}

/// Sends `request` and reads until the server closes (or 5 s pass).
fn exchange(port: u16, request: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    read_all(&mut stream)
}

fn read_all(stream: &mut TcpStream) -> String {
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn a_request_is_answered_and_the_connection_kept() {
    let port = start(small_limits());
    let answer = exchange(
        port,
        "POST /a?b HTTP/1.1\r\nContent-Length: 3\r\n\r\nxyzGET /c HTTP/1.1\r\nConnection: close\r\n\r\n",
    );
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(answer.contains("Connection: keep-alive\r\n"), "{answer}");
    assert!(answer.contains("Post /a?b xyz"), "{answer}");
    assert!(
        answer.ends_with("Connection: close\r\n\r\nGet /c "),
        "{answer}"
    );
}

#[test]
fn head_has_the_length_of_get_and_no_body() {
    let port = start(small_limits());
    let answer = exchange(port, "HEAD /x HTTP/1.0\r\n\r\n");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("Content-Length: 8\r\n"), "{answer}");
    assert!(answer.ends_with("\r\n\r\n"), "{answer}");
}

#[test]
fn bounds_are_refused_with_their_status() {
    let port = start(small_limits());
    let long_line = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(100));
    let many = "GET / HTTP/1.1\r\na: 1\r\nb: 2\r\nc: 3\r\nd: 4\r\ne: 5\r\n\r\n";
    let large = format!("GET / HTTP/1.1\r\nx: {}\r\n\r\n", "a".repeat(300));
    for (request, status) in [
        (long_line.as_str(), 414),
        (many, 431),
        (large.as_str(), 431),
        ("POST / HTTP/1.1\r\nContent-Length: 33\r\n\r\n", 413),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
        (
            "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            400,
        ),
        ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
        ("GET / HTTP/2.0\r\n\r\n", 505),
        ("GET http://a/ HTTP/1.1\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\n folded\r\n\r\n", 400),
        ("GET / HTTP/1.1\r\nno colon\r\n\r\n", 400),
        ("GET /panic HTTP/1.1\r\n\r\n", 500),
    ] {
        let answer = exchange(port, request);
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status} ")),
            "{request:?}: {answer}"
        );
        if status != 500 {
            assert!(answer.contains("Connection: close\r\n"), "{answer}");
        }
        assert!(answer.contains("{\"error\":"), "{answer}");
    }
}

#[test]
fn a_slow_or_idle_client_is_cut_off() {
    let port = start(small_limits());
    // Idle: closed without a word.
    let mut idle = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let started = Instant::now();
    assert_eq!(read_all(&mut idle), "");
    assert!(started.elapsed() < Duration::from_secs(3));
    // Slow: part of a request, then a byte every 100 ms.
    let mut slow = TcpStream::connect(("127.0.0.1", port)).unwrap();
    slow.write_all(b"GET / HTTP/1.1\r\nX: ").unwrap();
    let started = Instant::now();
    while slow.write_all(b"a").is_ok() && started.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(100));
        slow.set_nonblocking(true).unwrap();
        let mut peek = [0u8; 1];
        let answered = slow.peek(&mut peek).is_ok();
        slow.set_nonblocking(false).unwrap();
        if answered {
            break;
        }
    }
    let answer = read_all(&mut slow);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn idle_connections_make_room_for_new_ones() {
    let port = start(small_limits());
    let idle: Vec<TcpStream> = (0..10)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    let started = Instant::now();
    let answer = exchange(port, "GET /fresh HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert!(answer.contains("Get /fresh"), "{answer}");
    assert!(started.elapsed() < Duration::from_millis(500));
    drop(idle);
}

#[test]
fn connections_being_answered_are_not_cut_off() {
    let port = start(small_limits());
    let slow: Vec<std::thread::JoinHandle<String>> = (0..3)
        .map(|_| {
            std::thread::spawn(move || {
                exchange(port, "GET /slow HTTP/1.1\r\nConnection: close\r\n\r\n")
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(100));
    // A fourth waits for a place rather than cutting off an answer.
    let answer = exchange(port, "GET /later HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert!(answer.contains("Get /later"), "{answer}");
    for handle in slow {
        let answer = handle.join().unwrap();
        assert!(answer.contains("Get /slow"), "{answer}");
    }
}

#[test]
fn a_connection_serves_a_bounded_number_of_requests() {
    let port = start(small_limits());
    let answer = exchange(port, &"GET / HTTP/1.1\r\n\r\n".repeat(5));
    assert_eq!(answer.matches("HTTP/1.1 200").count(), 3, "{answer}");
    assert!(
        answer.ends_with("Connection: close\r\n\r\nGet / "),
        "{answer}"
    );
}

#[test]
fn expect_continue_is_answered_before_the_body() {
    let port = start(small_limits());
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .write_all(b"POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut first = [0u8; 25];
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    stream.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"HTTP/1.1 100 Continue\r\n\r\n");
    stream.write_all(b"ok").unwrap();
    assert!(read_all(&mut stream).contains("Post / ok"));
}

#[test]
fn the_head_end_is_found_with_either_line_ending() {
    assert_eq!(head_end(b"GET / HTTP/1.1\r\n\r\nrest", 0), Some(18));
    assert_eq!(head_end(b"GET / HTTP/1.1\n\nrest", 0), Some(16));
    assert_eq!(head_end(b"GET / HTTP/1.1\r\nA: b\r\n", 0), None);
    assert_eq!(head_end(b"GET / HTTP/1.1\r\n\r\n", 16), Some(18));
}
