//! Reads the catalog's compiled form: the validated [`Catalog`] that
//! `build.rs` writes (`build/encode.rs`) after parsing and cross-checking
//! the tables. The page's Wasm starts from this instead of parsing the CSV
//! tables; this reader is plain code, no serde.
//!
//! The form is two parts. The texts (`OUT_DIR/catalog-strings.txt`):
//! every distinct text of the catalog once (ids, names, regions, dates…),
//! each ended by [`SEP`] (a char no catalog cell holds; `build.rs` fails on
//! one that does). The binary part (`OUT_DIR/catalog.bin`): each table in
//! [`Catalog`]'s field order (`as_of` last, as a table of one row) is its
//! row count (u16, little-endian), its column count
//! (u8), then column after column: a head byte and one fixed-width
//! unsigned value per row, stored as planes of bytes (every row's lowest
//! byte, then every row's next byte…: a column's high bytes, mostly zeros,
//! come together and compress well). The head's two low bits give the
//! width (1, 2, 4 or 8 bytes); its six high bits, the mode, say how a number
//! column reads: `k` < 20 is the value ÷ 10^k, 20 + `k` the value ÷ 10^k
//! × 10^9 (model and generator sizes are read in billions), [`BITS`] the
//! `f64`'s bits. The build checks that each `f64` comes back bit for bit
//! (the division of two exact integers rounds once, like the CSV's decimal
//! parse did, and the product by 10^9 is the parser's own). Prices are
//! stored in their row's currency and converted to US dollars on reading,
//! as the parser converts them ([`Offer::in_usd`], [`Provider::in_usd`]).
//! A value of all one bits is `None`. A text is its index in the strings,
//! an enum its index in its list of values
//! ([`Vendor::ALL`](super::gpus::Vendor), [`KINDS`]…), a `bool` 0 or 1, a
//! date the index of its `YYYY-MM-DD` text, an optional group of fields (a
//! model's MoE, MLA, window, vision tower) a flag column followed by its
//! fields. `source` and `notes` (and the offers' `commit_source`, the
//! providers' `unpublished_source`) are not stored: the compiled catalog
//! has them empty ([`Catalog::without_sources`]).
//! `tests/it/catalog/compiled.rs` proves the decoded catalog equals the parsed one.

use std::sync::Arc;

use super::super::date::Date;
use super::error::CatalogError;
use super::gpus::Gpu;
use super::gpus::{Arch, FormFactor, GpuClass, Vendor};
use super::media::{MediaArch, MediaKind, MediaModel};
use super::models::Model;
use super::models::{Mla, Moe, SlidingWindow, StateLayers, Vision};
use super::offers::{HostBilling, Interconnect, Offer, Provider};
use super::rates::{Rate, RateRow};
use super::store::Catalog;
use super::support::{Kind, Support, SupportRow};
use crate::core::config::{Currency, Engine};

/// Ends every text of the strings part.
pub const SEP: char = '\u{1f}';

/// The mode of a column of `f64` bits.
pub const BITS: u8 = 63;

/// The first mode whose values are multiplied by 10^9 after the division.
pub const BILLIONS: u8 = 20;

/// `10^k` for the decimal scales a number column may use (all exact).
pub const POW10: [f64; 20] = [
    1.0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
    1e19,
];

/// The values of the enums that `named!` does not list, in index order.
pub const INTERCONNECTS: [Interconnect; 6] = [
    Interconnect::Single,
    Interconnect::Pcie,
    Interconnect::Nvlink,
    Interconnect::Nvswitch,
    Interconnect::Xgmi,
    Interconnect::Nvl72,
];
pub const HOST_BILLINGS: [HostBilling; 3] =
    [HostBilling::Included, HostBilling::Separate, HostBilling::Unknown];
pub const KINDS: [Kind; 2] = [Kind::Weights, Kind::Kv];
pub const SUPPORTS: [Support; 3] = [Support::Native, Support::WeightOnly, Support::Unsupported];
pub const MEDIA_KINDS: [MediaKind; 3] = [MediaKind::Image, MediaKind::Video, MediaKind::Audio];
pub const MEDIA_ARCHS: [MediaArch; 4] = [MediaArch::Unet, MediaArch::Dit, MediaArch::FlowDit, MediaArch::Ar];

/// The catalog from its compiled form (`bin`, the binary part; `strings`,
/// the texts).
pub fn decode(bin: &[u8], strings: &str) -> Result<Catalog, CatalogError> {
    read(bin, strings).ok_or(CatalogError::Compiled)
}

