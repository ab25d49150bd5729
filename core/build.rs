// The crate's build script: which code forms it compiles (build/forms.rs, shared
// with the C ABI's build script).
include!("build/forms.rs");

fn main() {
    forms();
}
