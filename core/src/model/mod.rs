//! What a device offers, described at compile time: descriptors of tools, resources,
//! templates and prompts ([`registry`]), the JSON Schema subset their arguments are
//! checked against ([`schema`]), and URI templates ([`template`]).

pub mod registry;
pub mod schema;
pub mod template;
