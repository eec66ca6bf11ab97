use whichgpu::core::hfconfig;
#[test]
fn dump() {
    let mut files: Vec<_> =
        std::fs::read_dir("tests/data/hf-configs").unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "json")).collect();
    files.sort();
    for f in files {
        let t = std::fs::read_to_string(&f).unwrap();
        match hfconfig::parse(&t) {
            Ok(i) => {
                let m = i.model;
                println!(
                    "{:50} tot {:8.3} act {:8.3} L{} h{} H{} K{} d{} f{:?} V{} tied {} ctx {:?} moe {:?} mla {:?} swa {:?} vis {:?} notes {}",
                    f.file_name().unwrap().to_string_lossy(),
                    m.params_total / 1e9,
                    m.params_active / 1e9,
                    m.layers,
                    m.hidden,
                    m.heads,
                    m.kv_heads,
                    m.head_dim,
                    m.ffn,
                    m.vocab,
                    m.tied_embeddings,
                    m.max_context,
                    m.moe,
                    m.mla,
                    m.swa,
                    m.vision,
                    i.notices.len()
                );
            }
            Err(e) => println!("{:?} ERR {:?}", f, e),
        }
    }
}
