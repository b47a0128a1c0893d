//! A small HTTP/1.1 server on `std::net` for the GUI, in which nothing a
//! client sends or withholds can claim memory, threads or time without a
//! bound. The GUI's page is its only intended client, but it listens on a
//! socket that any local program (and, through the browser, any site's
//! page) can reach, so it assumes nothing of its clients.
//!
//! # Design
//!
//! - **Threads.** One thread accepts; each open connection has a thread of
//!   its own, and at most [`Limits::connections`] are open at once. A
//!   connection is either *waiting on its client* (for a request, a body,
//!   or for the client to take the answer) or *being answered* (the
//!   handler runs). When every place is taken, the connection that has
//!   waited longest on its client is shut down to make room, so idle or
//!   slow clients cannot lock others out; when every connection is being
//!   answered (long polls last at most a second and a half), the acceptor
//!   waits for one to finish and new connections wait in the kernel's
//!   bounded listen queue.
//! - **Memory.** A request line is at most [`Limits::request_line_bytes`]
//!   (else `414`), the request line and headers together at most
//!   [`Limits::head_bytes`] and [`Limits::headers`] header lines (else
//!   `431`); a body is read only with a `Content-Length` of at most
//!   [`Limits::body_bytes`] (else `413`; `Transfer-Encoding` is refused with
//!   `501`). So a connection holds at most the head and body bounds plus
//!   one read's worth of bytes.
//! - **Time.** A whole request must arrive within [`Limits::request_time`]
//!   of the moment the server starts waiting for it: a connection that
//!   sends nothing in that time is closed, one that sent part of a request
//!   (a slow-loris, a byte a second) gets `408`. An answer must be taken
//!   by the client within [`Limits::answer_time`].
//! - **Connections.** HTTP/1.1 connections stay open for the next request
//!   (at most [`Limits::requests_per_connection`]) unless the client sends
//!   `Connection: close`; HTTP/1.0 ones close after the answer. `HEAD` is
//!   answered with the head `GET` would have, without the body. After a
//!   refusal the connection is closed: the server stops writing and reads
//!   and discards what the client is still sending (at most
//!   [`Limits::drain_bytes`] or [`Limits::drain_time`]), so the client
//!   reads the refusal rather than a reset.
//!
//! The server's own refusals are JSON objects `{"error": "..."}`, as the
//! GUI's are. It knows nothing of what the requests mean: the handler
//! answers each complete request, and a handler that panics gets `500`.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The bounds on what one client can claim (see the module's design).
#[derive(Clone, Debug)]
pub struct Limits {
    /// The longest request line, `GET /path HTTP/1.1`.
    pub request_line_bytes: usize,
    /// The longest request line and headers together.
    pub head_bytes: usize,
    /// The most header lines in a request.
    pub headers: usize,
    /// The largest body.
    pub body_bytes: usize,
    /// How long a client has to send a whole request.
    pub request_time: Duration,
    /// How long a client has to take an answer.
    pub answer_time: Duration,
    /// The most connections open (and threads serving them) at once.
    pub connections: usize,
    /// The most requests answered on one connection.
    pub requests_per_connection: usize,
    /// The most bytes read and discarded after a refusal.
    pub drain_bytes: usize,
    /// The longest time spent discarding after a refusal.
    pub drain_time: Duration,
}

impl Limits {
    /// Bounds for the GUI: far above what its page sends (a request line of
    /// a few dozen bytes, a dozen headers, an SDG record well under a
    /// megabyte), far below what would hurt the machine.
    pub fn gui(body_bytes: usize) -> Limits {
        Limits {
            request_line_bytes: 8 * 1024,
            head_bytes: 16 * 1024,
            headers: 100,
            body_bytes,
            request_time: Duration::from_secs(10),
            answer_time: Duration::from_secs(10),
            connections: 64,
            requests_per_connection: 1000,
            drain_bytes: 4 << 20,
            drain_time: Duration::from_secs(2),
        }
    }
}

/// A request's method, as far as the GUI tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// `GET`.
    Get,
    /// `HEAD`: answered as `GET`, without the body.
    Head,
    /// `POST`.
    Post,
    /// Any other method: the handler decides (the GUI answers `404`).
    Other,
}

/// A complete request, read within the limits.
#[derive(Debug)]
pub struct Request {
    /// The method.
    pub method: Method,
    /// The target as sent: the path and any `?query`.
    pub target: String,
    /// The header lines in order, names as sent, values trimmed.
    headers: Vec<(String, String)>,
    /// The body (empty without a `Content-Length`).
    pub body: Vec<u8>,
    /// Whether the client keeps the connection for another request.
    keep_alive: bool,
}

