//! The page's entry point: Trunk builds this binary to WebAssembly.

fn main() {
    whichgpu::web::start();
}
