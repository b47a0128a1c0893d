//! The HTTP side of the GUI, apart from what the requests mean: reading a
//! body within its limit, refusing changes from other sites' pages, query
//! words, and writing an [`Answer`] back.

use std::io::Read;

use serde::Serialize;
use tiny_http::{Header, Request, Response};

use super::api::ErrorReply;

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

    /// Sends the answer; a page that went away (closed socket) is no error
    /// of ours.
    pub fn send(self, request: Request) {
        let mut response = Response::from_string(self.body).with_status_code(self.status);
        let disposition = self.download.map(|file| {
            (
                "Content-Disposition",
                format!("attachment; filename=\"{file}\""),
            )
        });
        for (name, value) in [
            ("Content-Type", self.content_type.to_string()),
            ("Cache-Control", "no-store".to_string()),
        ]
        .into_iter()
        .chain(disposition)
        {
            if let Ok(header) = Header::from_bytes(name.as_bytes(), value.as_bytes()) {
                response.add_header(header);
            }
        }
        let _ = request.respond(response);
    }
}

/// Whether a request comes from the GUI's own page, or from no page at all
/// (a command-line client): a browser names the page that sent a POST in
/// `Origin`, and another site's page must not drive the engines or change
/// the game behind the person's back.
pub fn same_origin(request: &Request) -> bool {
    let header = |name: &str| {
        request
            .headers()
            .iter()
            .find(|header| header.field.as_str().as_str().eq_ignore_ascii_case(name))
            .map(|header| header.value.as_str().to_string())
    };
    match (header("Origin"), header("Host")) {
        (None, _) => true,
        (Some(origin), Some(host)) => origin.strip_prefix("http://").unwrap_or(&origin) == host,
        (Some(_), None) => false,
    }
}

/// Reads the body, at most [`MAX_BODY_BYTES`].
///
/// # Errors
/// The answer for a body too large or unreadable.
pub fn read_body(request: &mut Request) -> Result<String, Answer> {
    let too_large = || {
        Answer::error(
            413,
            &format!("the upload is larger than {} KiB", MAX_BODY_BYTES / 1024),
        )
    };
    if request
        .body_length()
        .is_some_and(|length| length > MAX_BODY_BYTES)
    {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    let read = request
        .as_reader()
        .take(MAX_BODY_BYTES as u64 + 1)
        .read_to_end(&mut bytes);
    if read.is_err() {
        return Err(Answer::error(400, "the request could not be read"));
    }
    if bytes.len() > MAX_BODY_BYTES {
        return Err(too_large());
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
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
}
