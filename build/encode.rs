//! Writes the catalog in its compiled form, the two parts that
//! `src/core/catalog/compiled.rs` reads back (its module comment states the
//! form): the texts, each once, and the tables column by column in fixed
//! widths. Fields are written in the order the reader's struct literals read
//! them (`tests/it/catalog/compiled.rs` fails on a mismatch); each struct is taken
//! apart field by field, so a new field stops the build until it is written.
use std::collections::HashMap;

use crate::core::catalog::compiled::{
    BILLIONS, BITS, HOST_BILLINGS, INTERCONNECTS, KINDS, MEDIA_ARCHS, MEDIA_KINDS, POW10, SEP, SUPPORTS,
};
use crate::core::catalog::gpus::{Arch, FormFactor, GpuClass, Vendor};
use crate::core::catalog::media::MediaModel;
use crate::core::catalog::models::{Mla, Moe, SlidingWindow, Vision};
use crate::core::catalog::{rates, Catalog, Date, Gpu, Model, Offer, Provider, Rate, RateRow, SupportRow};
use crate::core::config::{Currency, Engine};

/// The compiled form: the binary part and the texts.
pub struct Compiled {
    pub bin: Vec<u8>,
    pub strings: String,
}

/// One value of a row before its column's width is known.
#[derive(Clone, Copy)]
enum Cell {
    /// A count, index or flag (`None`: absent).
    Int(Option<u64>),
    /// A number (`None`: absent).
    Num(Option<f64>),
}

/// The texts, each once, in order of first use.
#[derive(Default)]
struct Texts {
    list: Vec<String>,
    index: HashMap<String, u64>,
}

/// The cells of one row, in column order.
struct Row<'t> {
    texts: &'t mut Texts,
    cells: Vec<Cell>,
}

impl Row<'_> {
    fn int(&mut self, v: impl Into<u64>) {
        self.cells.push(Cell::Int(Some(v.into())));
    }
    fn opt_u32(&mut self, v: Option<u32>) {
        self.cells.push(Cell::Int(v.map(u64::from)));
    }
    fn f64(&mut self, v: f64) {
        self.cells.push(Cell::Num(Some(v)));
    }
    fn opt_f64(&mut self, v: Option<f64>) {
        self.cells.push(Cell::Num(v));
    }
    fn opt_text(&mut self, t: Option<&str>) -> Result<(), String> {
        let i = match t {
            None => None,
            Some(t) if t.contains(SEP) => {
                return Err(format!("the catalog text `{t}` holds the separator U+001F"))
            }
            Some(t) => {
                let next = self.texts.list.len() as u64;
                let i = *self.texts.index.entry(t.to_string()).or_insert(next);
                if i == next {
                    self.texts.list.push(t.to_string());
                }
                Some(i)
            }
        };
        self.cells.push(Cell::Int(i));
        Ok(())
    }
    fn text(&mut self, t: &str) -> Result<(), String> {
        self.opt_text(Some(t))
    }
    fn date(&mut self, d: Date) -> Result<(), String> {
        self.text(&d.to_string())
    }
    /// `v`'s index in `all`.
    fn pick<T: PartialEq + std::fmt::Debug>(&mut self, all: &[T], v: &T) -> Result<(), String> {
        let i = all
            .iter()
            .position(|a| a == v)
            .ok_or_else(|| format!("{v:?} is missing from its list of values"))?;
        self.int(i as u64);
        Ok(())
    }
}

/// `source` and `notes` are left out of the compiled form: they must be empty.
fn no_source(table: &str, texts: &[&str]) -> Result<(), String> {
    texts
        .iter()
        .find(|t| !t.is_empty())
        .map_or(Ok(()), |t| Err(format!("{table}: a source or note is left in the compiled catalog: `{t}`")))
}

