//! The HTTP side of the GUI, apart from what the requests mean: which
//! requests come from the GUI's own page ([`Hosts`]), query words, and the
//! [`Answer`] a handler gives, turned into the server's response.

use serde::Serialize;

use super::api::ErrorReply;
use super::server::{Method, Request, Response};

/// The largest request body read: a long SDG record is well under this.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// What a request handler answers.
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The body's `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: String,
    /// A file name when the body is to be saved, not shown.
    pub download: Option<String>,
}

impl Answer {
    /// A JSON reply, status 200.
    pub fn json(reply: &impl Serialize) -> Answer {
        let body = serde_json::to_string(reply);
        Answer {
            status: if body.is_ok() { 200 } else { 500 },
            content_type: "application/json; charset=utf-8",
            // The replies are plain structs of strings, numbers and lists,
            // which always serialise; this is only a guard.
            body: body.unwrap_or_else(|_| r#"{"error":"the reply could not be written"}"#.into()),
            download: None,
        }
    }

    /// An error for the page, as `{"error": message}`.
    pub fn error(status: u16, message: &str) -> Answer {
        Answer {
            status,
            ..Answer::json(&ErrorReply { error: message })
        }
    }

    /// One of the page's own files, or another text.
    pub fn asset(content_type: &'static str, body: &str) -> Answer {
        Answer {
            status: 200,
            content_type,
            body: body.to_string(),
            download: None,
        }
    }

    /// The response the server writes.
    pub fn into_response(self) -> Response {
        let disposition = self.download.map(|file| {
            (
                "Content-Disposition",
                format!("attachment; filename=\"{file}\""),
            )
        });
        let headers = [
            ("Content-Type", self.content_type.to_string()),
            ("Cache-Control", "no-store".to_string()),
        ]
        .into_iter()
        .chain(disposition)
        .collect();
        Response {
            status: self.status,
            headers,
            body: self.body.into_bytes(),
        }
    }
}

/// The `Host` names the GUI answers to, and the check that a request
/// comes from its own page.
///
/// A browser sends any site's page's requests to wherever that site's name
/// resolves, and a site can resolve its own name to 127.0.0.1 (DNS
/// rebinding): such a request names the other site in `Host`, so only
/// requests whose one `Host` is the address the server was started on, or
/// a name given with `--allow-host`, are answered, reads included (the
/// state and the record are the person's). A request that changes the
/// game must also carry exactly one `Origin`, the page at that same host:
/// browsers name the sending page there in every `POST`, so another
/// site's page cannot change the game, nor can a page whose origin is
/// hidden (`Origin: null`) or absent (a `Referer` is not enough). A read
/// that names a foreign `Origin` is refused too. A command-line client
/// sends `Origin: http://HOST` itself.
#[derive(Clone, Debug)]
pub struct Hosts {
    /// The accepted `Host` values, lowercase, each with its port.
    names: Vec<String>,
}

impl Hosts {
    /// The hosts for a server at `address` (`ip:port`, as bound), started
    /// with `--bind bind` and `--allow-host` `allowed`; a name without a
    /// port gets the server's `port`.
    ///
    /// # Errors
    /// An allowed name that is not a host name or address.
    pub fn new(address: &str, bind: &str, port: u16, allowed: &[String]) -> Result<Hosts, String> {
        let mut names: Vec<String> = Vec::new();
        let given = [address, bind].into_iter().map(|name| (name, false));
        for (name, from_option) in given.chain(allowed.iter().map(|name| (name.as_str(), true))) {
            let name = name.trim().to_ascii_lowercase();
            let well_formed = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || ".-_:[]".contains(c));
            if !well_formed {
                if from_option {
                    return Err(format!(
                        "--allow-host: expected a host name or address, not {name:?}"
                    ));
                }
                continue;
            }
            let with_port = with_port(&name, port);
            // A browser leaves out the default port.
            let bare = with_port.strip_suffix(":80").map(str::to_string);
            for name in bare.into_iter().chain([with_port]) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        Ok(Hosts { names })
    }

