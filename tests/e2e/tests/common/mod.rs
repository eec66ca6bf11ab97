//! The harness both end-to-end test files share: a static server for
//! `dist/` on 127.0.0.1 (plus a host page that embeds the calculator), a
//! chromedriver they start and stop, and a headless Chromium session.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::{Client, ClientBuilder, Locator};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A host page that embeds the calculator and records the heights it posts.
const HOST: &str = r#"<!DOCTYPE html><html><body><iframe id="f" src="/?embed=1" style="width:600px;border:0"></iframe>
<script>window.heights=[];addEventListener("message",e=>{if(e.data&&e.data.type==="whichgpu:height")window.heights.push(e.data.height)})</script></body></html>"#;

/// A minimal static file server for `dist/` on 127.0.0.1 (one thread).
pub fn serve(dir: PathBuf) -> u16 {
    serve_with(dir, false)
}

/// The same server, sending every file gzip-compressed (`gzip -9`, as
/// `scripts/size.sh` counts it) to a browser that accepts it, as a static
/// host does: for timings under network emulation, where the bytes on the
/// wire are what the time is made of.
pub fn serve_gzip(dir: PathBuf) -> u16 {
    serve_with(dir, true)
}

fn serve_with(dir: PathBuf, gzip: bool) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let dir = dir.clone();
            std::thread::spawn(move || handle(stream, &dir, gzip));
        }
    });
    port
}

/// `bytes` through `gzip -9`, or `None` where that fails.
fn gzip9(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut child =
        Command::new("gzip").arg("-9c").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().ok()?;
    let mut stdin = child.stdin.take()?;
    let input = bytes.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    out.status.success().then_some(out.stdout)
}

fn handle(mut stream: TcpStream, dir: &Path, gzip: bool) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let mut accepts_gzip = false;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).map(|n| n == 0).unwrap_or(true) || h == "\r\n" {
            break;
        }
        let h = h.to_ascii_lowercase();
        accepts_gzip |= h.starts_with("accept-encoding:") && h.contains("gzip");
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").split('?').next().unwrap_or("/").to_string();
    let (status, body, ctype) = if path == "/__host.html" {
        ("200 OK", HOST.as_bytes().to_vec(), "text/html")
    } else {
        let rel =
            if path == "/" { "index.html".to_string() } else { path.trim_start_matches('/').to_string() };
        let file = dir.join(&rel);
        let ctype = match file.extension().and_then(|e| e.to_str()) {
            Some("html") => "text/html; charset=utf-8",
            Some("js") => "text/javascript",
            Some("wasm") => "application/wasm",
            Some("css") => "text/css",
            _ => "application/octet-stream",
        };
        match (rel.contains(".."), std::fs::File::open(&file)) {
            (false, Ok(mut f)) => {
                let mut b = Vec::new();
                let _ = f.read_to_end(&mut b);
                ("200 OK", b, ctype)
            }
            _ => ("404 Not Found", b"not found".to_vec(), "text/plain"),
        }
    };
    let (body, encoding) =
        match (gzip && accepts_gzip && status.starts_with("200")).then(|| gzip9(&body)).flatten() {
            Some(z) => (z, "Content-Encoding: gzip\r\n"),
            None => (body, ""),
        };
    // No CSP header: the policy under test is the page's own <meta>.
    let head = format!("HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\n{encoding}Content-Length: {}\r\nConnection: close\r\n\r\n", body.len());
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
}

pub struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("free port")
}

pub async fn browser(width: u32, height: u32) -> (Client, Driver) {
    browser_with(width, height, false).await
}

/// A session whose viewport is exactly `width` × `height` CSS pixels
/// (chromedriver's device metrics: a window cannot be narrower than 500 px,
/// and its size includes the window's frame). Under 768 px it is a phone.
pub async fn viewport(width: u32, height: u32) -> (Client, Driver) {
    browser_with(width, height, true).await
}

async fn browser_with(width: u32, height: u32, exact: bool) -> (Client, Driver) {
    let chromedriver = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "/usr/bin/chromedriver".into());
    let port = free_port();
    let child = Command::new(&chromedriver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {chromedriver}: {e}"));
    let driver = Driver(child);
    let profile = std::env::temp_dir().join(format!("whichgpu-e2e-{port}"));
    let mut caps: serde_json::Map<String, serde_json::Value> = serde_json::from_value(serde_json::json!({
        "goog:chromeOptions": {
            "binary": std::env::var("CHROME").unwrap_or_else(|_| "/usr/bin/chromium".into()),
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                     format!("--user-data-dir={}", profile.display()), format!("--window-size={width},{height}")]
        }
    }))
    .expect("caps");
    if exact {
        if let Some(opts) = caps.get_mut("goog:chromeOptions").and_then(|o| o.as_object_mut()) {
            let metrics = serde_json::json!({ "width": width, "height": height, "pixelRatio": 1.0, "mobile": width < 768, "touch": false });
            opts.insert("mobileEmulation".into(), serde_json::json!({ "deviceMetrics": metrics }));
        }
    }
    let url = format!("http://127.0.0.1:{port}");
    for _ in 0..100 {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        if let Ok(c) = ClientBuilder::new(connector).capabilities(caps.clone()).connect(&url).await {
            return (c, driver);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("chromedriver did not come up on {url}");
}

pub async fn wait_for(c: &Client, css: &str) -> fantoccini::elements::Element {
    c.wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no {css}: {e}"))
}

pub fn dist() -> PathBuf {
    let d = root().join("dist");
    assert!(
        d.join("index.html").exists(),
        "dist/ is missing: run `trunk build --release` (scripts/test.sh does)"
    );
    d
}