impl Request {
    /// A request as the server would read it, for handlers' tests.
    #[cfg(test)]
    pub fn new(method: Method, target: &str, headers: &[(&str, &str)]) -> Request {
        Request {
            method,
            target: target.to_string(),
            headers: headers
                .iter()
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .collect(),
            body: Vec::new(),
            keep_alive: true,
        }
    }

    /// The values of every header line called `name` (any case), in order:
    /// several lines of one name are kept apart, so that a check can
    /// refuse a request that repeats a header it relies on.
    pub fn headers<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(field, _)| field.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// What the handler answers.
#[derive(Debug)]
pub struct Response {
    /// The status.
    pub status: u16,
    /// Header lines besides `Content-Length` and `Connection`, which the
    /// server writes itself.
    pub headers: Vec<(&'static str, String)>,
    /// The body (left out for `HEAD`, its length still given).
    pub body: Vec<u8>,
}

impl Response {
    /// A refusal as the GUI's page reads one: `{"error": message}`.
    pub fn error(status: u16, message: &str) -> Response {
        Response {
            status,
            headers: vec![
                (
                    "Content-Type",
                    "application/json; charset=utf-8".to_string(),
                ),
                ("Cache-Control", "no-store".to_string()),
            ],
            body: serde_json::json!({ "error": message })
                .to_string()
                .into_bytes(),
        }
    }
}

/// The handler of complete requests, shared by the connection threads.
type Handler = dyn Fn(&Request) -> Response + Send + Sync;

/// A bound listening socket, not yet serving.
pub struct Server {
    listener: TcpListener,
    limits: Limits,
}

impl Server {
    /// Listens on `address`.
    ///
    /// # Errors
    /// The address cannot be resolved or bound.
    pub fn bind(address: impl ToSocketAddrs, limits: Limits) -> std::io::Result<Server> {
        Ok(Server {
            listener: TcpListener::bind(address)?,
            limits,
        })
    }

    /// The address it listens on (the port chosen when 0 was asked for).
    ///
    /// # Errors
    /// The socket cannot tell (it does not happen on a bound socket).
    pub fn local_address(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves requests with `handler` for as long as the socket accepts
    /// connections (in practice until the process ends).
    pub fn serve(self, handler: impl Fn(&Request) -> Response + Send + Sync + 'static) {
        let handler: Arc<Handler> = Arc::new(handler);
        let limits = Arc::new(self.limits);
        let connections = Arc::new(Connections::new(limits.connections));
        for stream in self.listener.incoming() {
            let Ok(stream) = stream else {
                // Out of file descriptors or a connection reset before it
                // was accepted: wait a little rather than spin.
                std::thread::sleep(Duration::from_millis(50));
                continue;
            };
            let Ok(watch) = stream.try_clone() else {
                continue;
            };
            let id = connections.admit(watch);
            let place = Place {
                connections: Arc::clone(&connections),
                id,
            };
            let handler = Arc::clone(&handler);
            let limits = Arc::clone(&limits);
            let spawned = std::thread::Builder::new()
                .name("gui-connection".to_string())
                .spawn(move || serve_connection(stream, &place, &*handler, &limits));
            if let Err(error) = spawned {
                // The place is given back when the closure is dropped.
                eprintln!("gui: cannot serve a connection: {error}");
            }
        }
    }
}

/// One open connection's entry in the table of [`Connections`].
struct Entry {
    id: u64,
    /// A handle on the connection's socket, to shut it down from outside.
    stream: TcpStream,
    /// Whether the handler is answering a request (the connection is then
    /// not shut down to make room).
    answering: bool,
    /// Since when it has been in its present state.
    since: Instant,
    /// Whether it has been shut down to make room.
    evicted: bool,
}

/// The open connections, at most `capacity` of them.
struct Connections {
    table: Mutex<(u64, Vec<Entry>)>,
    freed: Condvar,
    capacity: usize,
}

impl Connections {
    fn new(capacity: usize) -> Connections {
        Connections {
            table: Mutex::new((0, Vec::new())),
            freed: Condvar::new(),
            capacity: capacity.max(1),
        }
    }

