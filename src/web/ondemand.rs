//! The page's side of the on-demand module: a Web Worker (Trunk builds
//! `src/bin/worker.rs` beside the page: a loader, its glue and Wasm, named
//! by their content after the build, `scripts/worker-names.sh`) started on the first request and kept. It
//! computes what
//! the first answer does not need (`core::ondemand`: the launch texts, the
//! CSV export), so that this module does not link that code.
//!
//! Each request is sent as `<id>\n<request>`; the reply comes back as
//! `<id>\n<reply>`. The worker says `ready` once its Wasm runs; requests
//! made before are queued. A worker that fails to load (offline, file
//! missing) fails every waiting request with the reason and is dropped, so
//! that the next request tries again. A leaf: of the shell it imports
//! only `dom`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::dom;
use crate::core::catalog::Date;
use crate::core::config::Config;
use crate::core::link;
use crate::core::ondemand::request;

/// The worker's loader, next to index.html, as Trunk names it (by the
/// binary's name, without a hash) when `scripts/worker-names.sh` has not
/// run (a build outside Trunk's hooks).
const LOADER: &str = "whichgpu-worker_loader.js";

/// The loader's file name: the one the build wrote into index.html
/// (`<meta name="whichgpu-worker">`, named by the worker's content, so that
/// a cached worker of an older build is never started), else `LOADER`. Only
/// a plain file name of the worker's is taken.
fn loader() -> String {
    dom::meta_content("whichgpu-worker")
        .filter(|n| {
            n.starts_with("whichgpu-worker")
                && n.ends_with("_loader.js")
                && n.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
        })
        .unwrap_or_else(|| LOADER.to_string())
}

struct Conn {
    worker: web_sys::Worker,
    ready: bool,
    /// Requests written before the worker was ready.
    queue: Vec<String>,
    /// Each waiting request's promise callbacks (resolve, reject).
    waiting: HashMap<u32, (js_sys::Function, js_sys::Function)>,
    next: u32,
}

thread_local! {
    static CONN: RefCell<Option<Conn>> = const { RefCell::new(None) };
}

/// Where the page is, as a directory (the worker's files are there).
fn base_dir() -> String {
    let base = dom::location_base();
    base.rfind('/').map_or(base.clone(), |i| base.get(..=i).unwrap_or_default().to_string())
}

/// Fails every waiting request and forgets the worker.
fn fail_all(why: &str) {
    let conn = CONN.with(|c| c.borrow_mut().take());
    if let Some(conn) = conn {
        conn.worker.terminate();
        for (_, (_, reject)) in conn.waiting {
            let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(why));
        }
    }
}

fn on_message(e: web_sys::MessageEvent) {
    let data = e.data().as_string().unwrap_or_default();
    if data == "ready" {
        CONN.with(|c| {
            if let Some(conn) = c.borrow_mut().as_mut() {
                conn.ready = true;
                for r in conn.queue.drain(..) {
                    let _ = conn.worker.post_message(&JsValue::from_str(&r));
                }
            }
        });
        return;
    }
    let (id, reply) = data.split_once('\n').unwrap_or((data.as_str(), ""));
    let Ok(id) = id.parse::<u32>() else { return };
    let resolve = CONN.with(|c| c.borrow_mut().as_mut().and_then(|conn| conn.waiting.remove(&id)));
    if let Some((resolve, _)) = resolve {
        let _ = resolve.call1(&JsValue::NULL, &JsValue::from_str(reply));
    }
}

fn start() -> Result<Conn, String> {
    let loader = loader();
    let worker = web_sys::Worker::new(&format!("{}{loader}", base_dir()))
        .map_err(|e| e.as_string().unwrap_or_else(|| "the worker did not start".into()))?;
    let message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(on_message);
    worker.set_onmessage(Some(message.as_ref().unchecked_ref()));
    message.forget();
    let error = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
        e.prevent_default();
        fail_all(&format!("{loader} did not load"));
    });
    worker.set_onerror(Some(error.as_ref().unchecked_ref()));
    error.forget();
    Ok(Conn { worker, ready: false, queue: Vec::new(), waiting: HashMap::new(), next: 0 })
}

/// Sends one request to the worker (started on first use) and waits for
/// its reply, or for why there is none.
pub async fn ask(request: String) -> Result<String, String> {
    let mut fail = None;
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        let sent = CONN.with(|c| {
            let mut c = c.borrow_mut();
            if c.is_none() {
                *c = Some(start()?);
            }
            let conn = c.as_mut().ok_or("no worker")?;
            let id = conn.next;
            conn.next = conn.next.wrapping_add(1);
            conn.waiting.insert(id, (resolve, reject));
            let msg = format!("{id}\n{request}");
            if conn.ready {
                conn.worker
                    .post_message(&JsValue::from_str(&msg))
                    .map_err(|_| "the worker refused the request".to_string())?;
            } else {
                conn.queue.push(msg);
            }
            Ok::<(), String>(())
        });
        fail = sent.err();
    });
    if let Some(why) = fail {
        return Err(why);
    }
    let reply = wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map_err(|e| e.as_string().unwrap_or_else(|| "the worker failed".into()))?;
    Ok(reply.as_string().unwrap_or_default())
}

/// What the worker needs to rebuild the page's answer: the day, the
/// configuration and the imported offers file (none: the bundled catalog).
#[derive(Clone, PartialEq)]
pub struct Job {
    pub today: Date,
    pub cfg: Config,
    pub import: Option<Rc<str>>,
}

impl Job {
    /// The request of `kind` (`core::ondemand::request`); `sources` is the
    /// address of the page's `offers.csv` (the CSV export's `source`).
    pub fn request(&self, kind: &str, sources: &str) -> String {
        request(
            kind,
            self.today,
            &link::encode(&self.cfg),
            sources,
            self.import.as_deref().unwrap_or_default(),
        )
    }
}
