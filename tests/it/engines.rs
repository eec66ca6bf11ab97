//! The engine table (`core::engines`) against what depends on it: the
//! generated `docs/engines.md`, the support matrix's version labels, and
//! the versions and flags the launch texts write.

use whichgpu::core::config::{Engine, Trainer};
use whichgpu::core::engines::{self, Launcher};
use whichgpu::core::export::{for_answer, install};
use whichgpu::tools::engine_doc;

use crate::common::{answer, catalog};

#[test]
fn the_committed_engine_doc_is_the_generated_one() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/engines.md");
    let committed = std::fs::read_to_string(&path).expect("docs/engines.md");
    assert!(
        committed == engine_doc::markdown(catalog()),
        "docs/engines.md differs from the table: run `cargo run --bin whichgpu -- docs engines > docs/engines.md`"
    );
}

/// Every version label the support matrix uses is a row's version or one
/// of its other versions, and every row's version is in the matrix.
#[test]
fn the_support_matrix_names_the_rows_versions() {
    let support = &catalog().support;
    for r in &support[..] {
        let row = engines::launch(r.engine);
        assert!(
            row.version.value == r.engine_version || row.other_versions.contains(&r.engine_version.as_str()),
            "{}: {} is not in the engine table",
            r.engine,
            r.engine_version
        );
    }
    for row in engines::LAUNCH_ROWS {
        for v in std::iter::once(row.version.value).chain(row.other_versions.iter().copied()) {
            assert!(
                support.iter().any(|r| r.engine == row.engine && r.engine_version == v),
                "{}: {v} is in no support row",
                row.engine
            );
        }
    }
}

/// The launch texts of a pick install the row's version and set the row's memory flag to its share.
#[test]
fn the_launch_texts_install_the_rows_versions() {
    for (engine, q) in [
        (Engine::Vllm, "model=llama-3.1-8b&gpu=h100-sxm-80gb"),
        (Engine::TrtLlm, "model=llama-3.1-8b&gpu=h100-sxm-80gb&engine=trt-llm"),
        (Engine::Hf, "model=llama-3.1-8b&gpu=h100-sxm-80gb&engine=hf"),
    ] {
        let a = answer(q);
        let e = for_answer(&a, catalog());
        let pick = e.first().expect("a pick");
        let row = engines::launch(engine);
        let v = install::pinned(row.version.value).expect("a pinned version");
        let pkg = row.package.expect("a package");
        assert!(
            pick.skypilot_yaml.contains(&format!("pip install \"{pkg}=={v}\"")),
            "{engine}: installs {pkg}=={v}:\n{}",
            pick.skypilot_yaml
        );
        if let Some((share, flag)) = engines::row(engine).reservation.value.fraction().zip(row.memory_flag) {
            assert!(
                pick.command.contains(&format!("{flag} {share}")),
                "{engine}: {flag} {share}:\n{}",
                pick.command
            );
        }
        if let Some((tp, _)) = row.parallel_flags {
            assert!(pick.command.contains(tp), "{engine}: {tp}:\n{}", pick.command);
        }
    }
    // SGLang's ROCm image is the row's release.
    let a = answer("model=deepseek-r1&w=fp8&in=8000&out=2000&batch=32&engine=sglang&gpu=mi300x-192gb");
    let e = for_answer(&a, catalog());
    let release = engines::launch(Engine::Sglang).image_version.expect("an image release").value;
    assert!(
        e[0].skypilot_yaml.contains(&format!("lmsysorg/sglang:{release}-rocm700-mi30x")),
        "{}",
        e[0].skypilot_yaml
    );
}

/// A training stack with its own launch installs the row's version; the others run transformers' from the matrix.
#[test]
fn the_training_launches_install_the_rows_versions() {
    for t in [Trainer::Torchtune, Trainer::Axolotl, Trainer::Torchtitan, Trainer::Megatron] {
        let row = engines::trainer(t);
        assert_eq!(row.launcher, Launcher::Own);
        let q =
            format!("task=finetune&model=llama-3.1-8b&method=full&gpu=h100-sxm-80gb&trainer={}", t.as_str());
        let a = answer(&q);
        let e = for_answer(&a, catalog());
        let pick = e.first().expect("a pick");
        let v = row.version.expect("a version").value.split_whitespace().next().expect("a word");
        assert!(pick.skypilot_yaml.contains(v), "{t}: installs {v}:\n{}", pick.skypilot_yaml);
        assert!(pick.command.contains(row.name), "{t}: the header names {}:\n{}", row.name, pick.command);
    }
    let hf = engines::launch(Engine::Hf);
    let a = answer("task=finetune&model=llama-3.1-8b&method=lora&gpu=h100-sxm-80gb");
    let e = for_answer(&a, catalog());
    let v = install::pinned(hf.version.value).expect("pinned");
    assert!(e[0].skypilot_yaml.contains(&format!("transformers=={v}")), "{}", e[0].skypilot_yaml);
}
