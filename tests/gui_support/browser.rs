//! A headless Chromium driven over chromedriver's W3C WebDriver HTTP API,
//! for the GUI's browser tests: starting both, opening the page, clicking,
//! typing, waiting for what the page shows, and screenshots under
//! target/gui-screenshots/.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{http, parse, Guard};

/// How long any one wait may take before the test fails: generous, since
/// the machine may be shared; the waits end as soon as the page is ready.
pub const WAIT: Duration = Duration::from_secs(30);

/// The W3C name of an element reference in WebDriver answers.
pub const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

pub fn on_path(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|directory| directory.join(program))
            .find(|candidate| candidate.is_file())
    })
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port")
}

/// The string at `pointer` (`/value/sessionId`) in a JSON value.
pub fn text_at(value: &Value, pointer: &str) -> String {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no string at {pointer}: {value}"))
        .to_string()
}

pub fn base64_decode(text: &str) -> Vec<u8> {
    let value = |byte: u8| match byte {
        b'A'..=b'Z' => Some(byte - b'A'),
        b'a'..=b'z' => Some(byte - b'a' + 26),
        b'0'..=b'9' => Some(byte - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let digits: Vec<u8> = text.bytes().filter_map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let bits = chunk
            .iter()
            .enumerate()
            .fold(0u32, |bits, (index, &digit)| {
                bits | (digit as u32) << (18 - 6 * index)
            });
        let bytes = bits.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}

/// A WebDriver session.
pub struct Browser {
    pub port: u16,
    pub session: String,
    pub screenshots: PathBuf,
}

impl Browser {
    /// One WebDriver command of this session; its answer.
    pub fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let path = format!("/session/{}{path}", self.session);
        let body = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        let (status, answer) = http(self.port, method, &path, &body)
            .unwrap_or_else(|error| panic!("webdriver {method} {path}: {error}"));
        assert_eq!(status, 200, "webdriver {method} {path} {body}: {answer}");
        parse(&answer)
    }

    pub fn open(&self, url: &str) {
        self.call("POST", "/url", json!({ "url": url }));
    }

    /// Runs a script that returns a string.
    pub fn script(&self, script: &str) -> String {
        let answer = self.call(
            "POST",
            "/execute/sync",
            json!({ "script": script, "args": [] }),
        );
        answer["value"].as_str().unwrap_or_default().to_string()
    }

    /// Waits until `script` returns "yes"; fails with `what` and the page's
    /// status and message otherwise.
    pub fn wait_for(&self, what: &str, script: &str) {
        let deadline = Instant::now() + WAIT;
        while Instant::now() < deadline {
            if self.script(script) == "yes" {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let page = self.script(
            "return document.getElementById('status').textContent + ' | ' + document.getElementById('message').textContent",
        );
        self.screenshot("failure");
        panic!("timed out waiting for {what}; the page says: {page}");
    }

    pub fn element(&self, selector: &str) -> String {
        let answer = self.call(
            "POST",
            "/element",
            json!({ "using": "css selector", "value": selector }),
        );
        text_at(&answer, &format!("/value/{ELEMENT_KEY}"))
    }

    pub fn click(&self, selector: &str) {
        let id = self.element(selector);
        self.call("POST", &format!("/element/{id}/click"), json!({}));
    }

    /// Clicks a board element once the page offers it (it glows).
    pub fn click_choosable(&self, key: &str) {
        let selector = format!("[data-key=\"{key}\"].choosable");
        self.wait_for(
            &format!("{key} to be choosable"),
            &format!("return document.querySelector('{selector}') ? 'yes' : 'no'"),
        );
        self.click(&selector);
    }

    pub fn type_into(&self, selector: &str, text: &str) {
        let id = self.element(selector);
        self.call("POST", &format!("/element/{id}/clear"), json!({}));
        self.call(
            "POST",
            &format!("/element/{id}/value"),
            json!({ "text": text }),
        );
    }

    /// Gives the file input at `selector` the file at `path`, as a person
    /// choosing it does (a file input takes no clear).
    pub fn upload(&self, selector: &str, path: &std::path::Path) {
        let id = self.element(selector);
        self.call(
            "POST",
            &format!("/element/{id}/value"),
            json!({ "text": path.display().to_string() }),
        );
    }

    pub fn press(&self, key: char) {
        let key = key.to_string();
        let keys = [
            json!({ "type": "keyDown", "value": key }),
            json!({ "type": "keyUp", "value": key }),
        ];
        let actions = json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": keys }] });
        self.call("POST", "/actions", actions);
    }

    pub fn screenshot(&self, name: &str) {
        let answer = self.call("GET", "/screenshot", Value::Null);
        let png = base64_decode(&text_at(&answer, "/value"));
        assert!(png.starts_with(b"\x89PNG"), "the screenshot is not a PNG");
        let path = self.screenshots.join(format!("{name}.png"));
        std::fs::write(&path, png).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    }

    /// Opens the page at `url` and waits for its first state, the status
    /// line filled in, so that a test starts on a page ready for input.
    pub fn open_page(&self, url: &str) {
        self.open(url);
        self.wait_for(
            "the first state",
            "return document.getElementById('status').textContent ? 'yes' : 'no'",
        );
    }

    /// The text of the element with this `id`, what a person reads there.
    pub fn text_of(&self, id: &str) -> String {
        self.script(&format!(
            "return document.getElementById('{id}').textContent"
        ))
    }

    pub fn status_number(&self, field: &str) -> usize {
        self.script(&format!(
            "return document.getElementById('status').dataset.{field} || ''"
        ))
        .parse()
        .unwrap_or(usize::MAX)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = http(
            self.port,
            "DELETE",
            &format!("/session/{}", self.session),
            "",
        );
    }
}

/// The token of the first legal action on the page whose SDG text starts
/// with `verb`, and that text.
pub fn first_action(browser: &Browser, verb: &str) -> (String, String) {
    browser.wait_for(
        &format!("a legal {verb}"),
        &format!("return [...document.querySelectorAll('#choices button')].some(b => b.textContent.startsWith('{verb}')) ? 'yes' : 'no'"),
    );
    let found = browser.script(&format!(
        "const b = [...document.querySelectorAll('#choices button')].find(b => b.textContent.startsWith('{verb}')); return b.dataset.token + '|' + b.textContent"
    ));
    let (token, text) = found.split_once('|').expect("token|text");
    (token.to_string(), text.to_string())
}

/// Starts chromedriver on a free port and a headless Chromium session in
/// it, whose screenshots go to target/gui-screenshots/.
pub fn start_browser(chromium: &Path, chromedriver: &Path) -> (Guard, Browser) {
    let screenshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/gui-screenshots");
    std::fs::create_dir_all(&screenshots).unwrap();
    let driver_port = free_port();
    let driver = Command::new(chromedriver)
        .arg(format!("--port={driver_port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Guard(driver);
    let deadline = Instant::now() + WAIT;
    let ready =
        |body: &str| serde_json::from_str::<Value>(body).is_ok_and(|v| v["value"]["ready"] == true);
    while !matches!(http(driver_port, "GET", "/status", ""), Ok((200, body)) if ready(&body)) {
        assert!(Instant::now() < deadline, "chromedriver did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    let arguments = [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
    ];
    let capabilities = json!({ "capabilities": { "alwaysMatch": {
        "browserName": "chrome",
        "goog:chromeOptions": { "binary": chromium.display().to_string(), "args": arguments },
    } } });
    let (status, answer) =
        http(driver_port, "POST", "/session", &capabilities.to_string()).unwrap();
    assert_eq!(status, 200, "new session: {answer}");
    let browser = Browser {
        port: driver_port,
        session: text_at(&parse(&answer), "/value/sessionId"),
        screenshots,
    };
    (driver, browser)
}

/// Chromium and chromedriver when both are on PATH. Without them a test
/// is skipped with a message, unless CI=true, where it fails (.ci/run
/// installs them).
pub fn browser_tools() -> Option<(PathBuf, PathBuf)> {
    let in_ci = std::env::var("CI").is_ok_and(|value| value == "true");
    let (Some(chromium), Some(chromedriver)) = (on_path("chromium"), on_path("chromedriver"))
    else {
        assert!(
            !in_ci,
            "CI=true but chromium and chromedriver are not on PATH (.ci/run installs them)"
        );
        eprintln!("skipping the browser test: chromium and chromedriver are not on PATH (apt-get install chromium chromium-driver)");
        return None;
    };
    Some((chromium, chromedriver))
}