fn read(bin: &[u8], strings: &str) -> Option<Catalog> {
    let texts: Vec<&str> = strings.strip_suffix(SEP)?.split(SEP).collect();
    let mut r = Reader { rest: bin, texts: &texts };
    let gpus = r.table(gpu)?;
    let models = r.table(model)?;
    let offers = r.table(offer)?;
    let providers = r.table(provider)?;
    let media = r.table(media)?;
    let support = r.table(support)?;
    let rates = r.table(rate)?;
    let mut as_of = r.table(|c| Some(c.date()))?;
    let as_of = as_of.pop().filter(|_| as_of.is_empty())?;
    // Prices to US dollars, as `Catalog::from_parts` converts them.
    let usd = |c| super::rates::usd_per_unit(&rates, c);
    let offers = offers
        .into_iter()
        .map(|o| {
            let k = usd(o.currency)?;
            Some(o.in_usd(k))
        })
        .collect::<Option<_>>()?;
    let providers = providers
        .into_iter()
        .map(|p| {
            let k = usd(p.currency)?;
            Some(p.in_usd(k))
        })
        .collect::<Option<_>>()?;
    let catalog = Catalog { gpus, models, offers, providers, media, support, rates, as_of };
    r.rest.is_empty().then_some(catalog)
}

/// What is left of the binary part, and the texts.
struct Reader<'a> {
    rest: &'a [u8],
    texts: &'a [&'a str],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.rest.split_at_checked(n)?;
        self.rest = rest;
        Some(head)
    }

    fn byte(&mut self) -> Option<u8> {
        self.take(1)?.first().copied()
    }

    /// A table's rows, each read by `row` from a cursor over its columns;
    /// a row must read every column.
    fn table<T>(&mut self, row: impl Fn(&mut Cells<'_>) -> Option<T>) -> Option<Vec<T>> {
        let rows = usize::from(u16::from_le_bytes(self.take(2)?.try_into().ok()?));
        let count = self.byte()?;
        let mut columns = Vec::with_capacity(usize::from(count));
        for _ in 0..count {
            let head = self.byte()?;
            let data = self.take(rows << (head & 3))?;
            columns.push((head, data));
        }
        (0..rows)
            .map(|i| {
                let mut c = Cells { columns: &columns, texts: self.texts, row: i, next: 0, bad: false };
                let value = row(&mut c)?;
                (c.next == columns.len() && !c.bad).then_some(value)
            })
            .collect()
    }
}

/// One row of a table: each read takes the next column's value. A read
/// that fails gives a stand-in value and marks the row bad (the table then
/// fails): no read returns early, so a row's decoder has one exit.
struct Cells<'a> {
    columns: &'a [(u8, &'a [u8])],
    texts: &'a [&'a str],
    row: usize,
    next: usize,
    bad: bool,
}

impl<'a> Cells<'a> {
    /// `v`, or `stand_in` with the row marked bad.
    fn ok<T>(&mut self, v: Option<T>, stand_in: T) -> T {
        v.unwrap_or_else(|| {
            self.bad = true;
            stand_in
        })
    }

    /// The next column's head and value (`None`: the value is absent).
    #[inline(never)]
    fn raw(&mut self) -> (u8, Option<u64>) {
        let next = self.next;
        self.next += 1;
        let cell = self.columns.get(next).and_then(|(head, data)| {
            let width = 1usize << (head & 3);
            let rows = data.len() / width;
            // Byte `b` of row `r` is at `b × rows + r` (planes of bytes).
            let mut value = 0u64;
            for b in (0..width).rev() {
                value = value << 8 | u64::from(*data.get(b * rows + self.row)?);
            }
            let absent = u64::MAX >> (64 - 8 * width);
            Some((*head, (value != absent).then_some(value)))
        });
        self.ok(cell, (0, None))
    }

    #[inline(never)]
    fn opt_f64(&mut self) -> Option<f64> {
        let (head, value) = self.raw();
        let mode = head >> 2;
        let v = value?;
        let number = match mode {
            BITS => Some(f64::from_bits(v)),
            m if m >= BILLIONS => POW10.get(usize::from(m - BILLIONS)).map(|p| v as f64 / p * 1e9),
            m => POW10.get(usize::from(m)).map(|p| v as f64 / p),
        };
        Some(self.ok(number, 0.0))
    }

    #[inline(never)]
    fn f64(&mut self) -> f64 {
        let v = self.opt_f64();
        self.ok(v, 0.0)
    }

    #[inline(never)]
    fn opt_u32(&mut self) -> Option<u32> {
        let v = self.raw().1?;
        let v = u32::try_from(v).ok();
        Some(self.ok(v, 0))
    }

