//! The whole answer to a configuration — memory, per-GPU results, ranked
//! offers, recommendation, guidance — as one serializable value: the CLI's
//! JSON (`docs/link-format.md`) and what the page renders. Types only: the
//! pipeline that fills them is [`super::evaluate`]; this module computes
//! nothing and imports nothing above the estimator.

use std::sync::Arc;

use serde::Serialize;

use super::config::{Commit, Currency, Lang, Task};
use super::date::Date;
use super::estimate::ranges::Confidence;
use super::estimate::Bound;
use super::kinds::{AltKind, Objective, UnknownCost};
use super::messages::Msg;
use super::money::Display;
use super::notice::Notice;
use super::settings::Settings;

#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct MemoryJson {
    pub weights_bytes: f64,
    pub kv_cache_bytes: f64,
    pub activations_bytes: f64,
    pub gradients_bytes: f64,
    pub optimizer_bytes: f64,
    pub overhead_bytes: f64,
    pub total_bytes: f64,
    pub total_bytes_low: f64,
    pub total_bytes_high: f64,
    pub reserved_bytes: f64,
    /// Concurrent sequences (serving), images per batch or micro-batch the
    /// breakdown assumes: the pick's own, unless the link sets `gpus`.
    pub batch: f64,
    /// GPUs this breakdown is for (the configuration's `gpus` × `nodes`).
    pub gpus: u32,
    /// The GPU type whose capacity `reserved_bytes` assumes.
    pub gpu: String,
    pub capacity_bytes: f64,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct GpuResult {
    pub gpu: String,
    pub gpu_name: String,
    pub gpus: u32,
    pub nodes: u32,
    pub batch: f64,
    /// Memory only: the plan fits in what the driver reports, under the engine's budget.
    pub fits: bool,
    /// The deadline (`days`) and the SLA (`mintps`) hold; true when none is set.
    pub meets: bool,
    /// Why it does not fit or meet (English; the page renders by key).
    #[serde(rename = "reasons", serialize_with = "english")]
    pub reason_msgs: Vec<Msg>,
    pub per_gpu_bytes: f64,
    pub capacity_bytes: f64,
    pub confidence: Confidence,
    pub bound: Bound,
    pub executed_precision: String,
    #[serde(flatten)]
    pub speeds: Speeds,
}

pub use super::speeds::{Range, ServeSpeeds, Speeds, TaskSpeeds, TrainSpeeds};

pub use super::answers::{Answers, Api, Measured, RlAnswer, RlStepAnswer};

#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    pub query: String,
    pub notices: Vec<Notice>,
    pub catalog_as_of: String,
    /// The catalog's newest price is older than six months on the day asked
    /// (`STALE_AFTER_DAYS`, as each offer's `stale` and `whichgpu catalog check`).
    pub catalog_stale: bool,
    /// The currency the page and the text report show money in, with its
    /// rate (the JSON's `usd_*` fields stay in US dollars).
    pub display: Display,
    pub task: Task,
    pub model: String,
    pub model_name: String,
    pub architecture_inferred: bool,
    pub weight_format: String,
    /// KV-cache precision in effect (serving).
    pub kv_format: String,
    pub memory: MemoryJson,
    pub results: Vec<GpuResult>,
    pub answers: Answers,
    pub offers: Vec<OfferResult>,
    pub recommendation: Option<Recommendation>,
    pub guidance: Vec<GuidanceItem>,
    /// Single changes to the link that the plan rates better on the
    /// user's objective (the what-if strip and the guidance's suggestions).
    pub whatif: Vec<Change>,
    /// Your measurement (`measured`, `measured_ttft`) against the estimate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<Measured>,
    /// Serving: the same load on the cheapest hosted API for the model
    /// (native builds: the CLI and its JSON; `evaluate::api`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api: Option<Api>,
    /// True when nothing in the query was usable (the CLI exits 2).
    #[serde(skip)]
    pub unusable: bool,
    /// Serving: the tokens one request holds, as the plan sized it —
    /// prompt, image tokens and output (`ServeJob::context_tokens`); the
    /// launch texts' context flags are this, never re-derived.
    #[serde(skip)]
    pub request_tokens: Option<u64>,
    /// The settings the answer was made from (what `resolve` settled on):
    /// the launch texts, the form's price column and the CLI's language
    /// read them here instead of decoding `query` again.
    #[serde(skip)]
    pub settings: Settings,
}

