//! Speeds as types: a [`Range`] (likely, low, high) for every estimated
//! figure, and one enum variant per task instead of one struct of optional
//! fields. The JSON keeps its flat field names (`decode_tokens_per_s_per_seq`
//! with `_low` and `_high` siblings…): [`Speeds`] serializes as a map that the
//! answer flattens. Types and their serialization only; no estimate here.

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::estimate::ranges::Spread;

/// An estimated figure and its spread.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Range {
    pub likely: f64,
    pub low: f64,
    pub high: f64,
}

impl Range {
    /// A rate (larger is faster) with its spread.
    pub fn rate(likely: f64, s: Spread) -> Range {
        Range { likely, low: likely * s.low, high: likely * s.high }
    }

    /// A time, which scales inversely with a rate's spread.
    pub fn time(likely: f64, rate_spread: Spread) -> Range {
        Range { likely, low: likely / rate_spread.high, high: likely / rate_spread.low }
    }

    pub fn scale(self, k: f64) -> Range {
        Range { likely: self.likely * k, low: self.low * k, high: self.high * k }
    }

    pub fn shift(self, d: f64) -> Range {
        Range { likely: self.likely + d, low: self.low + d, high: self.high + d }
    }
}

/// Serving a language model: one copy's speeds at its batch; the totals
/// cover every copy the users keep busy.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ServeSpeeds {
    pub decode_per_seq: Range,
    pub decode_total: Range,
    pub prefill: Range,
    pub time_to_first_token: Range,
    pub request_latency: Range,
    /// Output tokens/s of one copy with the prompts' prefill included.
    pub output_per_s: Option<f64>,
    /// The same over every busy copy (offers only).
    pub output_total: Option<f64>,
}

/// Training: the job's rate and layout.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TrainSpeeds {
    /// Tokens/s of the whole job; `None` where the time is not estimated
    /// (image-model training).
    pub tokens_per_s: Option<Range>,
    pub dp: u32,
    pub tp: u32,
    pub pp: u32,
}

/// Per task, the speeds that apply.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum TaskSpeeds {
    #[default]
    None,
    Serve(ServeSpeeds),
    Train(TrainSpeeds),
    Image {
        seconds_per_image: Range,
        images_per_hour: f64,
    },
    Clip {
        seconds_per_clip: Range,
    },
    Audio {
        realtime_factor: Range,
    },
}

/// A task's speeds and, where the bill knows it, the length of one job.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Speeds {
    pub task: TaskSpeeds,
    pub job_hours: Option<Range>,
    pub job_gpu_hours: Option<f64>,
}

impl Speeds {
    pub fn of(task: TaskSpeeds) -> Speeds {
        Speeds { task, job_hours: None, job_gpu_hours: None }
    }

    fn serve(&self) -> Option<&ServeSpeeds> {
        match &self.task {
            TaskSpeeds::Serve(s) => Some(s),
            _ => None,
        }
    }

    fn train(&self) -> Option<&TrainSpeeds> {
        match &self.task {
            TaskSpeeds::Train(t) => Some(t),
            _ => None,
        }
    }

    pub fn decode_tokens_per_s_per_seq(&self) -> Option<f64> {
        self.serve().map(|s| s.decode_per_seq.likely)
    }
    pub fn decode_tokens_per_s_total(&self) -> Option<f64> {
        self.serve().map(|s| s.decode_total.likely)
    }
    pub fn prefill_tokens_per_s(&self) -> Option<f64> {
        self.serve().map(|s| s.prefill.likely)
    }
    pub fn time_to_first_token_s(&self) -> Option<f64> {
        self.serve().map(|s| s.time_to_first_token.likely)
    }
    pub fn request_latency_s(&self) -> Option<f64> {
        self.serve().map(|s| s.request_latency.likely)
    }
    pub fn output_tokens_per_s(&self) -> Option<f64> {
        self.serve().and_then(|s| s.output_per_s)
    }
    pub fn output_tokens_per_s_total(&self) -> Option<f64> {
        self.serve().and_then(|s| s.output_total)
    }
    pub fn train_tokens_per_s(&self) -> Option<f64> {
        self.train().and_then(|t| t.tokens_per_s).map(|r| r.likely)
    }
    pub fn train_dp(&self) -> Option<u32> {
        self.train().map(|t| t.dp)
    }
    pub fn train_tp(&self) -> Option<u32> {
        self.train().map(|t| t.tp)
    }
    pub fn train_pp(&self) -> Option<u32> {
        self.train().map(|t| t.pp)
    }
    pub fn job_hours(&self) -> Option<f64> {
        self.job_hours.map(|r| r.likely)
    }
    pub fn job_hours_low(&self) -> Option<f64> {
        self.job_hours.map(|r| r.low)
    }
    pub fn job_hours_high(&self) -> Option<f64> {
        self.job_hours.map(|r| r.high)
    }
    pub fn job_gpu_hours(&self) -> Option<f64> {
        self.job_gpu_hours
    }
    pub fn seconds_per_image(&self) -> Option<f64> {
        match self.task {
            TaskSpeeds::Image { seconds_per_image, .. } => Some(seconds_per_image.likely),
            _ => None,
        }
    }
    pub fn images_per_hour(&self) -> Option<f64> {
        match self.task {
            TaskSpeeds::Image { images_per_hour, .. } => Some(images_per_hour),
            _ => None,
        }
    }
    pub fn seconds_per_clip(&self) -> Option<f64> {
        match self.task {
            TaskSpeeds::Clip { seconds_per_clip } => Some(seconds_per_clip.likely),
            _ => None,
        }
    }
    pub fn audio_realtime_factor(&self) -> Option<f64> {
        match self.task {
            TaskSpeeds::Audio { realtime_factor } => Some(realtime_factor.likely),
            _ => None,
        }
    }