    /// The table (a panic elsewhere does not make it unusable).
    fn lock(&self) -> MutexGuard<'_, (u64, Vec<Entry>)> {
        self.table
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Makes room for a new connection and enters it; its id. While the
    /// table is full, the connection waiting longest on its client is shut
    /// down (its thread then ends and frees its place); when all are being
    /// answered, this waits for one to end.
    fn admit(&self, stream: TcpStream) -> u64 {
        let mut table = self.lock();
        while table.1.len() >= self.capacity {
            let oldest = table
                .1
                .iter_mut()
                .filter(|entry| !entry.answering && !entry.evicted)
                .min_by_key(|entry| entry.since);
            if let Some(entry) = oldest {
                entry.evicted = true;
                let _ = entry.stream.shutdown(Shutdown::Both);
            }
            table = match self.freed.wait_timeout(table, Duration::from_millis(100)) {
                Ok((table, _)) => table,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        let id = table.0;
        table.0 += 1;
        table.1.push(Entry {
            id,
            stream,
            answering: false,
            since: Instant::now(),
            evicted: false,
        });
        id
    }

    /// Marks connection `id` as being answered or waiting on its client.
    /// False when it was shut down to make room: its request is dropped.
    fn set_answering(&self, id: u64, answering: bool) -> bool {
        let mut table = self.lock();
        match table.1.iter_mut().find(|entry| entry.id == id) {
            Some(entry) if !entry.evicted => {
                entry.answering = answering;
                entry.since = Instant::now();
                true
            }
            _ => false,
        }
    }

    /// Removes connection `id`, freeing its place.
    fn release(&self, id: u64) {
        self.lock().1.retain(|entry| entry.id != id);
        self.freed.notify_all();
    }
}

/// A connection's place in [`Connections`], given back when its thread
/// ends, however it ends.
struct Place {
    connections: Arc<Connections>,
    id: u64,
}

impl Drop for Place {
    fn drop(&mut self) {
        self.connections.release(self.id);
    }
}

/// Why no request was read.
#[derive(Debug, PartialEq)]
enum Failure {
    /// The client closed the connection, or sent nothing in time: close it
    /// without a word.
    Closed,
    /// The request breaks a rule or a bound: refuse it and close.
    Refused(u16, String),
}

/// Serves the requests of one connection until it closes or breaks a
/// bound.
fn serve_connection(stream: TcpStream, place: &Place, handler: &Handler, limits: &Limits) {
    let mut connection = Connection {
        stream,
        buffer: Vec::new(),
        limits,
    };
    for served in 1..=limits.requests_per_connection {
        let deadline = Instant::now() + limits.request_time;
        let request = match connection.read_request(deadline) {
            Ok(request) => request,
            Err(Failure::Closed) => return,
            Err(Failure::Refused(status, message)) => {
                connection.refuse(&Response::error(status, &message));
                return;
            }
        };
        if !place.connections.set_answering(place.id, true) {
            return;
        }
        let response = catch_unwind(AssertUnwindSafe(|| handler(&request)))
            .unwrap_or_else(|_| Response::error(500, "the server failed to answer"));
        place.connections.set_answering(place.id, false);
        let keep_alive = request.keep_alive && served < limits.requests_per_connection;
        let head_only = request.method == Method::Head;
        if connection.send(&response, head_only, keep_alive).is_err() || !keep_alive {
            return;
        }
    }
}

/// A connection's socket and the bytes read from it but not yet used.
struct Connection<'a> {
    stream: TcpStream,
    buffer: Vec<u8>,
    limits: &'a Limits,
}

/// The outcome of one read.
enum Filled {
    /// Bytes were read into the buffer.
    Some,
    /// The client closed the connection (or it broke).
    Ended,
    /// Nothing came by the deadline.
    TimedOut,
}

impl Connection<'_> {
    /// Reads once, waiting at most until `deadline`.
    fn fill(&mut self, deadline: Instant) -> Filled {
        let mut chunk = [0u8; 8 * 1024];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.stream.set_read_timeout(Some(left)).is_err() {
                return Filled::TimedOut;
            }
            match self.stream.read(&mut chunk) {
                Ok(0) => return Filled::Ended,
                Ok(read) => {
                    self.buffer.extend_from_slice(&chunk[..read]);
                    return Filled::Some;
                }
                Err(error) if error.kind() == ErrorKind::Interrupted => {}
                Err(error)
                    if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) =>
                {
                    return Filled::TimedOut
                }
                Err(_) => return Filled::Ended,
            }
        }
    }