    #[inline(never)]
    fn u32(&mut self) -> u32 {
        let v = self.opt_u32();
        self.ok(v, 0)
    }

    #[inline(never)]
    fn bool(&mut self) -> bool {
        let v = match self.raw().1 {
            Some(0) => Some(false),
            Some(1) => Some(true),
            _ => None,
        };
        self.ok(v, false)
    }

    #[inline(never)]
    fn opt_text(&mut self) -> Option<&'a str> {
        let i = self.raw().1?;
        let t = usize::try_from(i).ok().and_then(|i| self.texts.get(i)).copied();
        Some(self.ok(t, ""))
    }

    #[inline(never)]
    fn text(&mut self) -> &'a str {
        let t = self.opt_text();
        self.ok(t, "")
    }

    #[inline(never)]
    fn string(&mut self) -> String {
        self.text().into()
    }

    #[inline(never)]
    fn arc(&mut self) -> Arc<str> {
        self.text().into()
    }

    #[inline(never)]
    fn date(&mut self) -> Date {
        let d = Date::parse(self.text());
        self.ok(d, Date { year: 1970, month: 1, day: 1 })
    }

    #[inline(never)]
    fn opt_date(&mut self) -> Option<Date> {
        let t = self.opt_text()?;
        let d = Date::parse(t);
        Some(self.ok(d, Date { year: 1970, month: 1, day: 1 }))
    }

    /// The value at the next column's index in `all` (each table reads its
    /// enums first, so that a bad one returns before any text is copied).
    fn pick<T: Copy>(&mut self, all: &[T]) -> Option<T> {
        all.get(self.index()?).copied()
    }

    #[inline(never)]
    fn index(&mut self) -> Option<usize> {
        usize::try_from(self.raw().1?).ok()
    }
}

fn gpu(c: &mut Cells<'_>) -> Option<Gpu> {
    Some(Gpu {
        vendor: c.pick(Vendor::ALL)?,
        arch: c.pick(Arch::ALL)?,
        class: c.pick(GpuClass::ALL)?,
        form_factor: c.pick(FormFactor::ALL)?,
        id: c.string(),
        name: c.string(),
        memory_gb: c.f64(),
        usable_mib: c.f64(),
        memory_type: c.string(),
        mem_bw_gbps: c.f64(),
        bf16_tflops: c.f64(),
        fp8_tflops: c.opt_f64(),
        int8_tops: c.opt_f64(),
        fp4_tflops: c.opt_f64(),
        fp32_tflops: c.opt_f64(),
        mamf_bf16_tflops: c.opt_f64(),
        nvlink_gbps: c.f64(),
        pcie_gen: c.u32(),
        gpus_per_node: c.u32(),
        tdp_w: c.opt_f64(),
        source: String::new(),
        notes: String::new(),
    })
}

fn model(c: &mut Cells<'_>) -> Option<Model> {
    Some(Model {
        id: c.string(),
        name: c.string(),
        family: c.string(),
        params_total: c.f64(),
        params_active: c.f64(),
        layers: c.u32(),
        hidden: c.u32(),
        heads: c.u32(),
        kv_heads: c.u32(),
        head_dim: c.u32(),
        ffn: c.opt_u32(),
        vocab: c.u32(),
        tied_embeddings: c.bool(),
        max_context: c.opt_u32(),
        moe: {
            let on = c.bool();
            let moe = Moe {
                experts: c.u32(),
                active: c.u32(),
                shared: c.u32(),
                expert_ffn: c.u32(),
                first_dense_layers: c.u32(),
            };
            on.then_some(moe)
        },
        mla: {
            let on = c.bool();
            let mla = Mla { kv_lora_rank: c.u32(), q_lora_rank: c.u32(), rope_dim: c.u32() };
            on.then_some(mla)
        },
        swa: {
            let on = c.bool();
            let swa = SlidingWindow { window: c.u32(), local_per_global: c.opt_u32() };
            on.then_some(swa)
        },
        state: {
            let on = c.bool();
            let state = StateLayers { layers: c.u32(), size: c.u32(), mixer_params: None };
            on.then_some(state)
        },
        encoder_decoder: c.bool(),
        vision: {
            let on = c.bool();
            let vision = Vision {
                params: c.f64(),
                image_tokens: c.opt_u32(),
                tile_px: c.opt_u32(),
                max_tiles: c.opt_u32(),
                cross_attention_layers: c.opt_u32(),
                patch_px: c.opt_u32(),
            };
            on.then_some(vision)
        },
        inferred: c.bool(),
        source: String::new(),
    })
}