/// An answer is a function of its normalized query, its notices and the
/// catalog, so those decide equality (the page re-renders only on change).
impl Answer {
    /// An answer with its heading (link, notices, catalog date, task, model,
    /// format) and nothing estimated yet.
    pub fn empty(
        query: String,
        settings: Settings,
        notices: Vec<Notice>,
        catalog_as_of: Date,
        model: (&str, &str, bool),
        weight_format: &str,
    ) -> Answer {
        let (id, name, inferred) = model;
        let task = settings.task;
        Answer {
            query,
            notices,
            catalog_as_of: catalog_as_of.to_string(),
            catalog_stale: false,
            display: Display::default(),
            task,
            model: id.to_string(),
            model_name: name.to_string(),
            architecture_inferred: inferred,
            weight_format: weight_format.to_string(),
            memory: MemoryJson::default(),
            results: Vec::new(),
            answers: Answers::default(),
            offers: Vec::new(),
            recommendation: None,
            guidance: Vec::new(),
            whatif: Vec::new(),
            measured: None,
            api: None,
            kv_format: String::new(),
            unusable: false,
            request_tokens: None,
            settings,
        }
    }
}

/// Two answers are the same when the link, the notices, the catalog's date
/// and the offers shown (each offer's id, size, price and source) are: an
/// imported catalog with the same link and date but other offers or prices
/// is another answer, and the page redraws it.
impl PartialEq for Answer {
    fn eq(&self, other: &Self) -> bool {
        let same_offer = |a: &OfferResult, b: &OfferResult| {
            a.id == b.id
                && a.gpus == b.gpus
                && a.instances == b.instances
                && a.usd_per_hour.to_bits() == b.usd_per_hour.to_bits()
                && a.source == b.source
        };
        self.query == other.query
            && self.notices == other.notices
            && self.catalog_as_of == other.catalog_as_of
            && self.offers.len() == other.offers.len()
            && self.offers.iter().zip(&other.offers).all(|(a, b)| same_offer(a, b))
    }
}