    /// Reads one request whole by `deadline`, within the limits.
    fn read_request(&mut self, deadline: Instant) -> Result<Request, Failure> {
        let head = self.read_head(deadline)?;
        let mut request = parse_head(&head, self.limits)?;
        let length = body_length(&request, self.limits)?;
        let expects_continue = request
            .headers("Expect")
            .any(|value| value.eq_ignore_ascii_case("100-continue"));
        if expects_continue && self.buffer.len() < length {
            // The client waits for this before it sends the body; failing
            // to write it is found out by the reads below.
            let _ = self.write_before(
                b"HTTP/1.1 100 Continue\r\n\r\n",
                Instant::now() + self.limits.answer_time,
            );
        }
        while self.buffer.len() < length {
            match self.fill(deadline) {
                Filled::Some => {}
                Filled::Ended => return Err(Failure::Closed),
                Filled::TimedOut => return Err(timed_out()),
            }
        }
        request.body = self.buffer.drain(..length).collect();
        Ok(request)
    }

    /// Reads up to the blank line that ends the headers; the head's text.
    fn read_head(&mut self, deadline: Instant) -> Result<String, Failure> {
        let mut scanned = 0;
        loop {
            // Empty lines before a request are skipped, as RFC 9112 asks.
            let blank = self
                .buffer
                .iter()
                .take_while(|&&byte| byte == b'\r' || byte == b'\n')
                .count();
            if blank > 0 {
                self.buffer.drain(..blank);
                scanned = 0;
            }
            if let Some(end) = head_end(&self.buffer, scanned) {
                check_head_size(&self.buffer[..end], self.limits)?;
                let head: Vec<u8> = self.buffer.drain(..end).collect();
                return String::from_utf8(head).map_err(|_| {
                    Failure::Refused(400, "the request's head is not UTF-8".to_string())
                });
            }
            check_head_size(&self.buffer, self.limits)?;
            scanned = self.buffer.len();
            match self.fill(deadline) {
                Filled::Some => {}
                Filled::Ended => return Err(Failure::Closed),
                Filled::TimedOut if self.buffer.is_empty() => return Err(Failure::Closed),
                Filled::TimedOut => return Err(timed_out()),
            }
        }
    }

    /// Writes `bytes`, giving up at `deadline`.
    fn write_before(&mut self, bytes: &[u8], deadline: Instant) -> std::io::Result<()> {
        let mut written = 0;
        while written < bytes.len() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ErrorKind::TimedOut.into());
            }
            self.stream.set_write_timeout(Some(left))?;
            let end = bytes.len().min(written + (64 << 10));
            match self.stream.write(&bytes[written..end]) {
                Ok(0) => return Err(ErrorKind::WriteZero.into()),
                Ok(count) => written += count,
                Err(error) if error.kind() == ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }

