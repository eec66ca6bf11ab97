//! The answer's kinds: what offers are ranked on, why an alternative is
//! offered, which parts of a bill are unknown. Enums inside the core; each
//! is written as its documented string (`docs/link-format.md`) only when
//! serialized, through [`named!`](super::named).

use super::named::named;

/// [`named!`] with message keys: each `fn key = "prefix.";` is a
/// `const fn key(self)` giving the prefix followed by the value's name,
/// so a key is never spelled apart from its name.
macro_rules! keyed {
    (
        $(#[$meta:meta])* pub enum $name:ident $body:tt
        $($(#[$fmeta:meta])* fn $f:ident = $prefix:literal;)+
    ) => {
        named! { $(#[$meta])* pub enum $name $body }
        $(keyed!(@fn $name, $(#[$fmeta])* $f, $prefix, $body);)+
    };
    (
        @fn $name:ident, $(#[$fmeta:meta])* $f:ident, $prefix:literal,
        { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }
    ) => {
        impl $name {
            $(#[$fmeta])*
            pub const fn $f(self) -> &'static str {
                match self {
                    $($name::$variant => concat!($prefix, $text)),+
                }
            }
        }
    };
}

keyed! {
    /// The quantity offers are ranked on, by task, usage and `sort`: the
    /// answer's field of that name (its value: `offers::Objective::key`).
    pub enum Objective {
        UsdPerMillionOutputTokens = "usd_per_million_output_tokens",
        UsdPer1000Images = "usd_per_1000_images",
        UsdPerClip = "usd_per_clip",
        UsdPerAudioHour = "usd_per_audio_hour",
        UsdPerJob = "usd_per_job",
        UsdPerMonth = "usd_per_month",
        /// Decode tokens/s per user (larger is better).
        TokensPerSPerUser = "decode_tokens_per_s_per_seq",
        SecondsPerImage = "seconds_per_image",
        SecondsPerClip = "seconds_per_clip",
        /// Seconds of audio per second of wall time (larger is better).
        AudioRealtimeFactor = "audio_realtime_factor",
        /// Items per hour of the whole offer (larger is better): batch generation.
        ItemsPerHour = "items_per_hour",
        RequestLatency = "request_latency_s",
        JobHours = "job_hours",
    }
    /// The message key naming the objective.
    fn msg_key = "obj.";
}

impl Objective {
    /// A price in US dollars (every `usd_*` field).
    pub const fn is_cost(self) -> bool {
        matches!(
            self,
            Objective::UsdPerMillionOutputTokens
                | Objective::UsdPer1000Images
                | Objective::UsdPerClip
                | Objective::UsdPerAudioHour
                | Objective::UsdPerJob
                | Objective::UsdPerMonth
        )
    }

    /// The message key naming a cost objective in yuan; `None` for a speed.
    pub const fn cny_msg_key(self) -> Option<&'static str> {
        match self {
            Objective::UsdPerMillionOutputTokens => Some("obj.cny_per_million_output_tokens"),
            Objective::UsdPer1000Images => Some("obj.cny_per_1000_images"),
            Objective::UsdPerClip => Some("obj.cny_per_clip"),
            Objective::UsdPerAudioHour => Some("obj.cny_per_audio_hour"),
            Objective::UsdPerJob => Some("obj.cny_per_job"),
            Objective::UsdPerMonth => Some("obj.cny_per_month"),
            _ => None,
        }
    }
}

named! {
    /// Why an offer is the pick (`best`) or an alternative to it.
    pub enum AltKind {
        Best = "best",
        Cheapest = "cheapest",
        Fragile = "fragile",
        Fastest = "fastest",
        SingleGpu = "single-gpu",
        OnDemand = "on-demand",
        Committed = "committed",
    }
}

impl AltKind {
    /// The text key of the label (`why.cheapest`…), as the page and the
    /// text report show it.
    pub const fn msg_key(self) -> &'static str {
        match self {
            AltKind::Cheapest => "why.cheapest",
            AltKind::Fastest => "why.fastest",
            AltKind::SingleGpu => "why.single-gpu",
            AltKind::Fragile => "why.fragile",
            AltKind::Committed => "why.committed",
            AltKind::Best | AltKind::OnDemand => "why.on-demand",
        }
    }
}

keyed! {
    /// A part of the bill the provider does not publish or bills beside
    /// the GPU price: never counted as $0.
    pub enum UnknownCost {
        Storage = "storage",
        Egress = "egress",
        BillingIncrement = "billing_increment",
        Host = "host",
        ColdStart = "cold_start",
    }
    /// The page's and the report's label key (`ui.unknown.storage`…).
    fn ui_key = "ui.unknown.";
    /// The key of its name inside a reason (`part.storage`…).
    fn part_key = "part.";
}