    /// Sets the offer's total output rate (a stated request load).
    pub fn with_output_total(mut self, tokens_per_s: f64) -> Speeds {
        if let TaskSpeeds::Serve(s) = &mut self.task {
            s.output_total = (tokens_per_s > 0.0).then_some(tokens_per_s);
        }
        self
    }

    /// A copy that spends `share` of its time prefilling arriving prompts
    /// (`plan::load::little`): its sequences decode in the rest, so each
    /// decode rate scales by 1 − share and a request's decode time by its
    /// inverse; the first token is unchanged.
    pub fn sharing_prefill(mut self, share: f64) -> Speeds {
        if let TaskSpeeds::Serve(s) = &mut self.task {
            let left = (1.0 - share).clamp(1e-6, 1.0);
            s.decode_per_seq = s.decode_per_seq.scale(left);
            s.decode_total = s.decode_total.scale(left);
            let (t, r) = (s.time_to_first_token, s.request_latency);
            s.request_latency = Range {
                likely: t.likely + (r.likely - t.likely) / left,
                low: t.low + (r.low - t.low) / left,
                high: t.high + (r.high - t.high) / left,
            };
        }
        self
    }

    /// Scales every total to the busy copies of an offer and sets the
    /// offer's total output rate.
    pub fn with_copies(mut self, copies: f64) -> Speeds {
        if let TaskSpeeds::Serve(s) = &mut self.task {
            s.decode_total = s.decode_total.scale(copies);
            s.output_total = s
                .output_per_s
                .or(Some(s.decode_total.likely / copies.max(1.0)))
                .map(|v| v * copies)
                .filter(|v| *v > 0.0);
        }
        self
    }
}

/// Writes `name`, `name_low` and `name_high`.
fn put_range<M: SerializeMap>(
    m: &mut M,
    name: &'static str,
    low: &'static str,
    high: &'static str,
    r: Range,
) -> Result<(), M::Error> {
    m.serialize_entry(name, &r.likely)?;
    m.serialize_entry(low, &r.low)?;
    m.serialize_entry(high, &r.high)
}

impl Serialize for Speeds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match &self.task {
            TaskSpeeds::None => {}
            TaskSpeeds::Serve(v) => {
                put_range(
                    &mut m,
                    "decode_tokens_per_s_per_seq",
                    "decode_tokens_per_s_per_seq_low",
                    "decode_tokens_per_s_per_seq_high",
                    v.decode_per_seq,
                )?;
                put_range(
                    &mut m,
                    "decode_tokens_per_s_total",
                    "decode_tokens_per_s_total_low",
                    "decode_tokens_per_s_total_high",
                    v.decode_total,
                )?;
                put_range(
                    &mut m,
                    "prefill_tokens_per_s",
                    "prefill_tokens_per_s_low",
                    "prefill_tokens_per_s_high",
                    v.prefill,
                )?;
                put_range(
                    &mut m,
                    "time_to_first_token_s",
                    "time_to_first_token_s_low",
                    "time_to_first_token_s_high",
                    v.time_to_first_token,
                )?;
                put_range(
                    &mut m,
                    "request_latency_s",
                    "request_latency_s_low",
                    "request_latency_s_high",
                    v.request_latency,
                )?;
                if let Some(o) = v.output_per_s {
                    m.serialize_entry("output_tokens_per_s", &o)?;
                }
                if let Some(o) = v.output_total {
                    m.serialize_entry("output_tokens_per_s_total", &o)?;
                }
            }
            TaskSpeeds::Train(t) => {
                if let Some(r) = t.tokens_per_s {
                    put_range(
                        &mut m,
                        "train_tokens_per_s",
                        "train_tokens_per_s_low",
                        "train_tokens_per_s_high",
                        r,
                    )?;
                }
                m.serialize_entry("train_dp", &t.dp)?;
                m.serialize_entry("train_tp", &t.tp)?;
                m.serialize_entry("train_pp", &t.pp)?;
            }
            TaskSpeeds::Image { seconds_per_image, images_per_hour } => {
                put_range(
                    &mut m,
                    "seconds_per_image",
                    "seconds_per_image_low",
                    "seconds_per_image_high",
                    *seconds_per_image,
                )?;
                m.serialize_entry("images_per_hour", images_per_hour)?;
            }
            TaskSpeeds::Clip { seconds_per_clip } => {
                put_range(
                    &mut m,
                    "seconds_per_clip",
                    "seconds_per_clip_low",
                    "seconds_per_clip_high",
                    *seconds_per_clip,
                )?;
            }
            TaskSpeeds::Audio { realtime_factor } => {
                put_range(
                    &mut m,
                    "audio_realtime_factor",
                    "audio_realtime_factor_low",
                    "audio_realtime_factor_high",
                    *realtime_factor,
                )?;
            }
        }
        if let Some(r) = self.job_hours {
            put_range(&mut m, "job_hours", "job_hours_low", "job_hours_high", r)?;
        }
        if let Some(g) = self.job_gpu_hours {
            m.serialize_entry("job_gpu_hours", &g)?;
        }
        m.end()
    }
}