    /// Writes `response` (its head only for `HEAD`), saying whether the
    /// connection stays open.
    fn send(
        &mut self,
        response: &Response,
        head_only: bool,
        keep_alive: bool,
    ) -> std::io::Result<()> {
        let mut head = format!(
            "HTTP/1.1 {} {}\r\nContent-Length: {}\r\n",
            response.status,
            reason(response.status),
            response.body.len()
        );
        for (name, value) in &response.headers {
            // A line break in a value would start a header of its own.
            if !value.contains(['\r', '\n']) {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
        }
        if keep_alive {
            head.push_str(&format!(
                "Connection: keep-alive\r\nKeep-Alive: timeout={}\r\n\r\n",
                self.limits.request_time.as_secs()
            ));
        } else {
            head.push_str("Connection: close\r\n\r\n");
        }
        let deadline = Instant::now() + self.limits.answer_time;
        self.write_before(head.as_bytes(), deadline)?;
        if !head_only {
            self.write_before(&response.body, deadline)?;
        }
        self.stream.flush()
    }

    /// Sends a refusal and closes the connection, discarding (within
    /// bounds) what the client still sends so that it reads the refusal.
    fn refuse(&mut self, response: &Response) {
        if self.send(response, false, false).is_err() {
            return;
        }
        let _ = self.stream.shutdown(Shutdown::Write);
        let deadline = Instant::now() + self.limits.drain_time;
        let mut discarded = 0;
        while discarded <= self.limits.drain_bytes {
            self.buffer.clear();
            match self.fill(deadline) {
                Filled::Some => discarded += self.buffer.len(),
                Filled::Ended | Filled::TimedOut => break,
            }
        }
    }
}

/// The refusal of a request that did not arrive in time.
fn timed_out() -> Failure {
    Failure::Refused(408, "the request did not arrive in time".to_string())
}

/// Where the head ends in `bytes` (just after its blank line), looking
/// from near `scanned` on, as the bytes before it were already searched.
fn head_end(bytes: &[u8], scanned: usize) -> Option<usize> {
    let start = scanned.saturating_sub(3);
    (start..bytes.len()).find_map(|index| {
        if bytes[index] != b'\n' {
            return None;
        }
        let rest = &bytes[index + 1..];
        if rest.starts_with(b"\n") {
            Some(index + 2)
        } else if rest.starts_with(b"\r\n") {
            Some(index + 3)
        } else {
            None
        }
    })
}

/// Refuses a head, whole or in part, beyond the size bounds.
fn check_head_size(head: &[u8], limits: &Limits) -> Result<(), Failure> {
    let line = head
        .iter()
        .position(|&byte| byte == b'\n')
        .unwrap_or(head.len());
    if line > limits.request_line_bytes {
        return Err(Failure::Refused(
            414,
            format!(
                "the request line is longer than {} bytes",
                limits.request_line_bytes
            ),
        ));
    }
    if head.len() > limits.head_bytes {
        return Err(Failure::Refused(
            431,
            format!("the request's headers exceed {} bytes", limits.head_bytes),
        ));
    }
    Ok(())
}

/// Reads the request line and headers of `head` (which ends with its
/// blank line).
fn parse_head(head: &str, limits: &Limits) -> Result<Request, Failure> {
    let bad = |message: &str| Failure::Refused(400, message.to_string());
    let mut lines = head
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .take_while(|line| !line.is_empty());
    let request_line = lines.next().unwrap_or_default();
    let mut words = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (words.next(), words.next(), words.next(), words.next())
    else {
        return Err(bad("expected a request line `METHOD /path HTTP/1.1`"));
    };
    if !target.starts_with('/') {
        return Err(bad("expected a path beginning with `/`"));
    }
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return Err(Failure::Refused(
            505,
            "only HTTP/1.1 and HTTP/1.0 are served".to_string(),
        ));
    }
    let mut headers = Vec::new();
    for line in lines {
        if headers.len() == limits.headers {
            return Err(Failure::Refused(
                431,
                format!("a request has at most {} headers", limits.headers),
            ));
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(bad("expected a header line `Name: value`"));
        };
        // A name with blanks (or a folded line, which begins with one) is
        // refused, as RFC 9112 asks, rather than guessed at.
        if name.is_empty() || name.contains(|c: char| c.is_ascii_whitespace() || c.is_control()) {
            return Err(bad("expected a header line `Name: value`"));
        }
        headers.push((name.to_string(), value.trim().to_string()));
    }
    let mut request = Request {
        method: match method {
            "GET" => Method::Get,
            "HEAD" => Method::Head,
            "POST" => Method::Post,
            _ => Method::Other,
        },
        target: target.to_string(),
        headers,
        body: Vec::new(),
        keep_alive: false,
    };
    let closes = request.headers("Connection").any(|value| {
        value
            .split(',')
            .any(|token| token.trim().eq_ignore_ascii_case("close"))
    });
    request.keep_alive = version == "HTTP/1.1" && !closes;
    Ok(request)
}

/// The body's length from `Content-Length` (0 without one).
fn body_length(request: &Request, limits: &Limits) -> Result<usize, Failure> {
    if request.headers("Transfer-Encoding").next().is_some() {
        return Err(Failure::Refused(
            501,
            "send the body with a Content-Length, not a Transfer-Encoding".to_string(),
        ));
    }
    let mut length = None;
    for value in request.headers("Content-Length") {
        let parsed = value
            .bytes()
            .all(|byte| byte.is_ascii_digit())
            .then(|| value.parse::<u64>().ok())
            .flatten();
        match (parsed, length) {
            (None, _) => return Err(Failure::Refused(400, "a bad Content-Length".to_string())),
            (Some(new), Some(old)) if new != old => {
                return Err(Failure::Refused(
                    400,
                    "two different Content-Lengths".to_string(),
                ))
            }
            (Some(new), _) => length = Some(new),
        }
    }
    let length = length.unwrap_or(0);
    if length > limits.body_bytes as u64 {
        return Err(Failure::Refused(
            413,
            format!("the upload is larger than {} KiB", limits.body_bytes / 1024),
        ));
    }
    Ok(length as usize)
}

/// The reason phrase of a status the GUI uses.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

#[cfg(test)]
mod tests;