/// `catalog` (with sources and notes emptied) in the compiled form.
pub fn compile(catalog: &Catalog) -> Result<Compiled, String> {
    let Catalog { gpus, models, offers, providers, media, support, rates, as_of } = catalog;
    let mut texts = Texts::default();
    let mut bin = Vec::new();
    table(&mut bin, &mut texts, gpus, gpu)?;
    table(&mut bin, &mut texts, models, model)?;
    table(&mut bin, &mut texts, offers, |r, o| offer(r, rates, o))?;
    table(&mut bin, &mut texts, providers, |r, p| provider(r, rates, p))?;
    table(&mut bin, &mut texts, media, media_model)?;
    table(&mut bin, &mut texts, support, support_row)?;
    table(&mut bin, &mut texts, rates, rate_row)?;
    table(&mut bin, &mut texts, &[*as_of], |r, d| r.date(*d))?;
    let strings = texts.list.iter().flat_map(|t| [t.as_str(), "\u{1f}"]).collect();
    Ok(Compiled { bin, strings })
}

/// Writes one table: its row and column counts, then each column.
fn table<T>(
    bin: &mut Vec<u8>,
    texts: &mut Texts,
    rows: &[T],
    write: impl Fn(&mut Row<'_>, &T) -> Result<(), String>,
) -> Result<(), String> {
    let mut cells = Vec::with_capacity(rows.len());
    for r in rows {
        let mut row = Row { texts: &mut *texts, cells: Vec::new() };
        write(&mut row, r)?;
        cells.push(row.cells);
    }
    let count = cells.first().map_or(0, Vec::len);
    if cells.iter().any(|c| c.len() != count) {
        return Err("rows of one table wrote different numbers of cells".into());
    }
    bin.extend_from_slice(
        &u16::try_from(rows.len()).map_err(|_| "a table of more than 65,535 rows")?.to_le_bytes(),
    );
    bin.push(u8::try_from(count).map_err(|_| "a table of more than 255 columns")?);
    for col in 0..count {
        let column: Vec<Cell> = cells.iter().filter_map(|c| c.get(col).copied()).collect();
        let (mode, values) = column_values(&column)?;
        // The narrowest width whose all-ones value (absent) no value reaches.
        let max = values.iter().flatten().max().copied().unwrap_or(0);
        let code = (0u8..4).find(|c| *c == 3 || max < (1u64 << (8 << c)) - 1).unwrap_or(3);
        if max == u64::MAX {
            return Err("a value of all one bits (reads as absent)".into());
        }
        bin.push(code | mode << 2);
        // Planes of bytes: every row's lowest byte, then the next byte…
        for b in 0..(1usize << code) {
            bin.extend(
                values.iter().map(|v| v.unwrap_or(u64::MAX).to_le_bytes().get(b).copied().unwrap_or(0)),
            );
        }
    }
    Ok(())
}

/// A column's mode (see `compiled`) and its values as stored.
fn column_values(column: &[Cell]) -> Result<(u8, Vec<Option<u64>>), String> {
    let ints: Option<Vec<Option<u64>>> =
        column.iter().map(|c| if let Cell::Int(v) = c { Some(*v) } else { None }).collect();
    if let Some(ints) = ints {
        return Ok((0, ints));
    }
    let nums: Vec<Option<f64>> = column
        .iter()
        .map(|c| if let Cell::Num(v) = c { Ok(*v) } else { Err("a column mixes numbers and counts") })
        .collect::<Result<_, _>>()?;
    if let Some(v) = nums.iter().flatten().find(|v| !v.is_finite()) {
        return Err(format!("{v} is not a finite number"));
    }
    // Every value as an exact integer `m` that reads back to the same bits
    // as m ÷ 10^k (× 10^9 with `billions`), or `None` where one does not.
    let exact = |k: usize, billions: bool| -> Option<Vec<Option<u64>>> {
        let p = *POW10.get(k)?;
        let f = if billions { 1e9 } else { 1.0 };
        nums.iter()
            .map(|v| match v {
                None => Some(None),
                Some(v) => {
                    let m = (v / f * p).round();
                    let back = if billions { m / p * 1e9 } else { m / p };
                    ((0.0..9_007_199_254_740_992.0).contains(&m) && back.to_bits() == v.to_bits())
                        .then_some(Some(m as u64))
                }
            })
            .collect()
    };
    // The smallest scale of each kind; of the two, the smaller largest value.
    let first = |billions: bool| {
        (0..POW10.len())
            .find_map(|k| exact(k, billions).map(|v| (k as u8 + if billions { BILLIONS } else { 0 }, v)))
    };
    let largest = |v: &Vec<Option<u64>>| v.iter().flatten().max().copied().unwrap_or(0);
    Ok(match (first(false), first(true)) {
        (Some(a), Some(b)) => {
            if largest(&b.1) < largest(&a.1) {
                b
            } else {
                a
            }
        }
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => (BITS, nums.iter().map(|v| v.map(f64::to_bits)).collect()),
    })
}

/// The price in its row's currency that reads back as `usd` when
/// multiplied by `usd_per_unit`, as the parser converted it (the shortest
/// decimal that does).
fn native(usd: Option<f64>, usd_per_unit: f64) -> Result<Option<f64>, String> {
    let Some(v) = usd else { return Ok(None) };
    (0..10)
        .find_map(|k| {
            let p = *POW10.get(k)?;
            let n = (v / usd_per_unit * p).round() / p;
            ((n * usd_per_unit).to_bits() == v.to_bits()).then_some(Some(n))
        })
        .ok_or_else(|| {
            format!("the price {v} in US dollars has no short price in its currency (rate {usd_per_unit})")
        })
}

fn gpu(r: &mut Row<'_>, g: &Gpu) -> Result<(), String> {
    let Gpu {
        id,
        name,
        vendor,
        arch,
        class,
        form_factor,
        memory_gb,
        usable_mib,
        memory_type,
        mem_bw_gbps,
        bf16_tflops,
        fp8_tflops,
        int8_tops,
        fp4_tflops,
        fp32_tflops,
        mamf_bf16_tflops,
        nvlink_gbps,
        pcie_gen,
        gpus_per_node,
        tdp_w,
        source,
        notes,
    } = g;
    no_source("gpus.csv", &[source, notes])?;
    r.pick(Vendor::ALL, vendor)?;
    r.pick(Arch::ALL, arch)?;
    r.pick(GpuClass::ALL, class)?;
    r.pick(FormFactor::ALL, form_factor)?;
    r.text(id)?;
    r.text(name)?;
    r.f64(*memory_gb);
    r.f64(*usable_mib);
    r.text(memory_type)?;
    r.f64(*mem_bw_gbps);
    r.f64(*bf16_tflops);
    for v in [fp8_tflops, int8_tops, fp4_tflops, fp32_tflops, mamf_bf16_tflops] {
        r.opt_f64(*v);
    }
    r.f64(*nvlink_gbps);
    r.int(*pcie_gen);
    r.int(*gpus_per_node);
    r.opt_f64(*tdp_w);
    Ok(())
}

fn model(r: &mut Row<'_>, m: &Model) -> Result<(), String> {
    let Model {
        id,
        name,
        family,
        params_total,
        params_active,
        layers,
        hidden,
        heads,
        kv_heads,
        head_dim,
        ffn,
        vocab,
        tied_embeddings,
        max_context,
        moe,
        mla,
        swa,
        state,
        encoder_decoder,
        vision,
        inferred,
        source,
    } = m;
    no_source("models.csv", &[source])?;
    r.text(id)?;
    r.text(name)?;
    r.text(family)?;
    r.f64(*params_total);
    r.f64(*params_active);
    for v in [layers, hidden, heads, kv_heads, head_dim] {
        r.int(*v);
    }
    r.opt_u32(*ffn);
    r.int(*vocab);
    r.int(*tied_embeddings);
    r.opt_u32(*max_context);
    // An absent group writes its flag and zeros (absent for optional fields).
    r.int(moe.is_some());
    let Moe { experts, active, shared, expert_ffn, first_dense_layers } =
        moe.clone().unwrap_or(Moe { experts: 0, active: 0, shared: 0, expert_ffn: 0, first_dense_layers: 0 });
    for v in [experts, active, shared, expert_ffn, first_dense_layers] {
        r.int(v);
    }
    r.int(mla.is_some());
    let Mla { kv_lora_rank, q_lora_rank, rope_dim } =
        mla.clone().unwrap_or(Mla { kv_lora_rank: 0, q_lora_rank: 0, rope_dim: 0 });
    for v in [kv_lora_rank, q_lora_rank, rope_dim] {
        r.int(v);
    }
    r.int(swa.is_some());
    let SlidingWindow { window, local_per_global } =
        swa.clone().unwrap_or(SlidingWindow { window: 0, local_per_global: None });
    r.int(window);
    r.opt_u32(local_per_global);
    r.int(state.is_some());
    let (state_layers, state_size) = state.as_ref().map_or((0, 0), |s| (s.layers, s.size));
    r.int(state_layers);
    r.int(state_size);
    r.int(*encoder_decoder);
    r.int(vision.is_some());
    let Vision { params, image_tokens, tile_px, max_tiles, cross_attention_layers, patch_px } =
        vision.clone().unwrap_or(Vision {
            params: 0.0,
            image_tokens: None,
            tile_px: None,
            max_tiles: None,
            cross_attention_layers: None,
            patch_px: None,
        });
    r.f64(params);
    for v in [image_tokens, tile_px, max_tiles, cross_attention_layers, patch_px] {
        r.opt_u32(v);
    }
    r.int(*inferred);
    Ok(())
}

fn offer(r: &mut Row<'_>, rates: &[RateRow], o: &Offer) -> Result<(), String> {
    let Offer {
        id,
        provider,
        instance,
        gpu,
        gpus,
        vcpus,
        ram_gb,
        interconnect,
        inter_node_gbps,
        currency,
        usd_per_hour,
        spot_usd_per_hour,
        commit_1mo_usd_per_hour,
        commit_1yr_usd_per_hour,
        commit_3yr_usd_per_hour,
        commit_source,
        commit_as_of,
        region,
        billing_increment_s,
        min_charge_s,
        storage_usd_per_gb_month,
        egress_usd_per_gb,
        source,
        as_of,
        notes,
    } = o;
    no_source("offers.csv", &[source, notes, commit_source])?;
    let k = rates::usd_per_unit(rates, *currency).ok_or("an offer's currency without a rate")?;
    r.pick(&INTERCONNECTS, interconnect)?;
    r.pick(Currency::ALL, currency)?;
    for t in [id, provider, instance, gpu] {
        r.text(t)?;
    }
    r.int(*gpus);
    r.opt_f64(*vcpus);
    r.opt_f64(*ram_gb);
    r.opt_f64(*inter_node_gbps);
    for v in [
        Some(*usd_per_hour),
        *spot_usd_per_hour,
        *commit_1mo_usd_per_hour,
        *commit_1yr_usd_per_hour,
        *commit_3yr_usd_per_hour,
    ] {
        r.opt_f64(native(v, k)?);
    }
    r.opt_text(commit_as_of.map(|d| d.to_string()).as_deref())?;
    r.text(region)?;
    r.opt_f64(*billing_increment_s);
    r.opt_f64(*min_charge_s);
    r.opt_f64(native(*storage_usd_per_gb_month, k)?);
    r.opt_f64(native(*egress_usd_per_gb, k)?);
    r.date(*as_of)
}

fn provider(r: &mut Row<'_>, rates: &[RateRow], p: &Provider) -> Result<(), String> {
    let Provider {
        id,
        name,
        kind,
        currency,
        billing_increment_s,
        min_charge_s,
        storage_usd_per_gb_month,
        egress_usd_per_gb,
        free_egress_gb_month,
        spot_offered,
        host_billing,
        cold_start_s,
        scale_to_zero,
        host_usd_per_vcpu_hour,
        host_usd_per_gib_hour,
        provision_s,
        unpublished_fields,
        unpublished_source,
        source,
    } = p;
    no_source("providers.csv", &[source, unpublished_source])?;
    let k = rates::usd_per_unit(rates, *currency).ok_or("a provider's currency without a rate")?;
    r.pick(Currency::ALL, currency)?;
    r.pick(&HOST_BILLINGS, host_billing)?;
    r.text(id)?;
    r.text(name)?;
    r.text(kind)?;
    r.opt_f64(*billing_increment_s);
    r.opt_f64(*min_charge_s);
    r.opt_f64(native(*storage_usd_per_gb_month, k)?);
    r.opt_f64(native(*egress_usd_per_gb, k)?);
    r.f64(*free_egress_gb_month);
    r.int(*spot_offered);
    r.opt_f64(*cold_start_s);
    r.int(*scale_to_zero);
    r.opt_f64(native(*host_usd_per_vcpu_hour, k)?);
    r.opt_f64(native(*host_usd_per_gib_hour, k)?);
    r.opt_f64(*provision_s);
    if unpublished_fields.iter().any(|f| f.is_empty() || f.contains(';')) {
        return Err(format!("providers.csv: `{id}` lists an empty field name or one holding `;`"));
    }
    r.text(&unpublished_fields.join(";"))
}

fn media_model(r: &mut Row<'_>, m: &MediaModel) -> Result<(), String> {
    let MediaModel {
        id,
        name,
        kind,
        arch,
        denoiser_params,
        token_params,
        text_encoder_params,
        text_encoders,
        vae_params,
        other_params,
        hidden,
        layers,
        latent_channels,
        spatial_downsample,
        temporal_downsample,
        patch,
        cfg_passes,
        default_steps,
        default_width,
        default_height,
        default_frames,
        default_fps,
        audio_frame_rate_hz,
        audio_codebooks,
        default_seconds,
        heads,
        attn_downsample,
        pass_tflops_ref,
        joint_text_tokens,
        ar_steps_per_audio_s,
        audio_window_s,
        eager_kernels_per_layer,
        vae_upcast_fp16,
        native_dtype,
        source,
        notes,
    } = m;
    no_source("media_models.csv", &[source, notes])?;
    r.pick(&MEDIA_KINDS, kind)?;
    r.pick(&MEDIA_ARCHS, arch)?;
    r.text(id)?;
    r.text(name)?;
    for v in [denoiser_params, token_params, text_encoder_params] {
        r.opt_f64(*v);
    }
    r.text(text_encoders)?;
    r.opt_f64(*vae_params);
    r.opt_f64(*other_params);
    for v in [
        hidden,
        layers,
        latent_channels,
        spatial_downsample,
        temporal_downsample,
        patch,
        cfg_passes,
        default_steps,
        default_width,
        default_height,
        default_frames,
    ] {
        r.opt_u32(*v);
    }
    r.opt_f64(*default_fps);
    r.opt_f64(*audio_frame_rate_hz);
    r.opt_u32(*audio_codebooks);
    r.opt_f64(*default_seconds);
    r.opt_u32(*heads);
    r.opt_u32(*attn_downsample);
    r.opt_f64(*pass_tflops_ref);
    r.opt_u32(*joint_text_tokens);
    for v in [ar_steps_per_audio_s, audio_window_s, eager_kernels_per_layer] {
        r.opt_f64(*v);
    }
    r.int(*vae_upcast_fp16);
    r.opt_text(native_dtype.as_deref())
}

fn support_row(r: &mut Row<'_>, s: &SupportRow) -> Result<(), String> {
    let SupportRow { engine, engine_version, arch, kind, format, support, source, notes } = s;
    no_source("support.csv", &[source, notes])?;
    r.pick(Engine::ALL, engine)?;
    r.pick(&KINDS, kind)?;
    r.pick(&SUPPORTS, support)?;
    r.text(engine_version)?;
    r.text(arch)?;
    r.text(format)
}

fn rate_row(r: &mut Row<'_>, row: &RateRow) -> Result<(), String> {
    let RateRow { rate: Rate { currency, usd_per_unit, as_of }, source } = row;
    no_source("rates.csv", &[source])?;
    r.pick(Currency::ALL, currency)?;
    r.f64(*usd_per_unit);
    r.date(*as_of)
}
