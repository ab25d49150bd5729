use super::failure::ErrorData;
use super::failure::Failure;
use super::failure::Key;
use super::failure::Outcome;
use super::named::Named;
use super::params::str_member;
use super::params::Params;
use super::params::P_META;
use super::result::Ttl;
use super::Server;
use crate::device::Completion;
use crate::device::Device;
use crate::device::Exchange;
use crate::device::Reference;
use crate::wire::error::DispatchError;
use crate::wire::json::JsonWriter;
use crate::wire::json::Sink;
use crate::wire::rpc::Request;

impl<D: Device, const L: usize, const J: usize, const W: usize, const K: usize>
    Server<D, L, J, W, K>
{
    /// Out of line in the plain forms: apart from the dispatch it would be inlined
    /// into, it takes less code.
    #[cfg_attr(not(emcp_fast), inline(never))]
    pub(super) fn complete<'a>(
        &mut self,
        r: Request<'a>,
        p: &Params<'a>,
        ex: Exchange<'a>,
        out: &mut dyn Sink,
    ) -> Outcome<'a> {
        let bad = DispatchError::InvalidParams("Invalid completion request");
        let params = r.params.ok_or(bad)?;
        // `_meta` passed over, not walked.
        let meta = p.0[P_META];
        let reference = params.get_past("ref", meta).ok_or(bad)?;
        let kind = str_member(reference, "type").ok_or(bad)?;
        let reference = if kind.eq_str("ref/prompt") {
            let name = str_member(reference, "name").ok_or(bad)?;
            let Some(index) = self.named(Named::Prompt, name) else {
                return Err(Failure {
                    error: DispatchError::UnknownPrompt,
                    data: ErrorData::naming(Key::Name, name),
                });
            };
            Reference::Prompt(index)
        } else if kind.eq_str("ref/resource") {
            Reference::Resource(str_member(reference, "uri").ok_or(bad)?)
        } else {
            return Err(bad.into());
        };
        let argument = params.get_past("argument", meta).ok_or(bad)?;
        let arg_name = str_member(argument, "name").ok_or(bad)?;
        let value = str_member(argument, "value").ok_or(bad)?;
        let mut w = JsonWriter::new(out);
        ex.begin_result(&mut w);
        w.key_lit("completion");
        w.begin_object();
        w.key_lit("values");
        w.begin_array();
        let mut c = Completion {
            w,
            reference,
            argument: arg_name,
            value,
            count: 0,
        };
        self.device.complete(&mut c);
        let w = &mut c.w;
        w.end_array();
        w.key_lit("total");
        w.u64(c.count as u64);
        w.member_lit(b",\"hasMore\":false");
        w.end_object();
        self.end_result(w, ex.era, Ttl::None);
        Ok(())
    }
}