fn offer(c: &mut Cells<'_>) -> Option<Offer> {
    Some(Offer {
        interconnect: c.pick(&INTERCONNECTS)?,
        currency: c.pick(Currency::ALL)?,
        id: c.arc(),
        provider: c.arc(),
        instance: c.arc(),
        gpu: c.arc(),
        gpus: c.u32(),
        vcpus: c.opt_f64(),
        ram_gb: c.opt_f64(),
        inter_node_gbps: c.opt_f64(),
        usd_per_hour: c.f64(),
        spot_usd_per_hour: c.opt_f64(),
        commit_1mo_usd_per_hour: c.opt_f64(),
        commit_1yr_usd_per_hour: c.opt_f64(),
        commit_3yr_usd_per_hour: c.opt_f64(),
        commit_source: String::new(),
        commit_as_of: c.opt_date(),
        region: c.arc(),
        billing_increment_s: c.opt_f64(),
        min_charge_s: c.opt_f64(),
        storage_usd_per_gb_month: c.opt_f64(),
        egress_usd_per_gb: c.opt_f64(),
        source: Arc::from(""),
        as_of: c.date(),
        notes: String::new(),
    })
}

fn provider(c: &mut Cells<'_>) -> Option<Provider> {
    Some(Provider {
        currency: c.pick(Currency::ALL)?,
        host_billing: c.pick(&HOST_BILLINGS)?,
        id: c.string(),
        name: c.string(),
        kind: c.string(),
        billing_increment_s: c.opt_f64(),
        min_charge_s: c.opt_f64(),
        storage_usd_per_gb_month: c.opt_f64(),
        egress_usd_per_gb: c.opt_f64(),
        free_egress_gb_month: c.f64(),
        spot_offered: c.bool(),
        cold_start_s: c.opt_f64(),
        scale_to_zero: c.bool(),
        host_usd_per_vcpu_hour: c.opt_f64(),
        host_usd_per_gib_hour: c.opt_f64(),
        provision_s: c.opt_f64(),
        // The fields joined by `;` (what the CSV cell holds).
        unpublished_fields: c.text().split(';').filter(|f| !f.is_empty()).map(String::from).collect(),
        unpublished_source: String::new(),
        source: String::new(),
    })
}

fn media(c: &mut Cells<'_>) -> Option<MediaModel> {
    Some(MediaModel {
        kind: c.pick(&MEDIA_KINDS)?,
        arch: c.pick(&MEDIA_ARCHS)?,
        id: c.string(),
        name: c.string(),
        denoiser_params: c.opt_f64(),
        token_params: c.opt_f64(),
        text_encoder_params: c.opt_f64(),
        text_encoders: c.string(),
        vae_params: c.opt_f64(),
        other_params: c.opt_f64(),
        hidden: c.opt_u32(),
        layers: c.opt_u32(),
        latent_channels: c.opt_u32(),
        spatial_downsample: c.opt_u32(),
        temporal_downsample: c.opt_u32(),
        patch: c.opt_u32(),
        cfg_passes: c.opt_u32(),
        default_steps: c.opt_u32(),
        default_width: c.opt_u32(),
        default_height: c.opt_u32(),
        default_frames: c.opt_u32(),
        default_fps: c.opt_f64(),
        audio_frame_rate_hz: c.opt_f64(),
        audio_codebooks: c.opt_u32(),
        default_seconds: c.opt_f64(),
        heads: c.opt_u32(),
        attn_downsample: c.opt_u32(),
        pass_tflops_ref: c.opt_f64(),
        joint_text_tokens: c.opt_u32(),
        ar_steps_per_audio_s: c.opt_f64(),
        audio_window_s: c.opt_f64(),
        eager_kernels_per_layer: c.opt_f64(),
        vae_upcast_fp16: c.bool(),
        native_dtype: c.opt_text().map(String::from),
        source: String::new(),
        notes: String::new(),
    })
}

fn support(c: &mut Cells<'_>) -> Option<SupportRow> {
    Some(SupportRow {
        engine: c.pick(Engine::ALL)?,
        kind: c.pick(&KINDS)?,
        support: c.pick(&SUPPORTS)?,
        engine_version: c.string(),
        arch: c.string(),
        format: c.string(),
        source: String::new(),
        notes: String::new(),
    })
}

fn rate(c: &mut Cells<'_>) -> Option<RateRow> {
    Some(RateRow {
        rate: Rate { currency: c.pick(Currency::ALL)?, usd_per_unit: c.f64(), as_of: c.date() },
        source: String::new(),
    })
}
