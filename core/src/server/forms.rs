//! The two forms of the server's own writing, chosen once for the crate
//! (`cfg(emcp_fast)`, set by `core/build.rs`).
//!
//! - `plain` (microcontrollers): a list's key and bracket written apart; `serverInfo`
//!   written member by member into every stateless result; `uri` and `cursor` looked
//!   up in `params` when needed. The smallest code.
//! - `fast` (hosts): a list's key with its bracket in one write; `serverInfo` written
//!   once by [`Server::new`](super::Server::new) and copied into each stateless
//!   result with the `_meta` key before it; `uri` and `cursor` filed while the request
//!   is validated; no walk over the resources when nobody is subscribed.
//!
//! Both write the same bytes: the transcripts run against both forms (the host
//! build, a host build with `EMCP_FORMS=plain`, the i686 and firmware builds) with
//! the same expected lines.

// Both forms are compiled in every build (and tested against each other where a
// test can hold both); this is the one place that picks the form used.
mod fast;
mod plain;
#[cfg(emcp_fast)]
use fast as form;
#[cfg(not(emcp_fast))]
use plain as form;

#[cfg(feature = "stateless")]
pub(super) use form::{end_with_info, written_info, ServerInfo};

/// Without `stateless` no result carries `serverInfo`: nothing is kept.
#[cfg(not(feature = "stateless"))]
pub(super) type ServerInfo = ();

/// Nothing to keep without `stateless`.
#[cfg(not(feature = "stateless"))]
#[inline(always)]
pub(super) fn written_info(_config: &super::Config, _plain: bool) -> ServerInfo {}

/// Never called for a result without `stateless`: nothing written.
#[cfg(not(feature = "stateless"))]
#[inline(always)]
pub(super) fn end_with_info(
    _info: &ServerInfo,
    _w: &mut crate::wire::json::JsonWriter<'_>,
    _ttl_ms: Option<u32>,
) -> bool {
    false
}
pub(super) use form::{nothing_to_notify, open_list, FILE_URI_CURSOR};
