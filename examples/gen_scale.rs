//! Writes the benchmark scale set: `cargo run --release --example gen_scale -- OUT_DIR
//! N_CRDS N_CRS [DOCS_PER_FILE]` (see benches/support/gen_scale.rs).

#[path = "../benches/support/gen_scale.rs"]
mod gen_scale;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize, default: usize| -> usize {
        args.get(i).map_or(default, |a| {
            a.parse().unwrap_or_else(|_| {
                eprintln!("error: {a:?} is not a number");
                std::process::exit(2)
            })
        })
    };
    let Some(out) = args.first() else {
        eprintln!("usage: gen_scale OUT_DIR N_CRDS N_CRS [DOCS_PER_FILE]");
        std::process::exit(2)
    };
    let (crds, crs, per_file) = (number(1, 10), number(2, 1000), number(3, 10));
    match gen_scale::generate(std::path::Path::new(out), crds, crs, per_file) {
        Ok(g) => println!(
            "{out}: {} CRD files, {} resource files ({} invalid resources), {} bytes",
            g.crd_files, g.cr_files, g.invalid, g.bytes
        ),
        Err(e) => {
            eprintln!("error: {out}: {e}");
            std::process::exit(2)
        }
    }
}
