//! Helpers shared by the GUI's tests: starting `supernova gui` on a free
//! port, and a small HTTP/1.1 client on std::net.

#![allow(dead_code)]

pub mod browser;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// A child process killed when the test ends, however it ends.
pub struct Guard(pub Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One HTTP/1.1 request with a JSON body; returns the status and the body.
/// A `POST` names the server's own address as its `Origin`, as the GUI's
/// page does in a browser (the GUI refuses changes without it).
pub fn http(port: u16, method: &str, path: &str, body: &str) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let origin = if method == "GET" {
        String::new()
    } else {
        format!("Origin: http://127.0.0.1:{port}\r\n")
    };
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{origin}Content-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line)?;
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let mut length = None;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse::<usize>().ok();
            }
        }
    }
    let mut bytes = Vec::new();
    match length {
        Some(length) => {
            bytes.resize(length, 0);
            reader.read_exact(&mut bytes)?;
        }
        None => {
            reader.read_to_end(&mut bytes)?;
        }
    }
    Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
}

/// Posts a JSON command to the GUI, as the page does; the status and the
/// JSON answer (a test fails on an answer that is not JSON).
pub fn post_json(port: u16, path: &str, request: &Value) -> (u16, Value) {
    let (status, body) = http(port, "POST", path, &request.to_string()).unwrap();
    (status, parse(&body))
}

/// A JSON text read as a value; a test fails on one that is not JSON.
pub fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|error| panic!("not JSON ({error}): {text}"))
}

/// Starts `supernova gui --port 0` with more `arguments`; returns the
/// process, the page's address (which it prints first) and its port.
pub fn start_gui(arguments: &[&str]) -> (Guard, String, u16) {
    let mut gui = Command::new(env!("CARGO_BIN_EXE_supernova"))
        .args(["gui", "--port", "0"])
        .args(arguments)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("supernova gui starts");
    let stdout = gui.stdout.take().unwrap();
    let guard = Guard(gui);
    let mut first_line = String::new();
    BufReader::new(stdout).read_line(&mut first_line).unwrap();
    let address = first_line
        .trim()
        .strip_prefix("Supernova GUI: ")
        .unwrap_or_else(|| panic!("expected the address, got {first_line:?}"))
        .to_string();
    let port = address
        .trim_end_matches('/')
        .rsplit(':')
        .next()
        .and_then(|port| port.parse().ok())
        .unwrap_or_else(|| panic!("expected a port in {address:?}"));
    (guard, address, port)
}

/// The GUI's state once `accept` holds for it; the test fails after
/// [`browser::WAIT`] with the last state.
pub fn state_when(port: u16, what: &str, accept: impl Fn(&Value) -> bool) -> Value {
    let deadline = std::time::Instant::now() + browser::WAIT;
    loop {
        let (status, body) = http(port, "GET", "/api/state", "").expect("the state");
        assert_eq!(status, 200);
        let state = parse(&body);
        if accept(&state) {
            return state;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}: {body}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