/// One offer's answer: the offer, the plan it runs (layout, replicas,
/// batch), its speeds and its bill.
#[derive(Debug, Clone, Serialize)]
pub struct OfferResult {
    pub id: Arc<str>,
    pub provider: Arc<str>,
    pub instance: Arc<str>,
    pub region: Arc<str>,
    pub gpu: Arc<str>,
    pub gpus: u32,
    pub instances: u32,
    /// Independent copies of the model over all the instances the offer
    /// rents, behind a load balancer (training: 1; its data parallelism is `dp`).
    pub replicas: u32,
    pub tp: u32,
    /// Pipeline stages and data-parallel replicas of one training job
    /// (serving: pipeline stages across instances; `dp` the data-parallel
    /// attention ranks of `tp` GPUs each, 1 under tensor parallelism alone).
    pub pp: u32,
    pub dp: u32,
    /// Serving: the routed experts dealt out whole over the copy's GPUs
    /// (expert parallel) instead of each expert's width split; absent when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ep: bool,
    /// The ZeRO / FSDP stage of a training plan (absent for other tasks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zero: Option<u8>,
    /// Sequences per replica (serving), images per batch (generation) or
    /// the micro-batch (training) this plan assumes.
    pub batch: f64,
    /// Memory only: each GPU's share fits in what the driver reports.
    pub fits: bool,
    /// The deadline (`days`), the SLA (`mintps`) and the budget (`maxusd`) hold.
    pub meets: bool,
    /// The layout in words ("3 × 1×A40 replicas behind a load balancer").
    #[serde(rename = "layout", serialize_with = "english_one")]
    pub layout_msg: Msg,
    pub headroom_bytes: f64,
    /// Bytes per GPU this plan needs, and what the GPU offers for it.
    pub need_bytes: f64,
    pub usable_bytes: f64,
    pub spot: bool,
    /// The price term applied: `none` (on-demand) or a `commit` id.
    pub commitment: Commit,
    /// Parts of the bill the provider does not publish or bills beside the
    /// GPU price: `storage`, `egress`, `billing_increment`, `host`.
    pub unknown_costs: Vec<UnknownCost>,
    pub interconnect: &'static str,
    pub confidence: Confidence,
    #[serde(flatten)]
    /// Boxed: the results are moved while ranking, and this is most of their size.
    pub speeds: Box<Speeds>,
    pub usd_per_hour: f64,
    /// The host's CPU and memory billed beside the GPUs at the provider's
    /// published rates (included in `usd_per_hour`); absent where the host
    /// is included in the price or its rates are unpublished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_usd_per_hour: Option<f64>,
    /// Seconds a job on this offer pays before its work, included in its
    /// hours: provisioning, the engine image's pull, a one-off run's weights
    /// download, reading the weights and starting the engine. Jobs on
    /// instances only (a serverless job pays `cold_start_s` instead).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub startup_s: Option<f64>,
    pub usd_per_month: f64,
    /// The currency the offer is priced in (every `usd_*` field is in US
    /// dollars, converted at the catalog's dated rate where this is not `usd`).
    pub currency: Currency,
    /// A serverless platform (per-second workers that scale to zero).
    pub serverless: bool,
    /// Serverless: seconds billed for each start from zero (the platform's
    /// documented cold start plus loading the model and starting the
    /// engine), and the starts a month the bill counts.
    pub cold_start_s: Option<f64>,
    pub cold_starts_per_month: f64,
    /// Hours a month the offer works, and the hours billed for them
    /// (increments, minimums, restarts on spot, committed terms).
    pub busy_hours_per_month: f64,
    pub billed_hours_per_month: f64,
    /// The same plan on the offer's published 1-year term: $ per month
    /// (every hour billed), where the provider publishes one.
    pub committed_1yr_usd_per_month: Option<f64>,
    pub usd_per_job: Option<f64>,
    pub usd_per_million_output_tokens: Option<f64>,
    pub usd_per_1000_images: Option<f64>,
    pub usd_per_audio_hour: Option<f64>,
    pub usd_per_clip: Option<f64>,
    pub storage_usd_per_month: f64,
    pub egress_usd_per_month: f64,
    pub price_overridden: bool,
    pub price_as_of: Date,
    pub stale: bool,
    /// Priced in yuan by a China-region platform while the display currency
    /// is the dollar: ranked after offers priced in dollars (see
    /// `offers::rank`); not serialized, the reasons say it.
    #[serde(skip)]
    pub foreign: bool,
    /// Fits on a thin memory margin where running short crashes the job
    /// (`offers::thin_margin`): ranked after offers with room, like a stale
    /// price; not serialized, the reasons say it.
    #[serde(skip)]
    pub thin: bool,
    /// Needs something of the instance the provider does not publish (the
    /// CPU memory offloaded training states take): ranked after offers that
    /// publish enough, like a stale price; not serialized, the reasons say it.
    #[serde(skip)]
    pub unverified: bool,
    /// Runs, but on a margin a practitioner would not rent for the
    /// cheapest price alone (`offers::fragility`: under 10 % of the GPU's
    /// usable memory to spare, or tensor parallelism over PCIe on cards
    /// without peer-to-peer): passed over for a sturdy offer within 25 %
    /// of its cost (`offers::rank`); not serialized, the reasons say it.
    #[serde(skip)]
    pub fragile: bool,
    /// CPU memory each instance needs for offloaded training states
    /// (bytes; the launch asks SkyPilot for it); not serialized, the
    /// guidance says it.
    #[serde(skip)]
    pub host_bytes: Option<f64>,
    pub source: Arc<str>,
    /// Rendered in English only when serialized (the page renders by key).
    #[serde(rename = "reasons", serialize_with = "english")]
    pub reason_msgs: Vec<Msg>,
    #[serde(skip)]
    pub throughput_total: f64,
    /// What "fastest" means for the task: decode tokens/s per sequence
    /// (serving), training tokens/s of the whole job, items per hour.
    #[serde(skip)]
    pub speed_score: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Pick {
    pub offer: Arc<str>,
    pub why: AltKind,
    #[serde(rename = "reasons", serialize_with = "english")]
    pub reason_msgs: Vec<Msg>,
}

impl Pick {
    /// The text key of an alternative's label (`why.cheapest`…), as the
    /// page and the text report show it.
    pub fn why_key(&self) -> &'static str {
        self.why.msg_key()
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Recommendation {
    /// The quantity the offers are ranked on (an offer field, or a speed).
    pub objective: Objective,
    pub pick: Pick,
    pub alternatives: Vec<Pick>,
}

fn english_one<S: serde::Serializer>(msg: &Msg, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&msg.render(Lang::En))
}

fn english<S: serde::Serializer>(msgs: &[Msg], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(msgs.iter().map(|m| m.render(Lang::En)))
}

/// The text of reasons in a language, joined (the CLI's report).
pub fn reasons(msgs: &[Msg], lang: Lang) -> String {
    msgs.iter().map(|m| m.render(lang)).collect::<Vec<_>>().join("; ")
}

/// One change to the link and what it would give: the pick's value on the
/// objective before and after.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Change {
    pub key: &'static str,
    pub value: String,
    /// The whole link with the change applied.
    pub query: String,
    pub objective: Objective,
    pub before: f64,
    pub after: f64,
    /// The plan rates it better on the objective.
    pub better: bool,
    /// A published quality cost of a lower-precision format, by message key.
    #[serde(skip)]
    pub quality: Option<Msg>,
}

