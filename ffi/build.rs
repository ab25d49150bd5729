// The C ABI compiles the same code forms as the core: see core/build.rs.
include!("../core/build.rs");