    /// Whether `request` may be answered: `Ok`, or the refusal (403).
    ///
    /// # Errors
    /// The answer refusing a foreign `Host` or `Origin`.
    pub fn check(&self, request: &Request) -> Result<(), Answer> {
        let hosts: Vec<&str> = request.headers("Host").collect();
        let host = match hosts[..] {
            [host] => host.to_ascii_lowercase(),
            _ => {
                return Err(Answer::error(
                    403,
                    "a request must name this server in exactly one Host header",
                ))
            }
        };
        if !self.names.contains(&host) {
            return Err(Answer::error(
                403,
                &format!(
                    "this server answers only to {}; start it with --allow-host NAME to open it under another name",
                    self.names.join(", ")
                ),
            ));
        }
        let origins: Vec<&str> = request.headers("Origin").collect();
        let reads = matches!(request.method, Method::Get | Method::Head);
        match origins[..] {
            [] if reads => Ok(()),
            [origin] if origin.eq_ignore_ascii_case(&format!("http://{host}")) => Ok(()),
            _ => Err(Answer::error(
                403,
                "requests that change the game must come from the GUI's own page (one Origin, this server's address)",
            )),
        }
    }
}

/// `name` with `:port` unless it has a port; a bare IPv6 address gets its
/// brackets, as a browser writes it in `Host`.
fn with_port(name: &str, port: u16) -> String {
    let bracketed = name.starts_with('[');
    let has_port = name.rsplit_once(':').is_some_and(|(before, after)| {
        !after.is_empty()
            && after.bytes().all(|byte| byte.is_ascii_digit())
            && if bracketed {
                before.ends_with(']')
            } else {
                !before.contains(':')
            }
    });
    if has_port {
        name.to_string()
    } else if name.contains(':') && !bracketed {
        format!("[{name}]:{port}")
    } else {
        format!("{name}:{port}")
    }
}

/// Splits `a=1&b=x%20y` into decoded pairs.
pub fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(key), decode(value))
        })
        .collect()
}

/// Decodes `%XX` and `+` in a query word.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'+' => out.push(b' '),
            b'%' if index + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[index + 1..index + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(byte) => {
                        out.push(byte);
                        index += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        index += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_words_are_decoded() {
        assert_eq!(
            parse_query("since=12&name=a%20b+c&flag"),
            [
                ("since".to_string(), "12".to_string()),
                ("name".to_string(), "a b c".to_string()),
                ("flag".to_string(), String::new()),
            ]
        );
    }

    #[test]
    fn an_error_is_an_object_with_its_message() {
        let answer = Answer::error(400, "a \"quoted\" word");
        assert_eq!(answer.status, 400);
        assert_eq!(answer.body, r#"{"error":"a \"quoted\" word"}"#);
    }

    #[test]
    fn hosts_get_the_port_and_ipv6_its_brackets() {
        let allowed = [
            "LocalHost".to_string(),
            "::1".to_string(),
            "gui.lan:9000".to_string(),
        ];
        let hosts = Hosts::new("127.0.0.1:8711", "127.0.0.1", 8711, &allowed).unwrap();
        assert_eq!(
            hosts.names,
            [
                "127.0.0.1:8711",
                "localhost:8711",
                "[::1]:8711",
                "gui.lan:9000"
            ]
        );
        let hosts = Hosts::new("[::1]:80", "::1", 80, &[]).unwrap();
        assert_eq!(hosts.names, ["[::1]", "[::1]:80"]);
        let refused = Hosts::new("127.0.0.1:1", "127.0.0.1", 1, &["a/b".to_string()]);
        assert!(refused.unwrap_err().contains("--allow-host"));
    }

    #[test]
    fn only_one_good_host_and_origin_pass() {
        let hosts = Hosts::new("127.0.0.1:8711", "127.0.0.1", 8711, &[]).unwrap();
        let good = ("Host", "127.0.0.1:8711");
        let own = ("Origin", "http://127.0.0.1:8711");
        let foreign = ("Origin", "http://evil.example");
        let passes = |method, headers: &[(&str, &str)]| {
            hosts.check(&Request::new(method, "/", headers)).is_ok()
        };
        assert!(passes(Method::Get, &[good]));
        assert!(passes(Method::Head, &[good, own]));
        assert!(passes(Method::Post, &[good, own]));
        assert!(passes(
            Method::Post,
            &[
                ("host", "127.0.0.1:8711"),
                ("origin", "HTTP://127.0.0.1:8711")
            ]
        ));
        assert!(!passes(Method::Get, &[]));
        assert!(!passes(Method::Get, &[good, good]));
        assert!(!passes(Method::Get, &[("Host", "evil.example:8711")]));
        assert!(!passes(Method::Get, &[good, foreign]));
        assert!(!passes(Method::Post, &[good]));
        assert!(!passes(
            Method::Post,
            &[good, ("Referer", "http://127.0.0.1:8711/")]
        ));
        assert!(!passes(Method::Post, &[good, own, own]));
        assert!(!passes(Method::Post, &[good, own, foreign]));
        assert!(!passes(Method::Other, &[good]));
        let refusal = hosts.check(&Request::new(Method::Post, "/", &[good, foreign]));
        assert_eq!(refusal.err().map(|answer| answer.status), Some(403));
    }
}
