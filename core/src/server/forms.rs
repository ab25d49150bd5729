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

#[cfg_attr(emcp_fast, path = "forms/fast.rs")]
#[cfg_attr(not(emcp_fast), path = "forms/plain.rs")]
mod form;

#[cfg(feature = "stateless")]
pub(super) use form::{end_with_info, written_info, ServerInfo};
pub(super) use form::{nothing_to_notify, open_list, FILE_URI_CURSOR};