/// One FAQ answer or note, by message key (the page renders either language).
/// The English title and text are rendered when read or serialized, not
/// when the answer is built: the page renders the messages in its own
/// language and never reads them.
#[derive(Debug, Clone)]
pub struct GuidanceItem {
    pub id: &'static str,
    pub title_msg: Option<Msg>,
    pub msg: Msg,
}

impl GuidanceItem {
    pub fn new(id: &'static str, title: Option<&'static str>, msg: Msg) -> GuidanceItem {
        GuidanceItem { id, title_msg: title.map(Msg::new), msg }
    }

    /// The title in English, if the item has one.
    pub fn title(&self) -> Option<String> {
        self.title_msg.as_ref().map(|m| m.render(Lang::En))
    }

    /// The text in English.
    pub fn text(&self) -> String {
        self.msg.render(Lang::En)
    }
}

/// `{"id", "title" (when there is one), "text"}`, in English.
impl Serialize for GuidanceItem {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let title = self.title();
        let mut st = s.serialize_struct("GuidanceItem", 2 + usize::from(title.is_some()))?;
        st.serialize_field("id", self.id)?;
        match &title {
            Some(t) => st.serialize_field("title", t)?,
            None => st.skip_field("title")?,
        }
        st.serialize_field("text", &self.text())?;
        st.end()
    }
}

impl Answer {
    /// The recommended offer, if any.
    pub fn pick(&self) -> Option<&OfferResult> {
        let id = &self.recommendation.as_ref()?.pick.offer;
        self.offers.iter().find(|o| o.id == *id)
    }
}
